/*! Number and time formatting shared by the human-readable renderers. */

import { formatBytes, formatCount, type EtcdRangeReport, type GroupReport, type ScanReport } from '../analyze/report.js';

export { formatBytes, formatCount };

/** null → "–", else the formatted value. */
export function orDash<T>(v: T | null | undefined, f: (x: T) => string): string {
  return v === null || v === undefined ? '–' : f(v);
}

/** "2026-01-02T03:04:05.678Z" → "03:04:05" (or with the date when the scan spans days). */
export function shortTime(iso: string | null, withDate: boolean): string {
  if (iso === null) return '–';
  return withDate ? iso.slice(5, 19).replace('T', ' ') : iso.slice(11, 19);
}

/** An amplification ratio: "64.8×". */
export const formatRatio = (x: number): string => `${x >= 100 ? Math.round(x) : x}×`;

/** Column heads of the list-groups table in the Markdown and HTML reports. */
export const GROUP_HEAD = ['#', 'client', 'user', 'resource', 'selector', 'requests', 'nodes', 'no RV', 'etcd', 'cache', 'read/req', 'returned/req', 'amplification', 'first seen', 'last seen'];
/** Which of those columns hold numbers (right-aligned). */
export const GROUP_NUMERIC = new Set([5, 6, 7, 8, 9, 10, 11, 12]);

/** The no-resourceVersion count; "?" when some reads came without their query (GKE). */
export function noRvCell(g: Pick<GroupReport, 'servedFrom' | 'withoutResourceVersion'>): string {
  if (g.servedFrom.unknown === 0) return formatCount(g.withoutResourceVersion);
  return g.withoutResourceVersion === 0 ? '?' : `${formatCount(g.withoutResourceVersion)}+?`;
}

/** The line under Findings when there is none: nothing read, nothing heavy, or nothing knowable (GKE). */
export function noFindingsText(r: Pick<ScanReport, 'inputs' | 'totals'>, nothing: boolean): string {
  if (nothing) return 'Nothing to analyse: no input held audit events or etcd entries.';
  if (r.totals.readsQueryUnknown > 0) return `No finding from what the log holds: it does not say where ${formatCount(r.totals.readsQueryUnknown)} reads were served (see the note on the query string).`;
  return 'No client reads etcd heavily in this log.';
}

/** A served-from count; "?" marks reads whose query the log did not keep, so where they were served is unknown. */
export function servedCell(g: Pick<GroupReport, 'servedFrom'>, where: 'etcd' | 'cache'): string {
  const n = g.servedFrom[where];
  if (g.servedFrom.unknown === 0) return formatCount(n);
  return n === 0 ? '?' : `${formatCount(n)}+?`;
}

/** The note under a table with "?" cells, and in the summary: why those figures are unknown. */
export function queryUnknownNote(n: number): string {
  return `? ${formatCount(n)} read${n === 1 ? '' : 's'} came without the query string (GKE Cloud Logging drops it): counted and grouped, but whether etcd or the watch cache served them, and the amplification, need resourceVersion, limit and selectors, which the apiserver's own audit log keeps.`;
}

/** The etcd prefix, when it is not the default: "; etcd keys under /kubernetes.io (inferred …)". */
export function etcdPrefixNote(p: ScanReport['kubernetes']['etcdPrefix']): string {
  return p.source === 'default' ? '' : `; etcd keys under ${p.prefixes.join(', ')} (${p.reason})`;
}

/** How each wrapper in inputs[].wrappers reads to a user. */
const WRAPPER_LABELS: Record<string, string> = {
  kubectl: 'kubectl logs prefixes',
  syslog: 'syslog lines',
  journald: 'journald lines',
  hostname: 'host-prefixed lines',
  cri: 'containerd/CRI-O lines',
  docker: 'Docker json-file records',
  'fluent-bit': 'Fluent Bit records',
  message: 'shipper records (message field)',
  loki: 'Loki records',
  'splunk-hec': 'Splunk HEC events',
  'splunk-export': 'Splunk export results',
  otlp: 'OpenTelemetry log records',
  'datadog-api': 'Datadog API logs',
  cloudwatch: 'CloudWatch events',
  'cloudwatch-subscription': 'CloudWatch subscription records',
  'logs-insights': 'Logs Insights results',
  'logs-insights-csv': 'Logs Insights CSV',
  gke: 'GKE Cloud Logging entries',
  'aks-diagnostic': 'AKS diagnostic records',
  'aks-log-analytics': 'AKS Log Analytics rows',
};

/** "read as containerd/CRI-O lines, Docker json-file records", or '' for plain lines. */
export function wrapperNote(wrappers: Record<string, number>): string {
  const names = Object.keys(wrappers);
  return names.length === 0 ? '' : `read as ${names.map((w) => WRAPPER_LABELS[w] ?? w).join(', ')}`;
}

/** One list-groups row; `esc` makes a log string safe for the format (Markdown or HTML). */
export function groupRow(g: GroupReport, i: number, esc: (s: string) => string): string[] {
  const res = g.apiGroup ? `${g.resource}.${g.apiGroup}` : g.resource;
  const ns = g.namespace === null ? '' : ` (${g.namespace === '*' ? `${g.namespaces} namespaces` : g.namespace})`;
  return [
    String(i + 1),
    esc(g.userAgent || '(none)'),
    esc(g.username),
    esc(res + ns),
    esc(g.selector || '–'),
    formatCount(g.requests),
    formatCount(g.nodes),
    noRvCell(g),
    servedCell(g, 'etcd'),
    servedCell(g, 'cache'),
    orDash(g.objectsReadPerRequest, formatCount),
    orDash(g.objectsReturnedPerRequest, (x) => (g.figureSources.objectsReturned === 'estimate-objects-per-node' ? '~' : '') + formatCount(x)),
    orDash(g.amplification, formatRatio),
    esc(g.firstSeen ?? '–'),
    esc(g.lastSeen ?? '–'),
  ];
}

/** Column heads of the slow-etcd-ranges table in the Markdown and HTML reports. */
export const ETCD_RANGE_HEAD = ['key', 'resource', 'reads', 'objects/read', 'bytes/read', 'max took [ms]', 'note'];
/** Which of those columns hold numbers (right-aligned). */
export const ETCD_RANGE_NUMERIC = new Set([2, 3, 4, 5]);

/** One slow-etcd-ranges row, the same cells in every renderer; `esc` makes a log string safe for the format. */
export function etcdRangeRow(e: EtcdRangeReport, esc: (s: string) => string): string[] {
  let note = '';
  if (e.internal !== null) note = `internal: ${e.internal}`;
  else if (e.limited) note = 'paginated';
  else if (e.errors > 0) note = `${formatCount(e.errors)} error${e.errors === 1 ? '' : 's'}`;
  return [esc(e.key), esc(e.resource || '–'), formatCount(e.reads), orDash(e.objectsPerRead, formatCount), orDash(e.bytesPerRead, formatBytes), orDash(e.tookMsMax, (x) => x.toFixed(1)), esc(note)];
}
