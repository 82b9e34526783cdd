/*! Groups of reads (list, get, watch) by client, resource, scope and selector shape. Push-model and mergeable:
 * memory grows with the number of groups, never with the number of events. Verdicts (cache or etcd) are taken
 * at the end from per-group query signatures, because the Kubernetes version is only known then. */

import { isTerminalStage, type AuditEvent } from '../model/audit-event.js';
import type { ListQuery } from '../decode/request-uri.js';
import type { SelectorInfo } from '../model/selector.js';
import type { Slot } from '../decode/engine/engine.js';
import { TimeSeries, reviveSeries } from './time-series.js';
import { minLevel } from './log-evidence.js';
import { latencyAdd, latencyMerge, newLatency, type LatencySketch } from './latency.js';

/** Most namespaces (or nodes) a group remembers by name; past that only the count of the overflow grows. */
export const MAX_SET_PER_GROUP = 100_000;

/** Accumulated reads of one group. */
export interface ReadGroup {
  key: string;
  /** 'list' for lists and watch-lists alike (a watch with sendInitialEvents=true is how client-go ≥ 0.35 lists) */
  verb: string;
  /** requests that were watch-lists (counted in `requests`, verb 'list') */
  watchLists: number;
  /** query signature → requests answered 429: rejected before storage, so neither a cache nor an etcd read */
  rejected: Map<string, number>;
  /** of those, rejected by a watch cache that was (re)initialising (1.31+) */
  initRejected: number;
  /** per-input series of the requests the restart rules look at, by `markKey()`: 429s, and the answered pages
   * and limited lists whose serving depends on the cache being ready; empty for most groups */
  marks: Map<string, TimeSeries>;
  userAgent: string;
  username: string; // with per-node values replaced: system:node:<node>
  apiGroup: string;
  resource: string;
  scope: 'cluster' | 'namespaced';
  selector: string;
  singleName: boolean;
  singleNamespace: boolean;
  requests: number;
  /** query signature → count; see signatureOf() */
  signatures: Map<string, number>;
  nodes: Set<string>;
  namespaces: Set<string>;
  setOverflow: number;
  firstMs: number | null;
  lastMs: number | null;
  returnedSum: number;
  returnedN: number;
  returnedMax: number;
  /** responseStatus.code class → count ("2xx", "429", "4xx", "5xx", "none") */
  codes: Map<string, number>;
  /** requests over time (requestReceivedTimestamp) */
  series: TimeSeries;
  /** stageTimestamp − requestReceivedTimestamp of the final stage */
  latency: LatencySketch;
  /** the apiserver.latency.k8s.io/etcd and /apf-queue-wait annotations, where the events carry them */
  etcdLatency: LatencySketch;
  apfWait: LatencySketch;
  /** one request of the group, for evidence: the earliest received (ties: the smallest URI), whatever the
   * thread count */
  sampleUri: string;
  sampleMs: number;
  /** the APF flow schema httplog named for the group's requests (part of its key); absent for audit groups */
  flowSchema?: string;
  /** what the apiserver's own log said of the group's requests, when it is where they were read from (absent for
   * a group read from audit alone) */
  fromLog?: LogEvidence;
}

/** A group's requests as the apiserver's own log showed them: by line kind, the APF flow schema and priority
 * level httplog names, the clients' addresses, and how many a trace showed reading etcd. */
export interface LogEvidence {
  httplog: number;
  trace: number;
  timeout: number;
  /** httplog requests whose trace was read too (slow ones) */
  traced: number;
  /** requests whose trace shows the storage read etcd */
  observedEtcd: number;
  /** the APF priority level httplog names for the group's flow schema */
  priorityLevel: string;
  /** distinct client addresses (capped at MAX_SET_PER_GROUP) */
  sourceIPs: Set<string>;
}

function newLogEvidence(priorityLevel: string): LogEvidence {
  return { httplog: 0, trace: 0, timeout: 0, traced: 0, observedEtcd: 0, priorityLevel, sourceIPs: new Set() };
}

/** Adds `b` into `a`. */
function mergeLogEvidence(a: LogEvidence, b: LogEvidence): void {
  a.httplog += b.httplog;
  a.trace += b.trace;
  a.timeout += b.timeout;
  a.traced += b.traced;
  a.observedEtcd += b.observedEtcd;
  a.priorityLevel = minLevel(a.priorityLevel, b.priorityLevel);
  for (const ip of b.sourceIPs) if (a.sourceIPs.size < MAX_SET_PER_GROUP) a.sourceIPs.add(ip);
}

/** Most time buckets one group keeps before its series coarsens. */
const GROUP_SERIES_BUCKETS = 4096;
/** Most time buckets all groups keep together (about 50 bytes each); past it every series coarsens. */
export const ALL_GROUP_SERIES_BUCKETS = 2_000_000;
/** How often (in added requests) the shared budget is checked. */
const BUDGET_CHECK_EVERY = 65_536;

/** The marks a group keeps per input (markKey): every 429; a 429 from a (re)initialising watch cache; an answered
 * continue page; an answered list with a limit (the two whose serving a restart changes, time-analysis.ts). */
export type MarkKind = '429' | 'init' | 'cont' | 'lim';

/** The key of a group's mark series: kind, query signature and input index. */
export function markKey(kind: MarkKind, sig: string, input: number): string {
  return `${kind}\u0000${sig}\u0000${input}`;
}

/** The parts of a markKey(). */
export function parseMarkKey(k: string): { kind: MarkKind; sig: string; input: number } {
  const [kind, sig, input] = k.split('\u0000');
  return { kind: kind as MarkKind, sig: sig!, input: Number(input) };
}

/** A watch with sendInitialEvents=true: the streaming list (KEP-3157) that client-go ≥ 0.35 sends instead of a
 * list. One refused as invalid (400/422: the server's WatchList gate is off, as in 1.33) read nothing; the
 * client then falls back to a plain list, which is counted as such. */
export function isWatchList(verb: string, q: ListQuery, code: number | null): boolean {
  return verb === 'watch' && q.sendInitialEvents && code !== 400 && code !== 422;
}

/** The signature of a read whose query string the log did not keep (GKE Cloud Logging): its verdict is unknown. */
// Stryker disable next-line StringLiteral: any string no query makes would do ("" is none: every signature has four '|')
export const UNKNOWN_SIGNATURE = '?';
/** The reason given for those reads. */
export const UNKNOWN_QUERY_REASON = 'query string not in the log (GKE Cloud Logging drops it): resourceVersion, limit and selectors unknown';

/** A compact key for the query fields that decide where a read is served: rvClass, rvm, limit?, continue?, sendInitialEvents?. */
export function signatureOf(q: ListQuery): string {
  const rv = q.resourceVersion ?? '';
  const rvClass = rv === '' ? 0 : rv === '0' ? 1 : 2;
  const rvm = q.resourceVersionMatch;
  // Stryker disable next-line ConditionalExpression,StringLiteral: the table is a speed-up; a match it misses is built as the same string
  const m = rvm === null || rvm === '' ? 0 : rvm === 'NotOlderThan' ? 1 : rvm === 'Exact' ? 2 : -1;
  const flags = (q.limit > 0 ? 4 : 0) + (q.continueToken ? 2 : 0) + (q.sendInitialEvents ? 1 : 0);
  // The common signatures come from a table of built strings (no concatenation or fresh hash per request).
  if (m >= 0) return SIGNATURES[(rvClass * 3 + m) * 8 + flags]!;
  return buildSignature(RV_CLASSES[rvClass]!, rvm!, flags);
}

const RV_CLASSES = ['', '0', 'N'];
function buildSignature(rvClass: string, rvm: string, flags: number): string {
  return `${rvClass}|${rvm}|${flags & 4 ? 1 : 0}|${flags & 2 ? 1 : 0}|${flags & 1 ? 1 : 0}`;
}
const SIGNATURES: string[] = [];
for (let c = 0; c < 3; c++) for (const rvm of ['', 'NotOlderThan', 'Exact']) for (let f = 0; f < 8; f++) SIGNATURES.push(buildSignature(RV_CLASSES[c]!, rvm, f));

/** Inverse of signatureOf(): a ListQuery that classifies the same way. */
export function querySignature(sig: string): ListQuery {
  const [rvClass, rvm, limit, cont, sie] = sig.split('|');
  return {
    fieldSelector: null,
    labelSelector: null,
    resourceVersion: rvClass === '' ? null : rvClass === '0' ? '0' : '1',
    resourceVersionMatch: rvm === '' ? null : rvm!,
    limit: limit === '1' ? 500 : 0,
    continueToken: cont === '1',
    watch: false,
    sendInitialEvents: sie === '1',
  };
}

function codeClass(code: number | null): string {
  if (code === null) return 'none';
  if (code === 429) return '429';
  if (code >= 200 && code < 300) return '2xx';
  if (code >= 400 && code < 500) return '4xx';
  if (code >= 500) return '5xx';
  return String(code);
}

/** Username with per-node identity removed, so every kubelet is one user. */
export function userPattern(username: string): string {
  return username.startsWith('system:node:') ? 'system:node:<node>' : username;
}

/** Most groups kept (per thread) before the smallest are folded into one "other" row. */
export const DEFAULT_MAX_GROUPS = 50_000;

/** What was folded away when the group cap was hit. */
export interface GroupOverflow {
  /** groups folded into "other" */
  groups: number;
  /** their requests, by verb */
  requests: Map<string, number>;
  /** the largest request count of a folded group: any kept group's count may be short by at most this much */
  maxFolded: number;
}

/** The read groups of a scan. Bounded: past `maxGroups` the smaller half is folded into `overflow`
 * (batch space-saving), so a log with a million random user agents or selectors cannot grow memory. */
export class ReadGroups {
  readonly groups = new Map<string, ReadGroup>();
  readonly overflow: GroupOverflow = { groups: 0, requests: new Map(), maxFolded: 0 };

  private seriesWidthMs: number;
  private addsSinceCheck = 0;

  constructor(
    private readonly maxGroups = DEFAULT_MAX_GROUPS,
    bucketMs = 1000,
    private readonly seriesBudget = ALL_GROUP_SERIES_BUCKETS,
  ) {
    this.seriesWidthMs = bucketMs;
  }

  /** Keeps the groups' time series within the shared budget by coarsening all of them together. */
  checkSeriesBudget(): void {
    let total = 0;
    for (const g of this.groups.values()) {
      total += g.series.buckets.size;
      for (const m of g.marks.values()) total += m.buckets.size;
    }
    while (total > this.seriesBudget) {
      this.seriesWidthMs *= 2;
      total = 0;
      for (const g of this.groups.values()) {
        g.series.coarsen(this.seriesWidthMs);
        total += g.series.buckets.size;
        for (const m of g.marks.values()) {
          m.coarsen(this.seriesWidthMs);
          total += m.buckets.size;
        }
      }
    }
  }

  /** Folds the smaller half of the groups into `overflow`. O(n log n) once per maxGroups/2 new groups. */
  private prune(): void {
    const sorted = [...this.groups.values()].sort((a, b) => a.requests - b.requests || (a.key < b.key ? -1 : 1));
    const drop = sorted.slice(0, Math.floor(sorted.length / 2));
    for (const g of drop) {
      this.groups.delete(g.key);
      this.overflow.groups++;
      this.overflow.requests.set(g.verb, (this.overflow.requests.get(g.verb) ?? 0) + g.requests);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the groups fold smallest first, so the last is the largest
      if (g.requests > this.overflow.maxFolded) this.overflow.maxFolded = g.requests;
    }
  }

  /** The group of a read (`verb` is the group's: a watch-list's is 'list'), created when new. */
  private groupFor(verb: string, userAgent: string, username: string, resource: string, apiGroup: string, namespace: string, sel: SelectorInfo, sampleUri: string, sampleMs: number, flowSchema = ''): ReadGroup {
    const user = userPattern(username);
    const scope = namespace.length > 0 ? 'namespaced' : 'cluster';
    // The apiserver's log names no user: its groups are told apart by the APF flow schema httplog names (which
    // follows the user: system-nodes, service-accounts, …), not by source address, which would make a DaemonSet
    // one group a pod.
    const key = `${verb}\u0000${userAgent}\u0000${user}\u0000${apiGroup}\u0000${resource}\u0000${scope}\u0000${sel.shape}${flowSchema.length > 0 ? `\u0000fs=${flowSchema}` : ''}`;
    let g = this.groups.get(key);
    if (g === undefined) {
      g = {
        key,
        verb,
        watchLists: 0,
        rejected: new Map(),
        initRejected: 0,
        marks: new Map(),
        userAgent,
        username: user,
        apiGroup,
        resource,
        scope,
        selector: sel.shape,
        singleName: sel.singleName !== null,
        singleNamespace: sel.singleNamespace !== null,
        requests: 0,
        signatures: new Map(),
        nodes: new Set(),
        namespaces: new Set(),
        setOverflow: 0,
        firstMs: null,
        lastMs: null,
        returnedSum: 0,
        returnedN: 0,
        returnedMax: 0,
        codes: new Map(),
        series: new TimeSeries(this.seriesWidthMs, GROUP_SERIES_BUCKETS),
        latency: newLatency(),
        etcdLatency: newLatency(),
        apfWait: newLatency(),
        sampleUri,
        sampleMs,
        ...(flowSchema.length > 0 ? { flowSchema } : {}),
      };
      if (this.groups.size >= this.maxGroups) this.prune();
      this.groups.set(key, g);
    }
    return g;
  }

  /** Adds one counted request. `node` is the node it speaks for, if known. */
  add(e: AuditEvent, resource: string, apiGroup: string, namespace: string, q: ListQuery, sel: SelectorInfo, node: string | null, input = -1): void {
    const watchList = isWatchList(e.verb, q, e.code);
    const verb = watchList ? 'list' : e.verb;
    // Stryker disable next-line LogicalOperator: the same event is compared just below, which sets the sample
    const g = this.groupFor(verb, e.userAgent, e.username, resource, apiGroup, namespace, sel, e.requestURI, e.receivedMs ?? Infinity, e.apfFlowSchema);
    g.requests++;
    if (e.evidence !== undefined) {
      const l = (g.fromLog ??= newLogEvidence(''));
      l.priorityLevel = minLevel(l.priorityLevel, e.apfPriorityLevel ?? '');
      l[e.evidence]++;
      if (e.traced === true && e.evidence === 'httplog') l.traced++;
      if (e.observedEtcd === true) l.observedEtcd++;
      if (e.srcIP !== undefined && l.sourceIPs.size < MAX_SET_PER_GROUP) l.sourceIPs.add(e.srcIP);
    }
    const sig = e.queryKnown === false ? UNKNOWN_SIGNATURE : signatureOf(q);
    g.signatures.set(sig, (g.signatures.get(sig) ?? 0) + 1);
    if (watchList) g.watchLists++;
    const t0 = e.receivedMs;
    if (e.code === 429) {
      g.rejected.set(sig, (g.rejected.get(sig) ?? 0) + 1);
      if (e.cacheInitializing === true) g.initRejected++;
      if (t0 !== null) {
        this.mark(g, '429', sig, input, t0);
        if (e.cacheInitializing === true) this.mark(g, 'init', sig, input, t0);
      }
    } else if (t0 !== null) {
      const m = answeredMark(verb, e.code, q, sel);
      if (m !== null) this.mark(g, m, sig, input, t0);
    }
    if (node !== null) addCapped(g, g.nodes, node);
    if (namespace.length > 0) addCapped(g, g.namespaces, namespace);
    const t = e.receivedMs;
    if (t !== null) {
      this.seriesAdd(g, t, 1);
      if (g.firstMs === null || t < g.firstMs) g.firstMs = t;
      if (g.lastMs === null || t > g.lastMs) g.lastMs = t;
    }
    if (e.returnedItems !== null) {
      g.returnedSum += e.returnedItems;
      g.returnedN++;
      if (e.returnedItems > g.returnedMax) g.returnedMax = e.returnedItems;
    }
    const cc = codeClass(e.code);
    g.codes.set(cc, (g.codes.get(cc) ?? 0) + 1);
    // only a final stage's time says how long the request took (a request seen only as RequestReceived would count 0)
    // (a trace held open until the scan's end, -v<3, knows its whole time: its total)
    if (e.stageMs !== null && e.receivedMs !== null && (isTerminalStage(e.stage) || e.evidence !== undefined)) latencyAdd(g.latency, e.stageMs - e.receivedMs);
    const at = e.receivedMs ?? Infinity;
    if (at < g.sampleMs || (at === g.sampleMs && e.requestURI < g.sampleUri)) {
      g.sampleMs = at;
      g.sampleUri = e.requestURI;
    }
    if (e.etcdLatencyMs !== null) latencyAdd(g.etcdLatency, e.etcdLatencyMs);
    if (e.apfQueueWaitMs !== null) latencyAdd(g.apfWait, e.apfQueueWaitMs);
  }

  /** Adds the requests of one slot of the compiled aggregator (decode/engine/engine.ts Slot): final-stage reads
   * with both times, answered (no 429), none with etcd or APF annotations: what add() counts for each of them, at
   * once. Returns the group and, when its requests are marked, the mark series; the caller adds the slot's
   * per-bucket counts with seriesAdd() and the mark, and its latency buckets with latencyAddBucket(). */
  addSlot(s: Slot, resource: string, apiGroup: string, namespace: string, q: ListQuery, sel: SelectorInfo, node: string | null, input: number): { group: ReadGroup; mark: TimeSeries | null } {
    const watchList = isWatchList(s.verb, q, s.code);
    const verb = watchList ? 'list' : s.verb;
    const g = this.groupFor(verb, s.userAgent, s.username, resource, apiGroup, namespace, sel, s.sampleUri, s.sampleMs, s.flowSchema);
    const n = s.requests;
    g.requests += n;
    if (s.log) {
      // add()'s evidence of the apiserver log's httplog lines
      const l = (g.fromLog ??= newLogEvidence(''));
      l.priorityLevel = minLevel(l.priorityLevel, s.priorityLevel);
      l.httplog += n;
    }
    const sig = signatureOf(q);
    g.signatures.set(sig, (g.signatures.get(sig) ?? 0) + n);
    if (watchList) g.watchLists += n;
    const m = answeredMark(verb, s.code, q, sel);
    if (node !== null) addCapped(g, g.nodes, node);
    if (namespace.length > 0) addCapped(g, g.namespaces, namespace);
    if (g.firstMs === null || s.firstMs < g.firstMs) g.firstMs = s.firstMs;
    if (g.lastMs === null || s.lastMs > g.lastMs) g.lastMs = s.lastMs;
    if (s.returnedN > 0) {
      g.returnedSum += s.returnedSum;
      g.returnedN += s.returnedN;
      if (s.returnedMax > g.returnedMax) g.returnedMax = s.returnedMax;
    }
    const cc = codeClass(s.code);
    g.codes.set(cc, (g.codes.get(cc) ?? 0) + n);
    if (s.latencyN > 0) {
      g.latency.n += s.latencyN;
      if (s.latencyMin < g.latency.min) g.latency.min = s.latencyMin;
      if (s.latencyMax > g.latency.max) g.latency.max = s.latencyMax;
    }
    if (s.sampleMs < g.sampleMs || (s.sampleMs === g.sampleMs && s.sampleUri < g.sampleUri)) {
      g.sampleMs = s.sampleMs;
      g.sampleUri = s.sampleUri;
    }
    return { group: g, mark: m === null ? null : this.markSeries(g, m, sig, input) };
  }

  /** Adds `n` requests at `t` to a group's series (the shared budget is checked every BUDGET_CHECK_EVERY). */
  seriesAdd(g: ReadGroup, t: number, n: number): void {
    g.series.add(t, n);
    this.addsSinceCheck += n;
    if (this.addsSinceCheck >= BUDGET_CHECK_EVERY) {
      this.addsSinceCheck = 0;
      this.checkSeriesBudget();
    }
  }

  private mark(g: ReadGroup, kind: MarkKind, sig: string, input: number, t: number): void {
    this.markSeries(g, kind, sig, input).add(t);
  }

  private markSeries(g: ReadGroup, kind: MarkKind, sig: string, input: number): TimeSeries {
    // A memo by kind, signature and input finds the series without building its key for each request (most
    // informer lists are marked); a series, once in g.marks, stays the same object (merge and coarsen work in place).
    let byKind = this.markMemo.get(g);
    if (byKind === undefined) this.markMemo.set(g, (byKind = new Map()));
    let bySig = byKind.get(kind);
    if (bySig === undefined) byKind.set(kind, (bySig = new Map()));
    let byInput = bySig.get(sig);
    if (byInput === undefined) bySig.set(sig, (byInput = new Map()));
    let s = byInput.get(input);
    if (s === undefined) {
      const k = markKey(kind, sig, input);
      s = g.marks.get(k);
      if (s === undefined) {
        s = new TimeSeries(this.seriesWidthMs, GROUP_SERIES_BUCKETS);
        g.marks.set(k, s);
      }
      byInput.set(input, s);
    }
    return s;
  }
  private readonly markMemo = new WeakMap<ReadGroup, Map<MarkKind, Map<string, Map<number, TimeSeries>>>>();

  /** Folds another ReadGroups (another worker's share of the input) into this one. */
  merge(other: Map<string, ReadGroup>, overflow?: GroupOverflow): void {
    if (overflow !== undefined) {
      this.overflow.groups += overflow.groups;
      for (const [v, n] of overflow.requests) this.overflow.requests.set(v, (this.overflow.requests.get(v) ?? 0) + n);
      this.overflow.maxFolded = Math.max(this.overflow.maxFolded, overflow.maxFolded);
    }
    for (const [key, o] of other) {
      const g = this.groups.get(key);
      if (g === undefined) {
        const marks = new Map<string, TimeSeries>();
        for (const [k, m] of o.marks) marks.set(k, reviveSeries(m, GROUP_SERIES_BUCKETS));
        this.groups.set(key, { ...o, series: reviveSeries(o.series, GROUP_SERIES_BUCKETS), marks, rejected: new Map(o.rejected), ...(o.fromLog !== undefined ? { fromLog: { ...o.fromLog, sourceIPs: new Set(o.fromLog.sourceIPs) } } : {}) });
        continue;
      }
      if (o.fromLog !== undefined) {
        if (g.fromLog === undefined) g.fromLog = { ...o.fromLog, sourceIPs: new Set(o.fromLog.sourceIPs) };
        else mergeLogEvidence(g.fromLog, o.fromLog);
      }
      g.series.merge(o.series);
      g.requests += o.requests;
      g.watchLists += o.watchLists;
      g.initRejected += o.initRejected;
      for (const [s, n] of o.rejected) g.rejected.set(s, (g.rejected.get(s) ?? 0) + n);
      for (const [k, m] of o.marks) {
        const mine = g.marks.get(k);
        if (mine === undefined) g.marks.set(k, reviveSeries(m, GROUP_SERIES_BUCKETS));
        else mine.merge(m);
      }
      for (const [s, n] of o.signatures) g.signatures.set(s, (g.signatures.get(s) ?? 0) + n);
      for (const n of o.nodes) addCapped(g, g.nodes, n);
      for (const n of o.namespaces) addCapped(g, g.namespaces, n);
      g.setOverflow += o.setOverflow;
      if (o.firstMs !== null && (g.firstMs === null || o.firstMs < g.firstMs)) g.firstMs = o.firstMs;
      if (o.lastMs !== null && (g.lastMs === null || o.lastMs > g.lastMs)) g.lastMs = o.lastMs;
      g.returnedSum += o.returnedSum;
      g.returnedN += o.returnedN;
      g.returnedMax = Math.max(g.returnedMax, o.returnedMax);
      for (const [c, n] of o.codes) g.codes.set(c, (g.codes.get(c) ?? 0) + n);
      latencyMerge(g.latency, o.latency);
      latencyMerge(g.etcdLatency, o.etcdLatency);
      latencyMerge(g.apfWait, o.apfWait);
      if (o.sampleMs < g.sampleMs || (o.sampleMs === g.sampleMs && o.sampleUri < g.sampleUri)) {
        g.sampleMs = o.sampleMs;
        g.sampleUri = o.sampleUri;
      }
    }
    while (this.groups.size > this.maxGroups) this.prune();
    this.checkSeriesBudget();
  }
}

/** The mark an answered request of a group gets (not a 429): a continue page, or a limited list without a
 * selector (the two whose serving a restart changes); null for the others. */
function answeredMark(verb: string, code: number | null, q: ListQuery, sel: SelectorInfo): MarkKind | null {
  if (verb !== 'list' || (code !== null && code >= 400)) return null;
  if (q.continueToken) return 'cont';
  // while the cache initialises, only lists with a limit and no selector go to etcd (1.31+, DOMAIN.md §1.3)
  if (q.limit > 0 && sel.shape === '') return 'lim';
  return null;
}

function addCapped(g: ReadGroup, set: Set<string>, v: string): void {
  if (set.has(v)) return;
  if (set.size >= MAX_SET_PER_GROUP) {
    g.setOverflow++;
    return;
  }
  set.add(v);
}
