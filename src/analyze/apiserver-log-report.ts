/*! What the apiserver's own log could and could not show, for the report: per input the line kinds read, the
 * release and verbosity inferred from the log itself, the limits of each source, and the next step when the log
 * cannot answer. Reads the inputs' counts (InputStats.apiserverLog); nothing per line. */

import type { InputStats } from '../aggregate/scan-state.js';
import type { ApiserverLogStats } from '../decode/apiserver-log-reader.js';
import { parseKubeVersion, compareKubeVersion, formatKubeVersion, type KubeVersion } from '../model/kube-version.js';
import { formatCount } from '../model/count-format.js';
import { formatTimestamp } from '../decode/time.js';

/** The apiserver log's part of the report (ScanReport.apiserverLog), present when an input held one. */
export interface ApiserverLogReport {
  inputs: Array<{
    name: string;
    format: 'text' | 'json' | 'mixed';
    /** the release the log shows: its Version line, else what its callers' line numbers say (a range) */
    version: string | null;
    versionSource: 'version line' | 'callers' | null;
    /** when the log prints more than one release (an upgrade or a rollback at a restart): each, from its first
     * Version line, oldest first; `version` is the one in force at the input's last request. Absent otherwise */
    versionsSeen?: Array<{ version: string; from: string | null }>;
    /** "3": httplog lines, every request; "0-2": traces and timeouts only (slow requests); "0-1": no request line */
    verbosity: '>=3' | '0-2' | '2' | '0-1';
    /** requests by what showed them: httplog lines, traces alone, timeouts alone; traces joined to their httplog */
    requests: { httplog: number; traceOnly: number; timeoutOnly: number; joined: number };
    traceBlocks: number;
    traceBlocksCut: number;
    traceLinesWithoutHeader: number;
    starts: number;
    watchStarts: number;
  }>;
  /** what these sources cannot see, in words, for the reader of the report */
  limits: string[];
  /** what to turn on when the log cannot answer, or null */
  nextStep: string | null;
  /** beside an audit log: the requests the apiserver's log shows that no audit group holds (the audit policy drops
   * them, or the two logs cover different times); null when every one was matched, or there is no audit log */
  notInAudit: NotInAudit | null;
}

/** The apiserver log's requests that match no audit group (by verb, user agent, resource and selector shape). */
export interface NotInAudit {
  requests: number;
  groups: Array<{ verb: string; userAgent: string; resource: string; selector: string; requests: number; flowSchema: string | null }>;
}

/** The release a caller's line number pins (klog's `file:line` of httplog's and trace's Log calls), as the lowest
 * and highest minor it occurs in. From docs/apiserver-log-formats.md. */
const CALLER_MINORS: Record<string, [number, number]> = {
  'httplog.go:90': [17, 18],
  'httplog.go:89': [19, 21],
  'httplog.go:94': [20, 21],
  'httplog.go:104': [22, 22],
  'httplog.go:109': [22, 22],
  'httplog.go:129': [23, 23],
  'httplog.go:131': [24, 25],
  'httplog.go:132': [26, 30],
  'httplog.go:134': [31, 36],
  'httplog.go:135': [37, 37],
  'trace.go:116': [17, 18],
  'trace.go:205': [19, 25],
  'trace.go:219': [26, 27],
  'trace.go:236': [28, 37],
};

/** Whether an input's klog lines are the apiserver's log: request lines, traces, timeouts or its start. */
export function isApiserverLog(st: ApiserverLogStats): boolean {
  return st.httplog + st.httplogLegacy + st.traceBlocks + st.timeouts + st.starts > 0;
}

/** The version an input's log names: the last Version line printed at or before `atMs` (its last request: across
 * an upgrade, the release that served it), else the most printed, or null. */
function versionLine(st: ApiserverLogStats, atMs: number | null): string | null {
  if (atMs !== null) {
    let at: string | null = null;
    let t = -Infinity;
    for (const [v, first] of st.versionFirstMs) if (first <= atMs && first > t) [at, t] = [v, first];
    if (at !== null) return at;
  }
  let best: string | null = null;
  let n = 0;
  for (const [v, c] of st.versions) if (c > n || (c === n && best !== null && v > best)) [best, n] = [v, c];
  return best;
}

/** The range of minors the callers agree on, or null. */
function versionOfCallers(st: ApiserverLogStats): string | null {
  let lo = 0;
  let hi = 999;
  let any = false;
  for (const c of st.callers.keys()) {
    const r = CALLER_MINORS[c];
    if (r === undefined) continue;
    any = true;
    lo = Math.max(lo, r[0]);
    hi = Math.min(hi, r[1]);
  }
  if (!any || lo > hi) return null;
  return lo === hi ? `1.${lo}` : `1.${lo}-1.${hi}`;
}

/** An input's last request the filters kept: its last line's time (restart rules read every line, --until or
 * not), no later than the last kept request of all inputs (`keptLastMs`, null when unknown). */
const lastOf = (i: InputStats, keptLastMs: number | null): number | null => (i.lastMs === null ? keptLastMs : keptLastMs === null ? i.lastMs : Math.min(i.lastMs, keptLastMs));

/** The highest release any input's log names by its Version line, for the classifier; null when none does. */
export function logKubeVersion(inputs: InputStats[], keptLastMs: number | null = null): { version: KubeVersion; text: string } | null {
  let best: { version: KubeVersion; text: string } | null = null;
  for (const i of inputs) {
    const st = i.apiserverLog;
    if (st === undefined) continue;
    const v = versionLine(st, lastOf(i, keptLastMs));
    const k = v === null ? null : parseKubeVersion(v);
    if (k !== null && (best === null || compareKubeVersion(k, best.version) > 0)) best = { version: k, text: v! };
  }
  return best;
}

/** The report's apiserver-log part, or null when no input held the apiserver's log. `assumed` is the release the
 * classifier uses (1.31 moved traces to -v=2). */
export function apiserverLogReport(inputs: InputStats[], assumed: KubeVersion, notInAudit: NotInAudit | null = null, besideAudit = false, keptLastMs: number | null = null): ApiserverLogReport | null {
  const rows: ApiserverLogReport['inputs'] = [];
  let httplog = 0;
  let traces = 0;
  let timeouts = 0;
  for (const i of inputs) {
    const st = i.apiserverLog;
    // an input with a stray klog line or two (an audit file a shipper mixed them into) is not an apiserver log
    if (st === undefined || !isApiserverLog(st)) continue;
    const vl = versionLine(st, lastOf(i, keptLastMs));
    const seen = [...st.versions.keys()].map((v) => ({ version: v, t: st.versionFirstMs.get(v) ?? null })).sort((x, y) => (x.t ?? Infinity) - (y.t ?? Infinity) || (x.version < y.version ? -1 : 1));
    const vc = vl === null ? versionOfCallers(st) : null;
    const lines = st.httplog + st.httplogLegacy;
    const minor = (vl === null ? null : parseKubeVersion(vl)) ?? assumed;
    const verbosity: ApiserverLogReport['inputs'][number]['verbosity'] = lines > 0 ? '>=3' : st.requestTraces > 0 ? (minor.major === 1 && minor.minor >= 31 ? '2' : '0-2') : '0-1';
    httplog += lines;
    traces += st.traceOnly;
    timeouts += st.timeoutOnly;
    rows.push({
      name: i.name,
      format: st.jsonRecords === 0 ? 'text' : st.textLines === 0 ? 'json' : 'mixed',
      version: vl ?? vc,
      versionSource: vl !== null ? 'version line' : vc !== null ? 'callers' : null,
      ...(seen.length > 1 ? { versionsSeen: seen.map(({ version, t }) => ({ version, from: formatTimestamp(t) })) } : {}),
      verbosity,
      requests: { httplog: lines, traceOnly: st.traceOnly, timeoutOnly: st.timeoutOnly, joined: st.joined },
      traceBlocks: st.traceBlocks,
      traceBlocksCut: st.traceCut,
      traceLinesWithoutHeader: st.traceOrphanLines,
      starts: st.starts,
      watchStarts: st.watchStarts,
    });
  }
  if (rows.length === 0) return null;
  const limits = besideAudit
    ? ["beside the audit log, the audit counts the requests (it names their users); the apiserver log's lists and gets are joined to the audit's groups by client, verb, resource and selector (its APF flow schema and priority level, its traces), never counted again"]
    : ["the apiserver's log names no user: its list groups are keyed on user agent and APF flow schema, the user column says it is not in the log"];
  if (httplog > 0 && !besideAudit) limits.push('httplog gives no response size: objects returned are known only for requests slow enough to be traced ("Writing http response done" count)');
  if (traces + timeouts > 0) limits.push(`${formatCount(traces + timeouts)} requests are known only from traces and timeouts: a trace is written only for a slow request (a list over 500 ms), so counts from them are a lower bound, and a trace's URL has no query string (where it was served is known only when its storage trace shows etcd)`);
  for (const r of rows)
    if (r.versionsSeen !== undefined)
      limits.push(`${r.name} prints ${r.versionsSeen.length} releases (${r.versionsSeen.map((v) => `${v.version} from ${v.from ?? 'an unknown time'}`).join(', ')}): an upgrade or a rollback at a restart. Its requests are read by the rules of ${r.version}, the release at its last request; \`audit-scan diff --split-at apiserver-version ${r.name}\` compares the two sides`);
  if (rows.some((r) => r.watchStarts > 0)) limits.push('this release (1.30.0-1.30.3) logs a watch when it starts (resp=0), not when it ends');
  const blind = rows.filter((r) => r.verbosity !== '>=3');
  const nextStep =
    blind.length === 0
      ? null
      : `${blind.map((r) => r.name).join(', ')}: no httplog lines (the apiserver runs at -v<3), so only slow requests and timeouts show${assumed.minor >= 31 ? ' (from 1.31 traces need -v=2; at -v=0 only errors show)' : ''}. To see every request: run kube-apiserver with --vmodule=httplog=3 (one line a request, with its query and APF flow schema), or keep list and watch in the audit policy at Metadata (docs/apiserver-log.md).`;
  if (notInAudit !== null) limits.push(`${formatCount(notInAudit.requests)} lists and gets of the apiserver's log match no audit group: the audit policy leaves them out, or the logs cover different times`);
  return { inputs: rows, limits, nextStep, notInAudit };
}

/** The line the table's header gives the apiserver's log. */
export function apiserverLogLine(r: ApiserverLogReport): string {
  const parts = r.inputs.map((i) => {
    const v = i.version === null ? 'release not shown' : `${i.version.startsWith('v') ? i.version : `v${i.version}`} (${i.versionSource === 'version line' ? 'its Version line' : 'from its callers'}${i.versionsSeen !== undefined ? `; ${i.versionsSeen.length} releases in the log` : ''})`;
    const reqs = i.requests.httplog + i.requests.traceOnly + i.requests.timeoutOnly;
    const how = i.verbosity === '>=3' ? 'httplog on' : i.verbosity === '0-1' ? 'no request lines' : 'traces only';
    const level = i.verbosity === '>=3' ? '-v=3 or more' : `-v=${i.verbosity}`;
    return `${i.name}: ${v}, ${level} (${how}), ${formatCount(reqs)} requests (${formatCount(i.requests.httplog)} httplog, ${formatCount(i.requests.traceOnly)} trace only, ${formatCount(i.requests.timeoutOnly)} timeout only)${i.traceBlocksCut > 0 ? `, ${formatCount(i.traceBlocksCut)} trace blocks cut` : ''}`;
  });
  return `Apiserver log: ${parts.join('; ')}`;
}

export { formatKubeVersion };
