/*! One job: etcd's own log in a scan: each line's version, stated slow-request threshold and kind of slowness
 * (etcd slow without a read: writes, fdatasync, WAL syncs, late heartbeats, applies), the --since/--until and
 * --resource/--namespace filters on its lines, and its reads, merged per segment (etcd-reads.ts) and joined across
 * segments by each input's last tail. */

import { describeEtcdKey } from '../model/etcd-key.js';
import type { EtcdEntry } from '../decode/etcd-line.js';
import { EtcdReads, type EtcdRead, type EtcdSegmentEdges } from './etcd-reads.js';
import { implausibleAtIngest, sketchAdd } from './plausible.js';
import type { FilterSpec } from './filters.js';
import { touchTime, type InputStats } from './input-stats.js';
import { bump, type Counters, type EtcdSlowAgg, type ScanSink, type StateSnapshot, type TimeOptions } from './state-types.js';

export class EtcdLines {
  /** the scan's finished reads: a segment's are merged in when it ends */
  readonly reads: EtcdReads;
  /** etcd version → lines that state it */
  readonly versions = new Map<string, number>();
  /** etcd being slow on its own, not for a read: slow writes, fdatasync, WAL syncs, late heartbeats (what → figures) */
  readonly slow = new Map<string, EtcdSlowAgg>();
  /** the slow-request thresholds etcd's lines state (ms → lines): 100 ms unless it was run with another */
  readonly thresholds = new Map<number, number>();
  /** reconcile(): each input's last etcd tail, joined with the head of its next segment */
  private readonly tails = new Map<number, EtcdRead[]>();

  constructor(
    /** kube-apiserver's --etcd-prefix, or null to infer it per key */
    private readonly etcdPrefix: string | null,
    private readonly timeOptions: TimeOptions,
    /** the scan's counters (etcdFilteredOut) */
    private readonly counters: Counters,
  ) {
    this.reads = new EtcdReads(etcdPrefix);
  }

  /** Sends every finished read to `sink` as well. */
  setSink(sink: ScanSink): void {
    this.reads.sink = (r) => sink.etcdRead(r);
  }

  /** The reads of a new segment (merged into this scan's when it ends). */
  segmentReads(): EtcdReads {
    const r = new EtcdReads(this.etcdPrefix);
    r.sink = this.reads.sink;
    return r;
  }

  /** Ends a segment's reads: its finished ones go to the scan's; returns its edges for reconcile. */
  endSegment(seg: EtcdReads): EtcdSegmentEdges {
    const edges = seg.endSegment();
    this.reads.merge(seg);
    return edges;
  }

  /** Joins a segment's first lines with the reads its input's previous segment still held, in input order. */
  reconcile(inputIndex: number, edges: EtcdSegmentEdges): void {
    this.reads.joinSegments(this.tails.get(inputIndex) ?? [], edges.head);
    this.tails.set(inputIndex, edges.tail);
  }

  /** Ends the scan: closes every input's last tail. */
  finish(): void {
    for (const tail of this.tails.values()) this.reads.joinSegments(tail, []);
    this.tails.clear();
  }

  /** Accounts one etcd line of a segment whose counts are `input` and reads `seg`. */
  add(e: EtcdEntry, input: InputStats, seg: EtcdReads): void {
    if (e.tsMs !== null) {
      const k = implausibleAtIngest(e.tsMs, this.timeOptions.nowMs);
      if (k !== null) {
        input.implausibleTimes++;
        bump(input.implausibleKinds, k);
        e = { ...e, tsMs: null };
      }
    }
    // The version and the span of the log describe the cluster and the log: taken before any filter.
    seg.noteLine(e); // and what zap's sampler counted (etcd-reads.ts zapSampledSpans)
    if (e.kind !== 'range' && e.version !== undefined) bump(this.versions, e.version);
    if (e.expectedMs !== undefined && e.expectedMs !== null) this.thresholds.set(e.expectedMs, (this.thresholds.get(e.expectedMs) ?? 0) + 1);
    if (e.kind !== 'range') {
      const slow = slowKind(e.what);
      if (slow !== null) {
        const a = this.slow.get(slow) ?? { n: 0, tookMaxMs: null, firstMs: null, lastMs: null };
        a.n++;
        if (e.tookMs != null && (a.tookMaxMs === null || e.tookMs > a.tookMaxMs)) a.tookMaxMs = e.tookMs;
        if (e.tsMs !== null && (a.firstMs === null || e.tsMs < a.firstMs)) a.firstMs = e.tsMs;
        if (e.tsMs !== null && (a.lastMs === null || e.tsMs > a.lastMs)) a.lastMs = e.tsMs;
        this.slow.set(slow, a);
      }
    }
    if (e.tsMs !== null) {
      touchTime(input, e.tsMs);
      sketchAdd(input.sketch, e.tsMs);
    }
    // One rule for both logs: a filter applies to every line that carries its field. etcd's lines carry a time and
    // a key (its resource and namespace), never a user or a verb: --user and --verb keep every etcd line.
    const f = this.timeOptions.filter;
    if (e.tsMs !== null && ((f.sinceMs !== null && e.tsMs < f.sinceMs) || (f.untilMs !== null && e.tsMs >= f.untilMs))) {
      input.otherLines++;
      bump(input.otherKinds, 'etcd outside --since/--until');
      this.counters.etcdFilteredOut++;
      return;
    }
    if (e.kind === 'range' && (f.resources.length > 0 || f.namespaces.length > 0) && !etcdKeyPasses(e.key, e.rangeEnd, this.etcdPrefix, f)) {
      input.otherLines++;
      bump(input.otherKinds, 'etcd outside --resource/--namespace');
      this.counters.etcdFilteredOut++;
      return;
    }
    if (e.kind === 'range') {
      input.etcdEntries++;
      seg.add(e);
    } else {
      input.otherLines++;
      bump(input.otherKinds, `etcd ${e.what}`);
    }
  }

  /** Folds a worker's etcd figures into these (the reads: EtcdReads.merge). Order-independent. */
  merge(o: Pick<StateSnapshot, 'etcdVersions' | 'etcdThresholds' | 'etcdSlow'>): void {
    for (const [k, n] of o.etcdVersions) bump(this.versions, k, n);
    for (const [k, n] of o.etcdThresholds) this.thresholds.set(k, (this.thresholds.get(k) ?? 0) + n);
    for (const [k, b] of o.etcdSlow) {
      const a = this.slow.get(k);
      if (a === undefined) {
        this.slow.set(k, { ...b });
        continue;
      }
      a.n += b.n;
      if (b.tookMaxMs !== null && (a.tookMaxMs === null || b.tookMaxMs > a.tookMaxMs)) a.tookMaxMs = b.tookMaxMs;
      if (b.firstMs !== null && (a.firstMs === null || b.firstMs < a.firstMs)) a.firstMs = b.firstMs;
      if (b.lastMs !== null && (a.lastMs === null || b.lastMs > a.lastMs)) a.lastMs = b.lastMs;
    }
  }
}

/** The kinds of etcd line that say etcd itself was slow (its disk, its raft loop), not a read. */
export function slowKind(what: string): 'slow write' | 'slow fdatasync' | 'wal sync' | 'late heartbeat' | 'slow apply' | null {
  if (what === 'slow write') return 'slow write';
  if (what === 'slow request') return 'slow apply';
  if (what === 'slow fdatasync') return 'slow fdatasync';
  if (what === 'wal sync') return 'wal sync';
  if (what.startsWith('leader failed to send out heartbeat on time')) return 'late heartbeat';
  return null;
}

/** Whether an etcd read's key is of a resource and namespace the filters keep. A cluster-wide range is in no
 * namespace (as a cluster-wide list is not, on the audit side). Resources are named as --resource takes them:
 * pods, deployments.apps, widgets.example.com, or a custom resource's plural alone. */
export function etcdKeyPasses(key: string, rangeEnd: string | null, etcdPrefix: string | null, f: Pick<FilterSpec, 'resources' | 'namespaces'>): boolean {
  const d = describeEtcdKey(key, rangeEnd, etcdPrefix);
  if (f.namespaces.length > 0 && (d.namespace === null || !f.namespaces.includes(d.namespace))) return false;
  if (f.resources.length === 0) return true;
  const rk = d.resourceKey;
  return f.resources.some((v) => {
    if (v === rk) return true;
    const dot = v.indexOf('.');
    if (dot < 0) return rk.endsWith(`/${v}`);
    const plural = v.slice(0, dot);
    return rk === plural || rk === `${v.slice(dot + 1)}/${plural}`;
  });
}
