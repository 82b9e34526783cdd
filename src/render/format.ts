/*! Number and time formatting shared by the human-readable renderers. */

import { apiserverLogLine } from '../analyze/apiserver-log-report.js';
import { filteredAway, formatBytes, formatCount, type EtcdRangeReport, type GroupReport, type ScanReport } from '../analyze/report.js';

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
export const GROUP_HEAD = ['#', 'client', 'user', 'resource', 'selector', 'requests', 'nodes', 'no RV', 'etcd', 'cache', 'read/req', 'returned/req', 'amplification', 'p50', 'p99', 'first seen', 'last seen'];
/** Which of those columns hold numbers (right-aligned). */
export const GROUP_NUMERIC = new Set([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);

/** A latency in a cell: "8ms", "351ms", "2.1s". */
export const msCell = (x: number): string => (x >= 1000 ? `${Math.round(x / 100) / 10}s` : `${Math.round(x)}ms`);

/** The no-resourceVersion count; "?" when some reads came without their query (GKE). */
export function noRvCell(g: Pick<GroupReport, 'servedFrom' | 'withoutResourceVersion'>): string {
  if (g.servedFrom.unknown === 0) return formatCount(g.withoutResourceVersion);
  return g.withoutResourceVersion === 0 ? '?' : `${formatCount(g.withoutResourceVersion)}+?`;
}

/** The line under Findings when there is none: nothing read, nothing heavy, or nothing knowable (GKE). */
export function noFindingsText(r: Pick<ScanReport, 'inputs' | 'totals' | 'filters'>, nothing: boolean): string {
  if (nothing) return 'Nothing to analyse: no input held audit events or etcd entries.';
  const f = r.filters ?? null;
  if (f !== null && filteredAway({ filters: f, totals: r.totals })) return `Nothing to analyse: ${filterNote(f, r.totals)}`;
  if (f !== null) return `No client reads etcd heavily in what the filters kept (${filterNote(f, r.totals)})`;
  if (r.totals.readsQueryUnknown > 0) return `No finding from what the log holds: it does not say where ${formatCount(r.totals.readsQueryUnknown)} reads were served (see the note on the query string).`;
  return 'No client reads etcd heavily in this log.';
}

/** The summary when there are findings but none about one client (an etcd log alone, a restart, a token wave):
 * the worst of them in a sentence, so the first screen is never empty. */
export function noOffenderText(r: Pick<ScanReport, 'findings' | 'summary'>): string | null {
  if (r.findings.length === 0 || r.summary.offenders.length > 0) return null;
  const f = r.findings[0]!;
  const first = /^.*?[.!?](?=\s|$)/.exec(f.summary)?.[0] ?? f.summary;
  const more = r.findings.length > 1 ? ` ${plural(r.findings.length - 1, 'more finding')} below.` : '';
  return `${f.severity.toUpperCase()} ${first}${more}`;
}

/** "the filters (--since …) left out 1,234 of 1,234 requests and 5 etcd lines; the log covers A – B." */
export function filterNote(f: NonNullable<ScanReport['filters']>, t: ScanReport['totals']): string {
  const all = f.requestsLeftOut + t.requests;
  const etcd = f.etcdLinesLeftOut > 0 ? ` and ${plural(f.etcdLinesLeftOut, 'etcd line')}` : '';
  const span = t.firstSeen !== null && t.lastSeen !== null ? `; the log covers ${t.firstSeen} – ${t.lastSeen}` : '';
  return `the filters (${f.applied.join(' ')}) left out ${formatCount(f.requestsLeftOut)} of ${plural(all, 'request')}${etcd}${span}.`;
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
    orDash(g.latencyMs, (l) => msCell(l.p50)),
    orDash(g.latencyMs, (l) => msCell(l.p99)),
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

/** Column heads of the metrics table (the apiserver's /metrics dumps), in every renderer. */
export const METRICS_HEAD = ['resource', 'objects', 'etcd lists', 'fetched/list', 'returned/list', 'ratio', 'cache lists'];
export const METRICS_NUMERIC = new Set([1, 2, 3, 4, 5, 6]);

/** One resource of the metrics dumps: its objects, and its lists between the first and last dump. */
export function metricsRow(m: NonNullable<ScanReport['metrics']>['resources'][number], esc: (s: string) => string): string[] {
  const e = m.etcdLists;
  return [
    esc(m.resource),
    orDash(m.objects, formatCount),
    orDash(e?.lists ?? null, formatCount),
    orDash(e?.fetchedPerList ?? null, formatCount),
    orDash(e?.returnedPerList ?? null, formatCount),
    orDash(e?.amplification ?? null, formatRatio),
    orDash(m.cacheLists?.lists ?? null, formatCount),
  ];
}

/** The line above the metrics table: how many dumps, of how many apiservers, over what span. */
export function metricsCaption(r: NonNullable<ScanReport['metrics']>): string {
  const span = r.resources.find((x) => x.etcdLists !== null)?.etcdLists;
  const when = span ? `; lists between ${span.from.slice(0, 19).replace('T', ' ')} and ${span.to.slice(11, 19)} UTC` : r.deltasReason ? `; no lists counted between dumps: ${r.deltasReason}` : '';
  return `${plural(r.dumps, 'dump')} of ${plural(r.apiservers, 'apiserver')}${r.kubernetesVersion ? ` (${r.kubernetesVersion})` : ''}${when}.`;
}

/** "1 request" / "2 requests". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${formatCount(n)} ${n === 1 ? one : many}`;

/** A number a what-if compares: counts as counts, bytes as bytes, rates with one decimal. */
function beforeAfter(x: { before: number | null; after: number | null }, f: (n: number) => string): string | null {
  if (x.before === null || x.after === null) return null;
  return `${f(x.before)} → ${f(x.after)}`;
}

/** "etcd requests 1,342 → 42; objects read 9.3 M → 0; …": the parts of a what-if the log can tell. */
export function whatIfText(w: { etcdRequests: { before: number | null; after: number | null }; objectsRead: { before: number | null; after: number | null }; bytesRead: { before: number | null; after: number | null }; peakEtcdRequestsPerSecond: { before: number | null; after: number | null } }): string {
  // a figure the fix leaves as it is says nothing (the log does not tell what this client read): left out
  const parts: Array<[string, { before: number | null; after: number | null }, (n: number) => string]> = [
    ['etcd requests', w.etcdRequests, formatCount],
    ['objects read from etcd', w.objectsRead, formatCount],
    ['bytes read', w.bytesRead, formatBytes],
    ['peak etcd requests/s', w.peakEtcdRequestsPerSecond, (n) => String(n)],
  ];
  return parts
    .filter(([, x]) => x.before !== null && x.after !== null && x.before !== x.after)
    .map(([k, x, f]) => `${k} ${beforeAfter(x, f)}`)
    .join('; ');
}

/** "p50 5 ms, p99 130 ms, max 2.1 s (1,300)": latency figures for a sentence or a cell. */
export function latencyText(l: { p50: number; p90: number; p99: number; max: number; n: number } | null, withCount = false): string {
  if (l === null) return '–';
  const ms = (x: number): string => (x >= 1000 ? `${Math.round(x / 100) / 10} s` : `${x} ms`);
  return `p50 ${ms(l.p50)}, p99 ${ms(l.p99)}, max ${ms(l.max)}${withCount ? ` (${formatCount(l.n)})` : ''}`;
}

/** The evidence line of a finding: one request and the etcd reads of its range. */
export function evidenceText(e: { sampleRequestURI: string | null; etcd: { key: string; reads: number; objectsPerRead: number | null; bytesPerRead: number | null; tookMsMax: number | null } | null } | undefined): string | null {
  if (e === undefined) return null;
  const parts: string[] = [];
  if (e.sampleRequestURI !== null) parts.push(`a request: ${e.sampleRequestURI}`);
  if (e.etcd !== null) {
    const x = e.etcd;
    parts.push(`etcd logged ${plural(x.reads, 'slow read')} of ${x.key}${x.objectsPerRead !== null ? `, ${formatCount(x.objectsPerRead)} objects` : ''}${x.bytesPerRead !== null ? ` (${formatBytes(x.bytesPerRead)})` : ''} each${x.tookMsMax !== null ? `, up to ${x.tookMsMax} ms` : ''}`);
  }
  return parts.length > 0 ? parts.join('; ') : null;
}

/** "10:00:00–10:02:05 UTC (2 min 5 s)". */
export function windowText(w: { start: string | null; end: string | null; seconds: number | null }): string {
  if (w.start === null || w.end === null || w.seconds === null) return 'no request times';
  const sameDay = w.start.slice(0, 10) === w.end.slice(0, 10);
  const d = w.seconds;
  const dur = d < 60 ? `${d} s` : d < 3600 ? `${Math.floor(d / 60)} min${d % 60 ? ` ${Math.round(d % 60)} s` : ''}` : d < 86400 * 2 ? `${Math.floor(d / 3600)} h ${Math.floor((d % 3600) / 60)} min` : `${Math.round(d / 86400)} days`;
  return `${sameDay ? `${w.start.slice(0, 10)} ${w.start.slice(11, 19)}–${w.end.slice(11, 19)}` : `${w.start.slice(0, 19).replace('T', ' ')} – ${w.end.slice(0, 19).replace('T', ' ')}`} UTC (${dur})`;
}

/** The method in one paragraph: what is measured, what estimated, and the rules' version. */
export function methodText(m: { measured: string[]; estimated: string[]; kubernetes: string; apiservers?: string; auditPolicy?: string }, esc: (s: string) => string): string {
  const k = esc(m.kubernetes);
  return `Method. Measured: ${m.measured.join('; ')}.${m.estimated.length > 0 ? ` Estimated: ${m.estimated.join('; ')}.` : ''} ${k.charAt(0).toUpperCase()}${k.slice(1)}.${m.apiservers !== undefined ? ` ${esc(m.apiservers)}.` : ''}${m.auditPolicy !== undefined ? ` ${esc(m.auditPolicy)}.` : ''}`;
}

/** The overview under the title, one sentence per entry; `esc` makes a log string safe for the format. */
export function overviewLines(r: ScanReport, esc: (s: string) => string): string[] {
  const t = r.totals;
  const skipped = r.inputs.reduce((s, i) => s + i.skippedLines + i.skippedItems, 0);
  const lines = r.inputs.reduce((s, i) => s + i.lines, 0);
  const events = r.inputs.reduce((s, i) => s + i.auditEvents, 0);
  const sm = r.summary;
  const peak = sm.peakRequestsPerSecond === null ? '' : `, peak ${sm.peakRequestsPerSecond.value} requests/s at ${sm.peakRequestsPerSecond.at.slice(11, 19)}`;
  const out = [
    `${plural(r.inputs.length, 'input')}, ${plural(lines, 'line')}, ${plural(events, 'audit event')} (${plural(t.requests, 'request')}), ` +
      `${plural(t.etcdSlowRanges, 'slow etcd read')} (+${formatCount(t.etcdInternalRanges)} apiserver-internal left out), ${formatCount(skipped)} skipped`,
    `Window ${windowText(sm.window)}${peak}. Kubernetes ${esc(r.kubernetes.version)} (${esc(r.kubernetes.reason)})${r.kubernetes.etcdVersion !== null ? `; etcd ${esc(r.kubernetes.etcdVersion)}` : ''}${esc(etcdPrefixNote(r.kubernetes.etcdPrefix))}`,
    `Lists ${formatCount(t.listRequests)} (${formatCount(t.listFromEtcd)} from etcd, ${formatCount(t.listWithoutResourceVersion)} without resourceVersion); gets ${formatCount(t.getRequests)} (${formatCount(t.getFromEtcd)} from etcd); ${plural(t.clusterNodes, 'node')} seen`,
  ];
  if (r.apiserverLog !== undefined) {
    out.push(esc(apiserverLogLine(r.apiserverLog)));
    for (const l of r.apiserverLog.limits) out.push(`  Limit: ${esc(l)}`);
    if (r.apiserverLog.nextStep !== null) out.push(`  Next: ${esc(r.apiserverLog.nextStep)}`);
  }
  const ap = r.apiservers;
  if (ap.identified) {
    const each = ap.apiservers.map((a) => `${esc(a.name)} ${Math.round(a.share * 100)}% (${formatCount(a.requests)}${a.restarts.length > 0 ? `; restarted ${a.restarts.map((x) => x.slice(11, 19)).join(', ')}` : ''})`);
    out.push(`Apiservers: ${each.join(', ')}`);
  }
  return out;
}

/** The totals line under the offenders: what lists from etcd read, or null when no figure is known. */
export function readTotalText(sm: ScanReport['summary']): string | null {
  if (sm.objectsRead === null) return null;
  return `Lists from etcd read ${formatCount(sm.objectsRead)} objects${sm.objectsReturned !== null ? ` to return ${formatCount(sm.objectsReturned)}` : ''}${sm.bytesRead !== null ? ` (${formatBytes(sm.bytesRead)})` : ''}.`;
}

/** The incident's time column: "10:00:02–10:00:03", with dates when the events span days. */
export function incidentWhen(e: { start: string; end: string }, multiDay: boolean): string {
  return e.start === e.end ? shortTime(e.start, multiDay) : `${shortTime(e.start, multiDay)}–${shortTime(e.end, multiDay)}`;
}

/** The APF pointer for a finding whose manifests are not printed. */
export const APF_POINTER = 'a FlowSchema and PriorityLevelConfiguration that queue this client: --apf prints them, --apf-out DIR writes them';
