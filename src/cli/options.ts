/*! The option table: the single source for commander options, --help and the README's option table. */

/** One command-line option. */
export interface OptionSpec {
  flags: string; // commander syntax, e.g. "-o, --output <format>"
  description: string;
  choices?: string[];
  default?: string | boolean;
  repeatable?: boolean;
}

export const SCAN_OPTIONS: OptionSpec[] = [
  { flags: '-o, --output <format>', description: 'output format', choices: ['table', 'json', 'markdown', 'html'], default: 'table' },
  // No short flag: -n is --namespace, as in kubectl (ripgrep's -n is --line-number; neither has a short flag for this).
  { flags: '--top <n>', description: 'rows per table (groups, ranges, user agents)', default: '20' },
  { flags: '--kube-version <version>', description: 'Kubernetes version of the apiservers (e.g. 1.29); inferred from control-plane user agents when omitted' },
  { flags: '--etcd-version <version>', description: 'etcd version (decides consistent reads from cache on 1.31+); read from the etcd log when omitted' },
  { flags: '--etcd-prefix <prefix>', description: 'kube-apiserver --etcd-prefix (default: inferred from the keys: /registry, or /kubernetes.io on OpenShift)' },
  { flags: '--syslog-year <year>', description: 'year of dates that carry none: syslog, journald short dates and klog headers (default: the latest that is not in the future)' },
  { flags: '--objects <resource=count>', description: 'objects stored for a resource, when no etcd log says (repeat or comma-separate: pods=7130,nodes=80)', repeatable: true },
  { flags: '--consistent-list-from-cache <on|off>', description: 'override the ConsistentListFromCache feature gate default', choices: ['on', 'off'] },
  { flags: '--watch-cache-disabled <resources>', description: 'resources with --watch-cache-sizes=<res>#0 (events always)', repeatable: true },
  { flags: '--color <when>', description: 'colour output', choices: ['auto', 'always', 'never'], default: 'auto' },
  { flags: '--no-color', description: 'same as --color never' },
  { flags: '--width <columns>', description: 'table width (default: the terminal width, or 120)' },
  { flags: '--apf', description: 'print the API Priority and Fairness manifests under the findings (the table shows a pointer; Markdown and HTML always hold them)', default: false },
  { flags: '--apf-out <dir>', description: "write each finding's API Priority and Fairness manifests to <dir>/<n>-<client>.yaml" },
  { flags: '--since <time>', description: 'only requests received at or after this time: RFC 3339, or a duration before now like kubectl (30m, 2h)' },
  { flags: '--until <time>', description: 'only requests received before this time (same forms as --since)' },
  { flags: '--user <names>', description: 'only these users (repeat or comma-separate; a trailing * matches a prefix, e.g. system:node:*)', repeatable: true },
  { flags: '--verb <verbs>', description: 'only these verbs (list, get, watch, create, …)', repeatable: true },
  { flags: '--resource <resources>', description: 'only these resources (pods, or pods.metrics.k8s.io style with a group)', repeatable: true },
  { flags: '-n, --namespace <namespaces>', description: 'only requests in these namespaces (-n as in kubectl)', repeatable: true },
  { flags: '--follow', description: 'keep reading as the inputs grow, like tail -F (rotation, copytruncate, files not there yet; stdin until it ends): a live view on a terminal, else one JSON report a line each --interval; Ctrl-C or SIGTERM prints the final report', default: false },
  { flags: '--interval <duration>', description: 'with --follow: how often the view is redrawn or a JSON line printed (a bare number is seconds, as for watch -n: 1 = 1s; 500ms, 2s, 1m)', default: '2s' },
  { flags: '--window <duration>', description: 'with --follow: the recent stretch of log time the live figures cover', default: '5m' },
  { flags: '--bucket <duration>', description: 'time bucket for rates, storms and the timeline', default: '1s' },
  { flags: '--gap <duration>', description: 'a pause this long in one apiserver’s audit stream is a gap (restart or log loss); default: 100× the input’s median spacing, at least 5s' },
  { flags: '-j, --threads <n>', description: 'threads for files over 32 MB and for gzip/stdin streams (1 = this one; a gzip over 1 MB also inflates on one of its own); results do not depend on it', default: 'auto' },
  { flags: '--max-groups <n>', description: 'most client groups kept; past it the smallest are folded into one "other" count (bounded memory)', default: '50000' },
  { flags: '--redact', description: 'replace usernames and namespaces with stable pseudonyms (HMAC), to share a report outside the company' },
  { flags: '--redact-key <key>', description: 'key for --redact, so two reports use the same pseudonyms (default: random per run)' },
  { flags: '--engine <engine>', description: 'line reader: the compiled engine, or JavaScript only (also AUDIT_SCAN_ENGINE); results are the same', choices: ['wasm', 'js'] },
  { flags: '--verbose', description: 'print every skipped line as file:line: reason (reads on one thread, to keep line numbers)', default: false },
  { flags: '--strict', description: 'exit 1 when any line was skipped', default: false },
];

export const EXIT_CODES = `Exit status:
  0    the scan finished (some lines may have been skipped; see stderr)
  1    an input could not be read (missing, unreadable, corrupt gzip), no input
       held audit events or etcd entries, or --strict and lines were skipped
  2    usage error, a write error (stdout, --apf-out), or an internal error
  130  interrupted (SIGINT); what was read so far is printed`;

export const EXAMPLES = `Examples:
  audit-scan audit.log                            # list traffic, worst first
  audit-scan audit-a.log audit-b.log.gz etcd.log  # several apiservers and etcd
  kubectl logs -n kube-system etcd-master-1 | audit-scan - audit.log
  audit-scan -o json audit.log > scan.json        # the JSON contract
  audit-scan -o markdown logs/ > postmortem.md
  audit-scan -o html --apf-out apf/ logs/ > report.html
  audit-scan --kube-version 1.29 --objects pods=7130 audit.log
  audit-scan --follow /var/log/kubernetes/audit/audit.log etcd.log
  kubectl logs -f -n kube-system kube-apiserver-m1 | audit-scan --follow -
  audit-scan --since 30m --verb list audit.log     # the last 30 minutes' lists
  audit-scan --since 2026-11-30T10:00:00Z --until 2026-11-30T10:15:00Z a.log

Store commands (DuckDB; see docs/store.md):
  audit-scan load audit*.log etcd.log --db incident.duckdb
  audit-scan sql --db incident.duckdb \\
    "SELECT user_agent, count(*) FROM lists GROUP BY 1"
  audit-scan export --db incident.duckdb --parquet out/
  audit-scan scan --db incident.duckdb`;
