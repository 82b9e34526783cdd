/*! One job: the compiled aggregator's counts (decode/engine/assembly/slots.ts) folded into the same aggregates
 * RequestCounts.count() fills for an event (SlotFold): per slot its requests, verbs, user agents, versions, nodes,
 * full lists, read group, latencies and series; per pair the shared, per-input and per-client series and the copy
 * fingerprint. Also when the aggregator may count at all (usable). */

import type { ListQuery } from '../decode/request-uri.js';
import { MARK_READ, PAIR_ALL, PAIR_CLIENT, PAIR_CLIENT_LISTS, PAIR_FP_H1, PAIR_FP_H2, PAIR_FP_N, PAIR_LATENCY, PAIR_LISTS, PAIR_READ, PAIR_SRCIP, PAIR_WATCH_END, type LineEngine, type Slot, type SlotTables } from '../decode/engine/engine.js';
import { MAX_SET_PER_GROUP, isWatchList } from './read-groups.js';
import type { TimeSeries } from './time-series.js';
import { fingerprintAddSecond } from './fingerprint.js';
import { latencyAddBucket, latencyEdges2000 } from './latency.js';
import type { InputStats } from './input-stats.js';
import type { RequestCounts } from './request-counts.js';
import { bump, NO_UA, type ClientCounts, type TimeOptions, INPUT_REQUEST_BUCKETS, CLIENT_SERIES_MIN_MS, resourceKeyOf } from './state-types.js';

export class SlotFold {
  private ok: boolean | null = null;
  /** The input of the counts the aggregator holds (those of the segments read since the last fold). */
  input: number | null = null;

  constructor(
    private readonly counts: RequestCounts,
    private readonly timeOptions: TimeOptions,
  ) {}

  /** Whether a state's engine lines can be counted by the compiled aggregator: not when each request must be
   * seen on its own (a store's sink, a filter, copies of logs left out), nor when the clients' series are not a
   * multiple of the buckets. Sets the aggregator up on first use, and `onFull` to fold it when its tables fill. */
  usable(eng: LineEngine, onFull: () => void): boolean {
    if (this.ok === null) {
      const b = this.timeOptions.bucketMs;
      const clientMs = Math.max(CLIENT_SERIES_MIN_MS, b);
      this.ok = !this.counts.seenOneByOne && clientMs % b === 0 && process.env.AUDIT_SCAN_SLOTS !== '0';
      if (this.ok) {
        const edges = slotLatencyEdges();
        eng.enableSlots(b, clientMs, edges, this.timeOptions.fingerprint === true);
      }
    }
    if (this.ok) eng.onSlotsFull = onFull;
    return this.ok;
  }

  /** Folds what the compiled aggregator counted, for input `input` (its counts so far: `stats`), into the counts'
   * aggregates, per slot in the order the slots were made (the order of their first requests), and empties it. */
  fold(eng: LineEngine, input: number, stats: InputStats | undefined): void {
    const { slots, clients, pairs } = eng.drainSlots();
    // One loop a method (as drainSlots): V8 optimizes a hot loop on its own, and a later loop of one big function,
    // not run yet when the first was optimized, deoptimized it when reached: the function, with all it inlines,
    // was compiled 6 times in a 1 GB gzip scan, 190 ms of compiling on 2 cores.
    this.foldRows(eng, slots, pairs, input, pairsBySlot(pairs));
    const entries = clients.map(([ua, user]) => this.counts.clientEntry(ua, user, input));
    this.foldPairs(pairs, entries, input, stats);
  }

  /** The slots' requests, reads and their buckets (`bySlot`: the indexes of each slot's read and latency pairs). */
  private foldRows(eng: LineEngine, slots: Slot[], pairs: SlotTables['pairs'], input: number, bySlot: Map<number, number[]>): void {
    const k = this.counts;
    const t = k.time;
    const c = k.counters;
    const b = this.timeOptions.bucketMs;
    for (let si = 0; si < slots.length; si++) {
      const s = slots[si]!;
      const n = s.requests;
      if (s.userAgent.length > 0 || s.username.length > 0) {
        k.versions.add(s.username, s.userAgent, n);
        const ua = s.userAgent.length > 0 ? s.userAgent : NO_UA + s.username;
        if (k.userAgents.size < 100_000 || k.userAgents.has(ua)) bump(k.userAgents, ua, n);
      }
      c.requests += n;
      bump(c.byVerb, s.verb, n);
      let node: string | null = s.nodeName;
      if (node === null && s.username.startsWith('system:node:')) node = s.username.slice(12);
      if ((s.bits & MARK_READ) === 0) {
        if (node !== null) k.clusterNodes.add(node);
        continue;
      }
      // countRead()
      const q: ListQuery = {
        fieldSelector: s.fieldSelector,
        labelSelector: s.labelSelector,
        resourceVersion: s.rvClass === 0 ? null : s.rvClass === 1 ? '0' : 'N',
        resourceVersionMatch: s.resourceVersionMatch,
        limit: s.limited ? 1 : 0,
        continueToken: s.continueToken,
        watch: s.watch,
        sendInitialEvents: s.sendInitialEvents,
      };
      const sel = k.selectorsOf((s.fieldSelectorId + 1) * 2 ** 21 + (s.labelSelectorId + 1), q);
      if (node === null && sel.node !== null) node = sel.node;
      if (node !== null) k.clusterNodes.add(node);
      if (s.verb === 'list' && s.fullList >= 0 && (q.fieldSelector ?? '').trim() === '' && (q.labelSelector ?? '').trim() === '' && s.namespace === '' && !q.continueToken) {
        const rk = resourceKeyOf(s.apiGroup, s.resource);
        if ((k.fullListObjects.get(rk) ?? -1) < s.fullList) k.fullListObjects.set(rk, s.fullList);
      }
      const byResource = s.verb === 'list' || isWatchList(s.verb, q, s.code) ? k.seriesIn(t.listsByResource as Map<string | number, TimeSeries>, resourceKeyOf(s.apiGroup, s.resource)) : null;
      const { group, mark } = k.groups.addSlot(s, s.resource, s.apiGroup, s.namespace, q, sel, node, input);
      for (const i of bySlot.get(si) ?? []) {
        const count = pairs.count[i]!;
        if (pairs.kind[i] === PAIR_LATENCY) {
          latencyAddBucket(group.latency, pairs.key[i]!, count);
          continue;
        }
        if (pairs.kind[i] === PAIR_SRCIP) {
          // (only the number of addresses is reported: the order they were added in does not show)
          const l = group.fromLog!;
          if (l.sourceIPs.size < MAX_SET_PER_GROUP) l.sourceIPs.add(eng.stringOf(pairs.key[i]!));
          continue;
        }
        const at = pairs.key[i]! * b;
        k.groups.seriesAdd(group, at, count);
        mark?.add(at, count);
        byResource?.add(at, count);
      }
    }
  }

  /** The shared series, the clients' (`entries`: by client id, in the order they came; the cap keeps the first
   * MAX_CLIENT_INPUTS, as countClient does) and the copy fingerprint's seconds (into `inputStats`). */
  private foldPairs(pairs: SlotTables['pairs'], entries: Array<ClientCounts | null>, input: number, inputStats: InputStats | undefined): void {
    const k = this.counts;
    const t = k.time;
    const b = this.timeOptions.bucketMs;
    const clientMs = Math.max(CLIENT_SERIES_MIN_MS, b);
    for (let i = 0; i < pairs.n; i++) {
      const kind = pairs.kind[i]!;
      const count = pairs.count[i]!;
      if (kind === PAIR_ALL) {
        const at = pairs.key[i]! * b;
        t.all.add(at, count);
        k.seriesIn(t.inputRequests as Map<string | number, TimeSeries>, input, INPUT_REQUEST_BUCKETS).add(at, count);
      } else if (kind === PAIR_LISTS) k.seriesIn(t.inputLists as Map<string | number, TimeSeries>, input).add(pairs.key[i]! * b, count);
      else if (kind === PAIR_WATCH_END) k.seriesIn(t.inputWatchEnds as Map<string | number, TimeSeries>, input).add(pairs.key[i]! * b, count);
      else if (kind === PAIR_CLIENT || kind === PAIR_CLIENT_LISTS) {
        const e = entries[pairs.id[i]!]!;
        if (e === null) t.clientInputsOverflow += kind === PAIR_CLIENT ? count : 0;
        else if (kind === PAIR_CLIENT) e.all.add(pairs.key[i]! * clientMs, count);
        else (e.lists ??= k.clientSeries()).add(pairs.key[i]! * clientMs, count);
      } else if (kind === PAIR_FP_N || kind === PAIR_FP_H1 || kind === PAIR_FP_H2) {
        // countRequest()'s fingerprintAdd(), for the requests counted here
        if (inputStats !== undefined) fingerprintAddSecond(inputStats.fingerprint, pairs.key[i]!, kind === PAIR_FP_N ? count : 0, kind === PAIR_FP_H1 ? count : 0, kind === PAIR_FP_H2 ? count : 0);
      }
    }
  }
}

/** The indexes of each slot's read and latency pairs, by slot. */
function pairsBySlot(pairs: SlotTables['pairs']): Map<number, number[]> {
  const bySlot = new Map<number, number[]>();
  for (let i = 0; i < pairs.n; i++) {
    const k = pairs.kind[i]!;
    if (k !== PAIR_READ && k !== PAIR_LATENCY && k !== PAIR_SRCIP) continue;
    const id = pairs.id[i]!;
    let l = bySlot.get(id);
    if (l === undefined) bySlot.set(id, (l = []));
    l.push(i);
  }
  return bySlot;
}

/** The latency edges of the compiled aggregator (latency.ts latencyEdges2000), made once; a latency past the last
 * is counted through countRequest. */
let slotEdges: Float64Array | null = null;
function slotLatencyEdges(): Float64Array {
  return (slotEdges ??= latencyEdges2000());
}
