/*! What a postmortem needs beyond the counts (issue 13): why each finding hurts (the apiserver fact behind it),
 * its evidence, the what-if of its fix computed from the log, a summary to read first, the incident's timeline,
 * and how each figure was obtained. Works on the report and the raw groups; reads nothing again. */

import type { ReadGroup } from '../aggregate/read-groups.js';
export type { BeforeAfter, Evidence, WhatIf } from './findings.js';
import type { AnyFinding, BeforeAfter, EtcdRangeReport, Evidence, Finding, GroupReport, ImbalanceFinding, RestartFinding, StormFinding, TokenFinding, WhatIf } from './findings.js';
import { TimeSeries } from '../aggregate/time-series.js';
import { humanSeconds } from '../aggregate/gaps.js';
import { mixOfShares, servingWords } from './serving.js';

/** Reasons a read went to etcd that the proposed fix (resourceVersion=0, NotOlderThan, an informer) moves to the
 * watch cache. The others (no watch cache for the resource) need another fix, whose effect the log cannot say. */
export function fixMovesToCache(reasons: Record<string, number>): boolean {
  const top = Object.keys(reasons)[0] ?? '';
  return top.length > 0 && !top.startsWith('events:') && !top.startsWith('watch cache disabled');
}

/** The apiserver fact behind a read going to etcd (DOMAIN.md §1), for the group's most frequent reason. */
export function whyOfReason(reason: string, resource: string): string {
  if (reason.startsWith('events:') || reason.startsWith('watch cache disabled')) return `${resource} have no watch cache (events#0 in --watch-cache-sizes by default), so every list is read from etcd, which reads every object under the key prefix.`;
  if (reason.startsWith('get without')) return 'A get without resourceVersion is a quorum read of one etcd key: the watch cache serves a get only when resourceVersion is set.';
  if (reason.startsWith('watch without')) return 'On 1.27.0–1.27.12, 1.28.0–1.28.8 and 1.29.0–1.29.3 a watch without resourceVersion is served by etcd, which first reads the whole key prefix.';
  if (reason.startsWith('continue')) return 'Before 1.34, every page after the first (a continue token) is read from etcd: a range read from the token\u2019s key to the end of the prefix.';
  if (reason.includes('Exact') || reason.startsWith('limit with') || reason.startsWith('unsupported') || reason.startsWith('resourceVersionMatch=')) return 'A read at an exact resourceVersion cannot come from the watch cache (before 1.34): etcd serves it.';
  return 'A list without resourceVersion asks for the newest data, which the apiserver reads from etcd (from 1.31 the watch cache serves it only with ConsistentListFromCache and an etcd with progress notify, 3.4.31+ or 3.5.13+); etcd knows nothing of selectors, so it reads every object under the prefix and the apiserver filters them after.';
}

/** Why a finding matters. */
export function whyOf(f: AnyFinding, g: GroupReport | undefined): string {
  switch (f.kind) {
    case 'apiserver-restart':
      return 'After an apiserver restart every client relists: informers with resourceVersion=0 are served by the watch cache once it is ready; clients that list without resourceVersion all read etcd at once.';
    case 'audit-gap':
      return 'While the audit stream is silent, nothing in it says what the control plane did: a restart, dropped audit events, or an idle apiserver.';
    case 'list-storm':
      return 'Many lists of one resource at once: each read from etcd reads the whole key prefix, each served from the watch cache costs apiserver CPU and memory to copy and encode.';
    case 'apiserver-imbalance':
      return 'A client sends every request over one HTTP/2 connection and keeps it: after an apiserver restarts, its clients reconnect through the load balancer to the others and stay there, so the restarted one idles while the others carry its load until connections happen to close.';
    case 'token-refresh-storm':
      return 'The kubelet refreshes a projected service-account token at 80% of its TTL with at most 10 s of jitter, so pods started together call TokenRequest together, every TTL × 0.8, for as long as they run.';
    case 'etcd-slow-ranges':
      return 'etcd logs a read that takes longer than its threshold (100 ms unless set otherwise); a list reads every key under its prefix, however few objects it returns.';
    case 'etcd-failed-reads':
      return 'A read that fails is retried whole: a list of a large prefix that times out costs etcd the read and then the same read again.';
    case 'etcd-slow-disk':
      return 'etcd commits every write to its write-ahead log with fdatasync before it answers; a slow disk delays every write, and a leader that misses its heartbeat can lose its leadership, which stalls the whole cluster.';
    default: {
      // Stryker disable next-line StringLiteral: any reason that opens with no rule's words reads as the default
      const top = g ? (Object.keys(g.reasons)[0] ?? '') : '';
      // Stryker disable next-line StringLiteral: without a group the reason is '', whose sentence names no resource
      return whyOfReason(top, g?.resource ?? 'objects');
    }
  }
}

type Read = { raw: ReadGroup; report: GroupReport };

/** Every group's etcd-served requests per bucket (each group's requests times its share served from etcd), at the
 * planner's width, laid out for what-ifs that each leave a few groups out: each bucket's sum over all groups, the
 * buckets from the largest sum down, and each bucket's contributions in the groups' order. */
interface Peaks {
  /** per group: the places of its buckets */
  at: Int32Array[];
  /** per bucket: its sum over every group, added up in the groups' order */
  total: Float64Array;
  /** bucket places, the largest total first */
  order: Int32Array;
  /** per bucket, from start[k] to start[k + 1]: the groups that have it, in order, and what each adds */
  start: Int32Array;
  group: Int32Array;
  value: Float64Array;
}

/** The peak of per-bucket etcd-served requests over every group but those `skip` marks; in requests a second, to
 * 0.1. A bucket no skipped group has keeps its total, so the largest of those is the first such in `order`; the
 * others are summed again without the skipped groups, in the groups' order, as a Map of all buckets once was: the
 * same figure to the last bit. It used to sum every group's every bucket for each what-if, in code not yet
 * optimized: 17-19 ms of a 1 GB scan's tail for its 8 what-ifs (11 groups, 804 buckets, 6,432 bucket counts). */
function peakOf(p: Peaks, skip: boolean[], widthMs: number): number {
  const touched = new Uint8Array(p.total.length);
  let peak = 0;
  // Stryker disable next-line EqualityOperator: skip[skip.length] is undefined, which skips
  for (let g = 0; g < skip.length; g++) {
    // Stryker disable next-line ConditionalExpression: a shortcut; a group not skipped, taken as if it were, sums its buckets again without the skipped ones, to what they hold
    if (!skip[g]) continue;
    const at = p.at[g]!;
    // Stryker disable next-line EqualityOperator: at[at.length] is undefined, a place that touches nothing
    for (let i = 0; i < at.length; i++) {
      const k = at[i]!;
      // Stryker disable next-line ConditionalExpression: a shortcut; a bucket two skipped groups share sums again to the same figure
      if (touched[k] === 1) continue;
      touched[k] = 1;
      let sum = 0;
      for (let c = p.start[k]!; c < p.start[k + 1]!; c++) if (!skip[p.group[c]!]) sum += p.value[c]!;
      // Stryker disable next-line EqualityOperator: an equal value changes nothing
      if (sum > peak) peak = sum;
    }
  }
  // Stryker disable next-line EqualityOperator: order[order.length] is undefined, whose total is undefined, no peak
  for (let i = 0; i < p.order.length; i++) {
    const k = p.order[i]!;
    if (touched[k] === 1) continue;
    // Stryker disable next-line EqualityOperator: an equal value changes nothing
    if (p.total[k]! > peak) peak = p.total[k]!;
    // Stryker disable next-line BlockStatement: a shortcut; the untouched buckets after it have no larger total
    break;
  }
  return Math.round((peak * 1000) / widthMs * 10) / 10;
}

const objectsRead = (g: GroupReport): number | null => (g.objectsReadPerRequest === null ? null : Math.round(g.servedFrom.etcd * g.objectsReadPerRequest));
// over the lists whose figures the logs give (the others are left out of both sides)
const sumKnown = (xs: Array<number | null>): number | null => (xs.every((x) => x === null) ? null : xs.reduce<number>((a, b) => a + (b ?? 0), 0));

/** The what-if of fixing some groups (those whose etcd reads the fix moves to the watch cache), against all
 * reads. What does not depend on the fix (the totals, each group's etcd series at one width, the peak before)
 * is worked out once, for the findings' what-ifs and the report's. */
export function whatIfPlanner(all: Read[]): (fixed: Read[]) => WhatIf {
  let widthMs = 1000;
  for (const { raw } of all) widthMs = Math.max(widthMs, raw.series.widthMs);
  const place = new Map<number, number>(); // bucket → its place
  const raws: ReadGroup[] = [];
  const ats: Int32Array[] = [];
  const values: Float64Array[] = [];
  for (const { raw, report } of all) {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; a group with no etcd reads adds 0 to its buckets, and one with no requests has none
    if (report.servedFrom.etcd === 0 || report.requests === 0) continue;
    const share = report.servedFrom.etcd / report.requests;
    let buckets = raw.series.buckets;
    // Stryker disable next-line ConditionalExpression: a shortcut; a series copied and coarsened to its own width is the same
    if (raw.series.widthMs < widthMs) {
      const s = new TimeSeries(raw.series.widthMs, Number.MAX_SAFE_INTEGER);
      s.merge(raw.series);
      s.coarsen(widthMs);
      buckets = s.buckets;
    }
    const at = new Int32Array(buckets.size);
    const n = new Float64Array(buckets.size);
    let i = 0;
    buckets.forEach((c, b) => {
      let k = place.get(b);
      if (k === undefined) place.set(b, (k = place.size));
      at[i] = k;
      n[i++] = c * share;
    });
    raws.push(raw);
    ats.push(at);
    values.push(n);
  }
  const nb = place.size;
  const total = new Float64Array(nb);
  const start = new Int32Array(nb + 1);
  // Stryker disable next-line EqualityOperator: at[at.length] is undefined, and start[NaN]++ changes nothing
  for (const at of ats) for (let i = 0; i < at.length; i++) start[at[i]! + 1]!++;
  for (let k = 0; k < nb; k++) start[k + 1]! += start[k]!;
  const fill = start.slice(0, nb);
  const group = new Int32Array(start[nb]!);
  const value = new Float64Array(start[nb]!);
  for (let g = 0; g < ats.length; g++) {
    const at = ats[g]!;
    const n = values[g]!;
    for (let i = 0; i < at.length; i++) {
      const k = at[i]!;
      total[k] += n[i]!;
      group[fill[k]!] = g;
      value[fill[k]!++] = n[i]!;
    }
  }
  const order = Int32Array.from({ length: nb }, (_, k) => k).sort((x, y) => total[y]! - total[x]!);
  const peaks: Peaks = { at: ats, total, order, start, group, value };
  const skipOf = (fixed: Read[]): boolean[] => {
    const out = new Set(fixed.map((g) => g.raw));
    return raws.map((r) => out.has(r));
  };
  const etcd = all.reduce((n, g) => n + g.report.servedFrom.etcd, 0);
  const etcdLists = all.filter((g) => g.report.servedFrom.etcd > 0 && g.report.verb === 'list');
  const readAll = sumKnown(etcdLists.map((g) => objectsRead(g.report)));
  const bytesAll = sumKnown(etcdLists.map((g) => g.report.bytesReadTotal));
  // Stryker disable next-line ArrayDeclaration: a list of no group's read leaves no group out
  const before = peakOf(peaks, skipOf([]), widthMs);
  return (fixed) => {
    const fixedEtcd = fixed.reduce((n, g) => n + g.report.servedFrom.etcd, 0);
    const readFixed = sumKnown(fixed.filter((g) => g.report.verb === 'list').map((g) => objectsRead(g.report)));
    const bytesFixed = sumKnown(fixed.filter((g) => g.report.verb === 'list').map((g) => g.report.bytesReadTotal));
    return {
      etcdRequests: { before: etcd, after: etcd - fixedEtcd },
      objectsRead: { before: readAll, after: readAll === null ? null : readAll - (readFixed ?? 0) },
      bytesRead: { before: bytesAll, after: bytesAll === null ? null : bytesAll - (bytesFixed ?? 0) },
      peakEtcdRequestsPerSecond: { before, after: peakOf(peaks, skipOf(fixed), widthMs) },
    };
  };
}

/** The slow etcd reads of the range a group's lists read, when the etcd log has them. */
export function etcdEvidence(g: GroupReport, ranges: EtcdRangeReport[]): Evidence['etcd'] {
  const r = ranges.find((x) => x.internal === null && x.resource === g.resource && (g.namespace === null ? x.scope === 'all' : true));
  return r === undefined ? null : { key: r.key, reads: r.reads, objectsPerRead: r.objectsPerRead, bytesPerRead: r.bytesPerRead, tookMsMax: r.tookMsMax };
}

/** One line a first screen needs per offending client. */
export interface Offender {
  client: string;
  username: string;
  resource: string;
  severity: Finding['severity'];
  what: string;
  fix: string;
}

/** The fix of a finding in one clause: what to change ("…: list with resourceVersion=0 …" keeps what follows
 * the colon), up to the first alternative or sentence end. */
export function shortFix(fix: string): string {
  const colon = fix.indexOf(': ');
  const sentence = fix.indexOf('. ');
  const noSentence = sentence < 0;
  // Stryker disable next-line EqualityOperator: ': ' and '. ' cannot start at one index
  const colonFirst = colon < sentence;
  const action = colon > 0 && (noSentence || colonFirst) ? fix.slice(colon + 2) : fix;
  const cut = action.search(/;\s|, or |\. /);
  const x = (cut > 0 ? action.slice(0, cut) : action).replace(/\.$/, '');
  return x.charAt(0).toUpperCase() + x.slice(1);
}

/** The report's summary: when, how busy, who, and what etcd paid. */
export interface Summary {
  /** the audit activity: the first and last request received (an etcd log's start-up line does not stretch it) */
  window: { start: string | null; end: string | null; seconds: number | null };
  peakRequestsPerSecond: { value: number; at: string } | null;
  offenders: Offender[];
  /** over the lists served from etcd whose figures are known */
  objectsRead: number | null;
  objectsReturned: number | null;
  bytesRead: number | null;
}

export function summaryOf(findings: AnyFinding[], lists: GroupReport[], all: TimeSeries, fmt: { count: (n: number) => string; bytes: (n: number) => string; singular: (r: string) => string }): Summary {
  let lo = Infinity;
  let hi = -Infinity;
  let peak = 0;
  let peakAt = 0;
  for (const [b, n] of all.buckets) {
    // Stryker disable next-line EqualityOperator: a Map's keys are distinct, so b = lo sets what lo is
    if (b < lo) lo = b;
    // Stryker disable next-line EqualityOperator: as above
    if (b > hi) hi = b;
    // Stryker disable next-line EqualityOperator: b = peakAt only for bucket 0 before any peak, where n = peak = 0 sets what is there
    const earlier = b < peakAt;
    if (n > peak || (n === peak && earlier)) {
      peak = n;
      peakAt = b;
    }
  }
  const w = all.widthMs;
  const window = Number.isFinite(lo) ? { start: new Date(lo * w).toISOString(), end: new Date((hi + 1) * w).toISOString(), seconds: ((hi + 1 - lo) * w) / 1000 } : { start: null, end: null, seconds: null };
  const offenders: Offender[] = [];
  for (const f of findings) {
    if (!('client' in f) || f.client === undefined || f.kind === 'etcd-slow-ranges') continue;
    const g = lists.find((x) => x.userAgent === f.userAgent && x.username === f.username && (x.apiGroup ? `${x.resource}.${x.apiGroup}` : x.resource) === f.resource);
    const verb = f.kind === 'get-from-etcd' ? 'gets' : 'lists';
    const [res, ...grp] = (f.resource ?? '').split('.');
    let what = `${fmt.count(f.etcdRequests ?? 0)} ${[fmt.singular(res!), ...grp].join('.')} ${verb} from etcd`;
    if (g !== undefined && g.objectsReadPerRequest !== null && g.objectsReturnedPerRequest !== null && g.amplification !== null) {
      what += `, ${fmt.count(g.objectsReadPerRequest)} read / ${g.estimated ? '~' : ''}${fmt.count(g.objectsReturnedPerRequest)} returned (${g.amplification}×)`;
    }
    if (f.bytesReadTotal !== undefined && f.bytesReadTotal !== null) what += `, ${fmt.bytes(f.bytesReadTotal)}`;
    offenders.push({ client: f.client, username: f.username ?? '', resource: f.resource ?? '', severity: f.severity, what, fix: shortFix(f.fix) });
  }
  const known = lists.filter((g) => g.servedFrom.etcd > 0 && g.objectsReadPerRequest !== null);
  const sumOf = (k: (g: GroupReport) => number | null): number | null => (known.length === 0 ? null : known.reduce((s, g) => s + (k(g) ?? 0), 0));
  return {
    window,
    peakRequestsPerSecond: peak > 0 ? { value: Math.round((peak * 1000) / w * 10) / 10, at: new Date(peakAt * w).toISOString() } : null,
    offenders,
    objectsRead: sumOf((g) => g.servedFrom.etcd * g.objectsReadPerRequest!),
    objectsReturned: known.some((g) => g.objectsReturnedPerRequest === null) ? null : sumOf((g) => g.servedFrom.etcd * g.objectsReturnedPerRequest!),
    bytesRead: known.some((g) => g.bytesReadTotal === null) ? null : sumOf((g) => g.bytesReadTotal),
  };
}

/** One event of the incident, in time order. */
export interface IncidentEvent {
  start: string;
  end: string;
  kind: string;
  what: string;
}

/** Restarts, gaps, storms and token waves, in time order. */
export function incidentOf(findings: AnyFinding[], count: (n: number) => string): IncidentEvent[] {
  const out: IncidentEvent[] = [];
  for (const f of findings) {
    if (f.kind === 'apiserver-restart' || f.kind === 'audit-gap') {
      const r = f as RestartFinding;
      if (r.kind === 'audit-gap' && r.gaps !== undefined) {
        for (const g of r.gaps) out.push({ start: g.start, end: g.end, kind: r.kind, what: `no audit events in ${r.input} for ${humanSeconds(g.seconds)}` });
        continue;
      }
      out.push({ start: r.start, end: r.end, kind: r.kind, what: r.kind === 'apiserver-restart' ? (r.certainty === 'inferred from gap' ? `apiserver restart inferred from a gap in ${r.input} (its peers went on, its share stayed low after)` : `apiserver restart seen in ${r.input} (${r.signs.join(', ')})`) : `no audit events in ${r.input} for ${humanSeconds(r.gapSeconds)}` });
    } else if (f.kind === 'list-storm') {
      const st = f as StormFinding;
      out.push({ start: st.start, end: st.end, kind: st.kind, what: `${count(st.requests)} ${st.resource} lists, peak ${st.peakPerSecond}/s, ${servingWords(mixOfShares(st), true)}` });
    } else if (f.kind === 'apiserver-imbalance') {
      const im = f as ImbalanceFinding;
      out.push({ start: im.start, end: im.end, kind: im.kind, what: `${im.apiserver} served ${Math.round(im.shareAfter * 100)}% of the requests after its restart (even share ${Math.round(im.evenShare * 100)}%)` });
    } else if (f.kind === 'token-refresh-storm') {
      const tk = f as TokenFinding;
      tk.waves.forEach((wv, i) => out.push({ start: wv.start, end: wv.end, kind: 'token-wave', what: `TokenRequest wave ${i + 1} of ${tk.waves.length}: ${count(wv.requests)} request${wv.requests === 1 ? '' : 's'}, peak ${wv.peakPerSecond}/s` }));
      if (tk.nextWaveAt !== null) out.push({ start: tk.nextWaveAt, end: tk.nextWaveAt, kind: 'token-wave-expected', what: 'next TokenRequest wave expected' });
    }
  }
  return out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.kind < b.kind ? -1 : 1));
}

/** How the figures were obtained. */
export interface Method {
  measured: string[];
  estimated: string[];
  kubernetes: string;
  /** where etcd's zap logger may have dropped lines (it samples: 100 lines of a message a second, then 1 in 100), so
   * the slow etcd reads counted there are a lower bound; absent when nowhere */
  etcdSampled?: Array<{ from: string; to: string; message: string; lines: number }>;
  /** how inputs map to apiservers, or why the logs cannot say which apiserver served a request; absent with no
   * audit event */
  apiservers?: string;
  /** what the audit policy of the logs leaves out that the analysis needs, and the command that prints one that
   * keeps it; absent when nothing is missing (or filters chose the requests) */
  auditPolicy?: string;
}

/** The reads an audit log's policy dropped (none of a verb at all, and no filter chose the verbs), said once. */
export function auditPolicyNote(byVerb: ReadonlyMap<string, number>, auditEvents: number, filtered: boolean, noResponses = false): string | null {
  if (auditEvents === 0 || filtered) return null;
  const none = ['list', 'watch', 'get'].filter((v) => (byVerb.get(v) ?? 0) === 0);
  // a policy of only the RequestReceived stage (omitStages of every other): no request says how it was answered
  const stage = noResponses ? "The logs' reads hold no response (only the RequestReceived stage): no status codes or latencies, so refused and slow requests go unseen. audit-scan policy LOGS prints a policy that keeps the stages after it" : null;
  if (none.length === 0) return stage;
  const plural: Record<string, string> = { list: 'lists', watch: 'watches', get: 'gets' };
  const shows: Record<string, string> = { list: 'list storms and the etcd reads of lists', watch: 'the watches that end at a restart and watch-lists', get: 'gets without resourceVersion' };
  const verbs = `The logs hold no ${none.map((v) => plural[v]).join(' or ')}: if their audit policy drops them, these go unseen: ${none.map((v) => shows[v]).join('; ')}. audit-scan policy LOGS prints a policy that keeps them at Metadata`;
  return stage === null ? verbs : `${verbs}. ${stage}`;
}

export function methodOf(lists: GroupReport[], kube: { version: string; reason: string }): Method {
  const measured = new Set<string>();
  const estimated = new Set<string>();
  for (const g of lists) {
    const f = g.figureSources;
    if (f.objectsRead === 'etcd-log') measured.add('objects read per list: the etcd log (range_response_count of the same key range)');
    if (f.objectsRead === 'audit-full-list') measured.add('objects read per list: a full list of the resource at RequestResponse level');
    if (f.objectsRead === 'given') estimated.add('objects read per list: --objects');
    if (f.objectsRead === 'metrics') measured.add("objects read per list: the apiserver's /metrics (apiserver_resource_objects or apiserver_storage_objects: the objects under the prefix a full list reads)");
    if (f.bytesRead === 'metrics') measured.add("bytes read per list: the apiserver's /metrics (apiserver_resource_size_estimate_bytes)");
    if (f.objectsReturned === 'audit-response') measured.add('objects returned per list: the responses, at RequestResponse level');
    if (f.objectsReturned === 'estimate-objects-per-node') estimated.add('objects returned per list (~): objects read ÷ nodes seen, for per-node selectors');
    if (f.objectsReturned === 'unfiltered-list') measured.add('objects returned per list: all of them (no selector)');
    if (f.bytesRead === 'etcd-log') measured.add('bytes read per list: the etcd log (size of the same key range)');
    if (f.bytesRead === 'estimate-bytes-per-object') estimated.add('bytes read per list: objects × the bytes per object of any read of the resource');
  }
  measured.add('requests, verbs, clients and times: the audit log (one request per auditID, however many stages)');
  return { measured: [...measured].sort(), estimated: [...estimated].sort(), kubernetes: `verdicts follow kube-apiserver ${kube.version} (${kube.reason})` };
}
