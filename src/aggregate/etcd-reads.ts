/*! Slow etcd reads: merges the lines that describe one read ("apply request took too long", its
 * "trace[N] range" and its "request stats"), tells the apiserver's own reads from clients', and aggregates
 * them per resource range and minute. Bounded: held lines ≤ MERGE_WINDOW, aggregates grow with ranges × minutes. */

import { builtinKeyPrefix, describeEtcdKey, prefixRangeEnd, type EtcdKeyRange } from '../model/etcd-key.js';
import type { EtcdEntry, EtcdRangeEntry } from '../decode/etcd-line.js';

/** Lines of one read are logged within a few ms of each other; 50 ms leaves room for slow loggers. */
const PAIR_WINDOW_MS = 50;
const MERGE_WINDOW = 256;

/** One read, after its lines were merged. */
export interface EtcdRead {
  tsMs: number | null;
  tookMs: number | null;
  key: string;
  rangeEnd: string | null;
  limit: number;
  objects: number | null;
  totalKeys: number | null;
  bytes: number | null;
  error: string | null;
  internal: string | null; // why it is the apiserver's own read, or null for a client read
  range: EtcdKeyRange;
  vias: Set<EtcdRangeEntry['via']>;
}

/** A segment's edges, joined across the boundary by joinSegments(): the lines before the segment's first
 * quiet gap (which may pair with the previous segment's last reads) and the reads still held at its end. */
export interface EtcdSegmentEdges {
  head: EtcdRangeEntry[];
  tail: EtcdRead[];
}

/** Most head lines kept raw; a log with no quiet gap for this long is merged as it comes. */
const MAX_HEAD_LINES = 10_000;

/** true when two partial reads are lines of the same read (see PAIR_WINDOW_MS). */
function sameRead(r: Pick<EtcdRead, 'vias' | 'key' | 'rangeEnd' | 'tsMs' | 'objects' | 'limit'>, vias: Iterable<EtcdRangeEntry['via']>, e: Pick<EtcdRead, 'key' | 'rangeEnd' | 'tsMs' | 'objects' | 'limit'>): boolean {
  let eKnowsLimit = false;
  for (const v of vias) {
    if (r.vias.has(v) || v === 'capnslog') return false;
    if (v !== 'trace') eKnowsLimit = true;
  }
  if (r.vias.has('capnslog') || r.key !== e.key || r.rangeEnd !== e.rangeEnd) return false;
  // apply and request-stats lines carry the request, limit included; a trace line does not. Two lines that name
  // different limits are two reads (a full list and another client's page of the same range, in one storm).
  if (eKnowsLimit && (r.vias.has('apply') || r.vias.has('stats')) && r.limit !== e.limit) return false;
  if (r.tsMs !== null && e.tsMs !== null && Math.abs(r.tsMs - e.tsMs) > PAIR_WINDOW_MS) return false;
  if (r.objects !== null && e.objects !== null && r.objects !== e.objects) return false;
  return true;
}

/** Folds the fields of `b` (another line, or another partial read) into `r`. */
function absorb(r: EtcdRead, b: Pick<EtcdRead, 'objects' | 'totalKeys' | 'bytes' | 'error' | 'limit' | 'tookMs'>, vias: Iterable<EtcdRangeEntry['via']>): void {
  for (const v of vias) r.vias.add(v);
  r.objects ??= b.objects;
  r.totalKeys ??= b.totalKeys;
  r.bytes ??= b.bytes;
  r.error ??= b.error;
  if (b.limit > 0) r.limit = b.limit;
  if (r.tookMs === null || (b.tookMs !== null && b.tookMs > r.tookMs)) r.tookMs = b.tookMs;
}

/** Why a read is the apiserver's own (DOMAIN.md §1.8, §4), or null. `etcdPrefix` null: inferred per key. */
export function internalReason(e: Pick<EtcdRangeEntry, 'key' | 'rangeEnd' | 'countOnly' | 'limit'> & { keysOnly?: boolean }, range: EtcdKeyRange, etcdPrefix: string | null): string | null {
  if (e.countOnly) return 'count_only (object-count polling)';
  // 1.34+ counts a resource's objects from its keys when the watch cache cannot (etcd3 store getKeys: a keys_only
  // range of "<prefix>/<resource>/", apiserver@v0.34.0 pkg/storage/etcd3/store.go). No list is served from it: as a
  // client read it made a full list of every key and its bytes a fraction of one (found against a real etcd).
  if (e.keysOnly === true) return 'keys_only (object-count stats, 1.34+)';
  if (e.limit === 1) return 'limit:1 (current-revision fetch)';
  const pfx = range.prefix ?? etcdPrefix;
  if (pfx !== null ? e.key === `${pfx}/health` : /^\/[^/]+\/health$/.test(e.key)) return 'health check';
  if (e.key === 'compact_rev_key') return 'compaction';
  if (range.resource === 'masterleases') return 'endpoint reconciler';
  // Before v0.27 the storage's Count read "<prefix>/<resource>" without the trailing slash (to "…t" for
  // "…s"); no client list does that, as the apiserver lists "<prefix>/<resource>/". Its trace lines lack
  // count_only, so the key tells. See DOMAIN.md §2 and etcd issue #12094.
  if (range.scope === 'all' && !e.key.endsWith('/') && e.rangeEnd === prefixRangeEnd(e.key)) return 'count without the trailing slash (object-count polling, before 1.27)';
  return null;
}

/** etcd's zap logger samples (pkg/logutil/zap.go, 3.4 to 3.6: Sampling{Initial: 100, Thereafter: 100}, zap's 1 s tick,
 * per message and level): of one message, a sampler second writes its first 100 lines, then every 100th. It starts at
 * the first line after the last one ended. capnslog does not sample, and each trace line has a message of its own. */
export const ZAP_SAMPLE_FIRST = 100;
const ZAP_SAMPLED = ['apply request took too long', 'request stats'] as const;

/** Which sampled zap message a line was logged under (an index into ZAP_SAMPLED), or -1. Slow reads and slow writes
 * share "apply request took too long", so writes can crowd reads out of the log. */
export function zapSampledMessage(e: EtcdEntry): number {
  if (e.kind === 'range') return e.via === 'apply' ? 0 : e.via === 'stats' ? 1 : -1;
  return e.what === 'slow write' ? 0 : e.what === 'request stats' ? 1 : -1;
}

/** A stretch of log in which etcd's zap sampler may have dropped lines of `message`: counts there are a lower bound. */
export interface ZapSampledSpan {
  fromMs: number;
  toMs: number;
  message: string;
  /** the lines of that message the log holds in the stretch */
  lines: number;
}

/** Where the sampler may have dropped lines. A sampler second holds at most 100 written lines before it drops one,
 * and lies within two adjacent seconds of the log; so where no two adjacent seconds hold 100 lines of a message,
 * nothing of it was dropped. `zapSeconds`: second × 2 + message → lines. */
export function zapSampledSpans(zapSeconds: ReadonlyMap<number, number>): ZapSampledSpan[] {
  const out: ZapSampledSpan[] = [];
  for (let m = 0; m < ZAP_SAMPLED.length; m++) {
    const at = (sec: number): number => zapSeconds.get(sec * 2 + m) ?? 0;
    const flagged = new Set<number>();
    for (const k of zapSeconds.keys()) {
      if (k % 2 !== m) continue;
      const sec = (k - m) / 2;
      if (at(sec) + at(sec + 1) < ZAP_SAMPLE_FIRST) continue;
      // dropped lines are in the sampler second that wrote the 100: in this second or the next
      flagged.add(sec);
      flagged.add(sec + 1);
    }
    const secs = [...flagged].sort((a, b) => a - b);
    for (let i = 0; i < secs.length; ) {
      let j = i;
      while (j + 1 < secs.length && secs[j + 1] === secs[j]! + 1) j++;
      let lines = 0;
      for (let x = i; x <= j; x++) lines += at(secs[x]!);
      out.push({ fromMs: secs[i]! * 1000, toMs: (secs[j]! + 1) * 1000, message: ZAP_SAMPLED[m]!, lines });
      i = j + 1;
    }
  }
  return out.sort((a, b) => a.fromMs - b.fromMs || (a.message < b.message ? -1 : 1));
}

/** Aggregate of reads of one range in one minute. */
export interface EtcdAgg {
  internal: string | null;
  resourceKey: string;
  resource: string;
  scope: EtcdKeyRange['scope'];
  namespace: string | null;
  limited: boolean;
  minute: number; // epoch minute, or -1 when the time is unknown
  keyLabel: string; // e.g. /registry/pods/ (range) or /registry/pods/<ns>/<name> (single)
  reads: number;
  objectsSum: number;
  objectsN: number;
  objectsMax: number;
  totalKeysMax: number;
  bytesSum: number;
  bytesN: number;
  bytesMax: number;
  tookSum: number; // µs
  tookN: number;
  tookMax: number;
  errors: number;
  firstMs: number | null;
  lastMs: number | null;
}

/** Per-stream merger + global aggregate. */
export class EtcdReads {
  readonly aggs = new Map<string, EtcdAgg>();
  private held: EtcdRead[] = [];
  clientReads = 0;
  internalReads = 0;
  readonly internalByReason = new Map<string, number>();

  /** Receives every finished read (the DuckDB store); shared with the boundary mergers. */
  sink: ((r: EtcdRead) => void) | null = null;

  /** reads per key prefix they sit under (inferred or given), for the report's etcdPrefix */
  readonly prefixes = new Map<string, number>();

  /** lines of each sampled zap message per second of log time (second × 2 + message, see zapSampledSpans), counted
   * before any filter: the sampler counted every line */
  readonly zapSeconds = new Map<number, number>();

  constructor(private readonly etcdPrefix: string | null) {}

  // The head of a segment: raw lines up to the first gap longer than PAIR_WINDOW_MS. No two lines of one read
  // are that far apart, so nothing after the gap pairs with anything before it, and the head can be paired
  // with the previous segment's tail later, exactly as one pass over both would have done.
  private headOpen = true;
  private headLines: EtcdRangeEntry[] = [];
  private headLastMs: number | null = null;

  /** Counts a line of a sampled zap message, whether or not a filter keeps it (see zapSampledSpans). */
  noteLine(e: EtcdEntry): void {
    const m = zapSampledMessage(e);
    if (m < 0 || e.tsMs === null) return;
    const k = Math.floor(e.tsMs / 1000) * 2 + m;
    this.zapSeconds.set(k, (this.zapSeconds.get(k) ?? 0) + 1);
  }

  /** Adds one line's entry; merges it into a held read of the same range when it is the same read. */
  add(e: EtcdRangeEntry): void {
    if (this.headOpen) {
      const gap = e.tsMs !== null && this.headLastMs !== null && e.tsMs - this.headLastMs > PAIR_WINDOW_MS;
      if (!gap && this.headLines.length < MAX_HEAD_LINES) {
        this.headLines.push(e);
        if (e.tsMs !== null) this.headLastMs = Math.max(this.headLastMs ?? e.tsMs, e.tsMs);
        return;
      }
      this.headOpen = false;
    }
    this.merge1(e);
  }

  private merge1(e: EtcdRangeEntry): void {
    for (const r of this.held) {
      if (!sameRead(r, [e.via], e)) continue;
      absorb(r, e, [e.via]);
      // a trace line, logged first, does not carry count_only; the apply line of the same read does
      r.internal ??= internalReason(e, r.range, this.etcdPrefix);
      return;
    }
    const range = describeEtcdKey(e.key, e.rangeEnd, this.etcdPrefix);
    this.held.push({
      tsMs: e.tsMs,
      tookMs: e.tookMs,
      key: e.key,
      rangeEnd: e.rangeEnd,
      limit: e.limit,
      objects: e.objects,
      totalKeys: e.totalKeys,
      bytes: e.bytes,
      error: e.error,
      internal: internalReason(e, range, this.etcdPrefix),
      range,
      vias: new Set([e.via]),
    });
    // Release reads that are too old to be paired with a later line.
    while (this.held.length > MERGE_WINDOW || (this.held.length > 1 && e.tsMs !== null && this.held[0]!.tsMs !== null && e.tsMs - this.held[0]!.tsMs > 1000)) {
      this.emit(this.held.shift()!);
    }
  }

  /** Ends a segment without deciding its edges (see EtcdSegmentEdges). */
  endSegment(): EtcdSegmentEdges {
    const edges = { head: this.headLines, tail: this.held };
    this.held = [];
    this.headLines = [];
    this.headOpen = true;
    this.headLastMs = null;
    return edges;
  }

  /** Joins the tail of one segment with the head of the next (same input, in order) and counts them all. */
  joinSegments(tail: EtcdRead[], head: EtcdRangeEntry[]): void {
    const m = new EtcdReads(this.etcdPrefix);
    m.sink = this.sink;
    m.held = tail.map((r) => ({ ...r, vias: new Set(r.vias) }));
    for (const e of head) m.merge1(e);
    for (const r of m.held) m.emit(r);
    this.merge(m);
  }

  /** Ends one stream that is not split into segments: every held read is final. */
  flush(): void {
    const { head, tail } = this.endSegment();
    this.joinSegments([], head);
    this.joinSegments(tail, []);
  }

  /** Counts one finished read into the aggregates. */
  emit(r: EtcdRead): void {
    this.sink?.(r);
    if (r.internal !== null) {
      this.internalReads++;
      this.internalByReason.set(r.internal, (this.internalByReason.get(r.internal) ?? 0) + 1);
    } else {
      this.clientReads++;
    }
    const minute = r.tsMs === null ? -1 : Math.floor(r.tsMs / 60000);
    const rg = r.range;
    if (rg.prefix !== null) this.prefixes.set(rg.prefix, (this.prefixes.get(rg.prefix) ?? 0) + 1);
    // a range that names a resource always has the prefix it sits under
    const base = rg.resourceKey === '' ? '' : `${rg.prefix!}/${rg.apiGroup !== null ? rg.resourceKey : builtinKeyPrefix(rg.resource)}/`;
    const keyLabel =
      base === '' || r.internal !== null ? r.key : rg.scope === 'single' ? (rg.namespace !== null ? `${base}<ns>/<name>` : `${base}<name>`) : rg.scope === 'namespace' ? `${base}<ns>/` : base;
    const limited = r.limit > 0;
    // Stryker disable next-line StringLiteral: any stand-in for no reason or no namespace that no real one equals
    const k = `${r.internal ?? ''}|${rg.resourceKey}|${rg.scope}|${rg.namespace ?? ''}|${limited ? 1 : 0}|${minute}|${keyLabel}`;
    let a = this.aggs.get(k);
    if (a === undefined) {
      a = {
        internal: r.internal,
        resourceKey: rg.resourceKey,
        resource: rg.resource,
        scope: rg.scope,
        namespace: rg.namespace,
        limited,
        minute,
        keyLabel,
        reads: 0,
        objectsSum: 0,
        objectsN: 0,
        objectsMax: 0,
        totalKeysMax: 0,
        bytesSum: 0,
        bytesN: 0,
        bytesMax: 0,
        tookSum: 0,
        tookN: 0,
        tookMax: 0,
        errors: 0,
        firstMs: null,
        lastMs: null,
      };
      this.aggs.set(k, a);
    }
    a.reads++;
    if (r.objects !== null) {
      a.objectsSum += r.objects;
      a.objectsN++;
      a.objectsMax = Math.max(a.objectsMax, r.objects);
    }
    // Stryker disable next-line ConditionalExpression: Math.max with null (0 in arithmetic) leaves a maximum that starts at 0
    if (r.totalKeys !== null) a.totalKeysMax = Math.max(a.totalKeysMax, r.totalKeys);
    if (r.bytes !== null) {
      a.bytesSum += r.bytes;
      a.bytesN++;
      a.bytesMax = Math.max(a.bytesMax, r.bytes);
    }
    if (r.tookMs !== null) {
      // whole microseconds: an integer sum does not depend on the order reads are added (thread count)
      a.tookSum += Math.round(r.tookMs * 1000);
      a.tookN++;
      a.tookMax = Math.max(a.tookMax, r.tookMs);
    }
    if (r.error !== null) a.errors++;
    // Stryker disable next-line ConditionalExpression: reads without a time have their own aggregate (minute -1), so an aggregate's reads all have one or none do
    if (r.tsMs !== null) {
      // Stryker disable next-line EqualityOperator: an equal time is the same first time
      if (a.firstMs === null || r.tsMs < a.firstMs) a.firstMs = r.tsMs;
      if (a.lastMs === null || r.tsMs > a.lastMs) a.lastMs = r.tsMs;
    }
  }

  /** Folds another EtcdReads (flushed) into this one. */
  merge(o: Pick<EtcdReads, 'aggs' | 'clientReads' | 'internalReads' | 'internalByReason' | 'prefixes'> & { zapSeconds?: ReadonlyMap<number, number> }): void {
    for (const [k, n] of o.zapSeconds ?? []) this.zapSeconds.set(k, (this.zapSeconds.get(k) ?? 0) + n);
    this.clientReads += o.clientReads;
    for (const [p, n] of o.prefixes) this.prefixes.set(p, (this.prefixes.get(p) ?? 0) + n);
    this.internalReads += o.internalReads;
    for (const [r, n] of o.internalByReason) this.internalByReason.set(r, (this.internalByReason.get(r) ?? 0) + n);
    for (const [k, b] of o.aggs) {
      const a = this.aggs.get(k);
      if (a === undefined) {
        this.aggs.set(k, { ...b });
        continue;
      }
      mergeAgg(a, b);
    }
  }
}

/** Adds aggregate `b` into `a` (same range; used to merge workers' shares and to sum minutes). */
export function mergeAgg(a: EtcdAgg, b: EtcdAgg): void {
  a.reads += b.reads;
  a.objectsSum += b.objectsSum;
  a.objectsN += b.objectsN;
  a.objectsMax = Math.max(a.objectsMax, b.objectsMax);
  a.totalKeysMax = Math.max(a.totalKeysMax, b.totalKeysMax);
  a.bytesSum += b.bytesSum;
  a.bytesN += b.bytesN;
  a.bytesMax = Math.max(a.bytesMax, b.bytesMax);
  a.tookSum += b.tookSum;
  a.tookN += b.tookN;
  a.tookMax = Math.max(a.tookMax, b.tookMax);
  a.errors += b.errors;
  // Stryker disable next-line EqualityOperator: an equal time is the same first time
  if (b.firstMs !== null && (a.firstMs === null || b.firstMs < a.firstMs)) a.firstMs = b.firstMs;
  if (b.lastMs !== null && (a.lastMs === null || b.lastMs > a.lastMs)) a.lastMs = b.lastMs;
}
