/*! One job: when an input's events happened, as a stream: each segment's span, first event times (its head),
 * spacing, gaps and restart signs (identity leases), for the input and for each apiserver a wrapper named, line by
 * line (timeOf, timeRun); the segments joined in input order as one thread measures them (InputTimes.reconcile,
 * replayHead); and at the end the times far from the rest of an input left out of the time analysis
 * (InputTimes.excludeFarTimes). */

import type { AuditEvent } from '../model/audit-event.js';
import type { LineEngine } from '../decode/engine/engine.js';
import type { ReadGroups } from './read-groups.js';
import type { TimeSeries } from './time-series.js';
import { implausibleAtIngest, overlapsAny, sketchAdd, splitFar, type TimeCluster } from './plausible.js';
import { addSpacing, candidateMinMs, keepLongest, mergeSpacing, newSpacingHistogram, pushGap, spacingBin, type SpacingHistogram } from './gaps.js';
import { touchTime, type InputStats } from './input-stats.js';
import { bump, HEAD_TIMES, MAX_NAMED_APISERVERS, streamKey, type Counters, type LeaseHolders, type SegmentResult, type StreamTiming, type TimeState } from './state-types.js';

/** Most restart signs kept per segment and per input. */
export const MAX_SIGNS = 1000;

/** A segment's timing, kept line by line (its part of ScanState's segment). */
export interface SegmentTimes {
  input: InputStats; // the segment's counts: its span and time sketch
  /** its first event time */
  startMs: number | null;
  /** event times, for gaps in the input's stream */
  firstT: number | null;
  lastT: number | null;
  gaps: Array<[number, number]>;
  spacing: SpacingHistogram;
  /** its first HEAD_TIMES event times: its spacing and gaps are measured from its own first event, and
   * reconcile() measures these again from the latest time before the segment (replayHead) */
  headTimes: number[];
  /** the gaps measured at those first events, kept whole (see timeStep); and whether events past them came */
  headGaps: Array<[number, number]>;
  headDropped: boolean;
  /** restart signs besides gaps: the apiserver identity lease created or taken over, [time, what] */
  signs: Array<[number, string]>;
  /** identity lease name → holders seen in this segment */
  leases: Map<string, LeaseHolders>;
  /** apiserver a wrapper named → the times of its events, for gaps in its own stream (at most
   * MAX_NAMED_APISERVERS; the records of others are counted in namedOverflow and left unnamed) */
  streams: Map<string, StreamTiming>;
  namedOverflow: number;
}

/** An event's time into its segment's timing: the input's span and sketch, the segment's first events, spacing
 * and gaps, and a named apiserver's own. */
export function timeOf(g: SegmentTimes, t: number, apiserver: string | undefined, gapMs: number | null): void {
  sketchAdd(g.input.sketch, t);
  timeBesideSketch(g, t, apiserver, gapMs);
}

/** timeOf() but for the input's sketch. */
export function timeBesideSketch(g: SegmentTimes, t: number, apiserver: string | undefined, gapMs: number | null): void {
  touchTime(g.input, t);
  if (g.startMs === null) g.startMs = t;
  const minGap = candidateMinMs(gapMs);
  const inHead = g.headTimes.length < HEAD_TIMES;
  if (inHead) g.headTimes.push(t);
  else g.headDropped = true;
  timeStep(g, t, minGap, inHead ? g.headGaps : null);
  if (apiserver !== undefined) streamTime(g, apiserver, t, minGap);
}

/** An event time of an apiserver a wrapper named, for gaps in its own stream (as addRequest's per input). */
function streamTime(g: SegmentTimes, name: string, t: number, minGap: number): void {
  let st = g.streams.get(name);
  if (st === undefined) g.streams.set(name, (st = { firstT: null, lastT: null, gaps: [], spacing: newSpacingHistogram(), events: 0, headTimes: [], headGaps: [], headDropped: false }));
  st.events++;
  const inHead = st.headTimes!.length < HEAD_TIMES;
  if (inHead) st.headTimes!.push(t);
  else st.headDropped = true;
  timeStep(st, t, minGap, inHead ? st.headGaps! : null);
}

/** timeOf() for the admitted lines i..j-1 of the engine's batch, which name no apiserver, with the input's sketch
 * taken a run of one bucket at a time: a bucket that exists takes no fit(), so the cell's count, earliest and
 * latest come out as line by line. */
export function timeRun(g: SegmentTimes, eng: LineEngine, i: number, j: number, gapMs: number | null): void {
  const sk = g.input.sketch;
  let r = i;
  while (r < j) {
    const first = eng.stageMsAt(r);
    sketchAdd(sk, first);
    const w = sk.widthMs;
    const idx = Math.floor(first / w);
    // (the cell sketchAdd made or found, at the width it left: a fit() merges whole buckets)
    const cell = sk.buckets.get(idx);
    for (let t = first; ; ) {
      timeBesideSketch(g, t, undefined, gapMs);
      if (++r === j) break;
      t = eng.stageMsAt(r);
      if (cell === undefined || Math.floor(t / w) !== idx) break;
      cell[0]++;
      if (t < cell[1]) cell[1] = t;
      if (t > cell[2]) cell[2] = t;
    }
  }
}

/** An apiserver identity lease created, or taken over by a new holder: an apiserver (re)started. */
export function leaseSign(g: SegmentTimes, e: AuditEvent, t: number): void {
  if (e.code !== null && (e.code < 200 || e.code >= 300)) return;
  if (e.verb === 'create') {
    if (g.signs.length < MAX_SIGNS) g.signs.push([t, 'identity lease created']);
    return;
  }
  if (e.leaseHolder === null || (e.verb !== 'update' && e.verb !== 'patch')) return;
  const h = g.leases.get(e.name);
  if (h === undefined) g.leases.set(e.name, { first: e.leaseHolder, firstT: t, last: e.leaseHolder });
  else if (h.last !== e.leaseHolder) {
    if (g.signs.length < MAX_SIGNS) g.signs.push([t, 'identity lease taken over']);
    h.last = e.leaseHolder;
  }
}

/** A restart sign the decoder read (an apiserver log's start lines), unless its time cannot be real. */
export function restartSign(g: SegmentTimes, t: number, what: string, nowMs: number): void {
  if (implausibleAtIngest(t, nowMs) === null && g.signs.length < MAX_SIGNS) g.signs.push([t, what]);
}

/** What a segment's timing hands to reconcile (SegmentResult.timing). */
export function segmentTiming(g: SegmentTimes): SegmentResult['timing'] {
  return { firstT: g.firstT, lastT: g.lastT, gaps: [...keepLongest(g.gaps), ...g.headGaps], fromBefore: false, spacing: g.spacing, headTimes: g.headTimes, headDropped: g.headDropped, signs: g.signs, leases: g.leases, streams: new Map([...g.streams].map(([k, { headGaps, ...st }]) => [k, { ...st, gaps: [...keepLongest(st.gaps), ...(headGaps ?? [])] }])), namedOverflow: g.namedOverflow };
}

/** The apiserver identity lease (KEP-1965): kube-system/leases/apiserver-<hash>, kube-apiserver-<hash> in 1.26. */
export function isIdentityLease(e: Pick<AuditEvent, 'resource' | 'namespace' | 'name'>): boolean {
  return e.resource === 'leases' && e.namespace === 'kube-system' && (e.name.startsWith('apiserver-') || e.name.startsWith('kube-apiserver-'));
}

/** One event time into a stream's timing (a segment's, or a named apiserver's in it): the spacing since the latest
 * time before it, a gap when that spacing reaches `minGapMs`, the first and the latest time. */
function timeStep(s: { firstT: number | null; lastT: number | null; gaps: Array<[number, number]>; spacing: SpacingHistogram }, t: number, minGapMs: number, headGaps: Array<[number, number]> | null = null): void {
  if (s.firstT === null) s.firstT = t;
  if (s.lastT !== null) {
    const inc = t - s.lastT;
    addSpacing(s.spacing, inc > 0 ? inc : 0);
    // A gap at one of the segment's first events is kept whole: reconcile() may take it out again (replayHead),
    // and it must not have pushed a real gap out of the longest MAX_GAPS first.
    if (inc >= minGapMs) {
      if (headGaps !== null) headGaps.push([s.lastT, t]);
      else pushGap(s.gaps, s.lastT, t);
    }
  }
  if (s.lastT === null || t > s.lastT) s.lastT = t;
}

/** Measures a segment's first event times again as one thread does, whose latest time at the cut was `prev`:
 * the segment measured its spacing and gaps (`own`, its list) from its own first event (it could not know
 * `prev`), so each of its first events is taken out of `spacing` and `own` as the segment measured it and put back
 * as one thread would. Once the segment's own latest time reaches `prev`, both measure alike and the replay stops.
 * When the kept times run out first (more than HEAD_TIMES events older than the cut at a segment's start: logs
 * concatenated out of order), the segment's later gaps that begin before the latest time are clipped to it, as one
 * thread clips them, but the spacing of those later events stays the segment's own: returns false then. */
export function replayHead(prev: number, head: readonly number[], spacing: SpacingHistogram, own: Array<[number, number]>, minGapMs: number, dropped = head.length >= HEAD_TIMES): boolean {
  let mine: number | null = null;
  let latest = prev;
  const added: Array<[number, number]> = [];
  for (const t of head) {
    if (mine !== null && mine >= latest) break;
    if (mine !== null) {
      const inc = t - mine;
      spacing[spacingBin(inc > 0 ? inc : 0)]!--;
      if (inc >= minGapMs) {
        const i = own.findIndex(([a, b]) => a === mine && b === t);
        if (i >= 0) own.splice(i, 1);
      }
    }
    const inc = t - latest;
    addSpacing(spacing, inc > 0 ? inc : 0);
    if (inc >= minGapMs) added.push([latest, t]);
    if (mine === null || t > mine) mine = t;
    if (t > latest) latest = t;
  }
  const exact = mine === null || mine >= latest || !dropped;
  if (!exact) {
    // The rest of the segment's own gaps: one thread measures them from a latest time at least `latest`.
    for (let i = own.length - 1; i >= 0; i--) {
      const [a, b] = own[i]!;
      if (a >= latest) continue;
      if (b - latest >= minGapMs) own[i] = [latest, b];
      else own.splice(i, 1);
    }
  }
  for (const g of added) own.push(g);
  return exact;
}

/** The timing across segments: each input's and each named apiserver's gaps, spacing and restart signs, joined in
 * input order into the scan's time state. */
export class InputTimes {
  /** input index → its latest event time over the segments reconciled so far */
  private readonly lastT = new Map<number, number>();
  /** input index → identity lease → its last holder, across the input's segments */
  private readonly leaseHolders = new Map<number, Map<string, string>>();
  /** input index → apiservers named in it so far (reconcile) */
  private readonly namedPerInput = new Map<number, number>();
  /** set by excludeFarTimes(): per input, the clusters of its times kept and those far from the rest */
  private plausibility: Map<number, { kept: TimeCluster[]; far: TimeCluster[] }> | null = null;

  constructor(
    private readonly time: TimeState,
    /** the scan's counters (timingInexact) */
    private readonly counters: Counters,
    /** --gap, or null (gaps.ts candidateMinMs) */
    private readonly gapMs: number | null,
  ) {}

  /** Adds a finished segment's timing (`timing`, of input `idx`). Call in input order, segment by segment. */
  reconcile(idx: number, timing: SegmentResult['timing']): void {
    // Gaps: those inside the segment, and the one between the previous segment's last event and this one's first.
    const gaps = this.time.inputGaps.get(idx) ?? [];
    const spacing = this.time.inputSpacing.get(idx) ?? newSpacingHistogram();
    const prev = this.lastT.get(idx);
    const minGap = candidateMinMs(this.gapMs);
    mergeSpacing(spacing, timing.spacing);
    const own = [...timing.gaps];
    if (prev !== undefined && timing.headTimes !== undefined) {
      if (!replayHead(prev, timing.headTimes, spacing, own, minGap, timing.headDropped)) this.counters.timingInexact++;
    } else if (!timing.fromBefore && prev !== undefined && timing.firstT !== null) {
      const inc = timing.firstT - prev;
      addSpacing(spacing, inc > 0 ? inc : 0);
      if (inc >= minGap) gaps.push([prev, timing.firstT]);
    }
    for (const gp of own) gaps.push(gp);
    this.time.inputSpacing.set(idx, spacing);
    if (gaps.length > 0) this.time.inputGaps.set(idx, keepLongest(gaps));
    if (timing.lastT !== null) this.lastT.set(idx, Math.max(prev ?? -Infinity, timing.lastT));
    // Restart signs: the segment's own, and an identity lease whose holder changed across the cut.
    const signs = this.time.inputSigns.get(idx) ?? [];
    for (const sg of timing.signs) if (signs.length < MAX_SIGNS) signs.push(sg);
    let holders = this.leaseHolders.get(idx);
    if (holders === undefined) this.leaseHolders.set(idx, (holders = new Map()));
    for (const [name, h] of timing.leases) {
      const before = holders.get(name);
      if (before !== undefined && before !== h.first && signs.length < MAX_SIGNS) signs.push([h.firstT, 'identity lease taken over']);
      holders.set(name, h.last);
    }
    if (signs.length > 0) this.time.inputSigns.set(idx, signs.sort((a, b) => a[0] - b[0]));
    this.reconcileStreams(idx, timing.streams, timing.namedOverflow ?? 0);
  }

  /** Each named apiserver's gaps, as an input's: those inside the segment, and the one between its last event
   * before the segment and its first in it. A gap the segment measured from a time before that last one (its
   * first events were older) is measured from that last one, as one thread measures it. */
  private reconcileStreams(idx: number, streams: Map<string, StreamTiming> | undefined, overflow: number): void {
    const t = this.time;
    for (const [name, st] of streams ?? []) {
      const key = streamKey(idx, name);
      const span = t.streamSpan.get(key);
      if (span === undefined) {
        const n = this.namedPerInput.get(idx) ?? 0;
        if (n >= MAX_NAMED_APISERVERS) {
          overflow += st.events;
          continue;
        }
        this.namedPerInput.set(idx, n + 1);
      }
      if (st.firstT === null || st.lastT === null) continue;
      const prev = span?.[1];
      const gaps = t.streamGaps.get(key) ?? [];
      const spacing = t.streamSpacing.get(key) ?? newSpacingHistogram();
      const min = candidateMinMs(this.gapMs);
      if (prev !== undefined && st.headTimes !== undefined) {
        const own = [...st.gaps];
        mergeSpacing(spacing, st.spacing);
        if (!replayHead(prev, st.headTimes, spacing, own, min, st.headDropped)) this.counters.timingInexact++;
        for (const gp of own) gaps.push(gp);
      } else if (prev === undefined) {
        for (const gp of st.gaps) gaps.push(gp);
        mergeSpacing(spacing, st.spacing);
      } else {
        // a part written before headTimes: its gaps were measured from its own first event
        if (prev !== undefined) {
          const inc = st.firstT - prev;
          addSpacing(spacing, inc > 0 ? inc : 0);
          if (inc >= min) gaps.push([prev, st.firstT]);
        }
        for (const [a, b] of st.gaps) {
          if (prev === undefined || a >= prev) gaps.push([a, b]);
          else if (b - prev >= min) gaps.push([prev, b]);
        }
        mergeSpacing(spacing, st.spacing);
      }
      t.streamSpacing.set(key, spacing);
      if (gaps.length > 0) t.streamGaps.set(key, keepLongest(gaps));
      t.streamSpan.set(key, span === undefined ? [st.firstT, st.lastT] : [Math.min(span[0], st.firstT), Math.max(span[1], st.lastT)]);
    }
    if (overflow > 0) t.streamOverflow.set(idx, (t.streamOverflow.get(idx) ?? 0) + overflow);
  }

  /** Finds, per input, the times far from the rest of it (plausible.ts splitFar) and leaves them out of the time
   * analysis: the input's window, its gaps and series, and the buckets of the shared series that only such times
   * fill. The events still count everywhere else. Runs once, at the end (ScanState.finishPending), on mergeable
   * sketches: the same answer for any thread count. */
  excludeFarTimes(inputs: InputStats[], groups: ReadGroups): void {
    if (this.plausibility !== null) return;
    const split = new Map<number, { kept: TimeCluster[]; far: TimeCluster[] }>();
    const allKept: TimeCluster[] = [];
    const allFar: TimeCluster[] = [];
    inputs.forEach((inp, idx) => {
      const r = splitFar(inp.sketch);
      split.set(idx, r);
      allKept.push(...r.kept);
      allFar.push(...r.far);
      if (r.far.length === 0) return;
      let far = 0;
      for (const c of r.far) far += c.events;
      inp.implausibleTimes += far;
      bump(inp.implausibleKinds, 'far', far);
      inp.firstMs = r.kept.length > 0 ? r.kept[0]!.fromMs : null;
      inp.lastMs = r.kept.length > 0 ? r.kept[r.kept.length - 1]!.toMs : null;
      for (const m of [this.time.inputLists, this.time.inputWatchEnds, this.time.inputRequests]) {
        const s = m.get(idx);
        if (s !== undefined) dropBuckets(s, r.far, []);
      }
      const gaps = this.time.inputGaps.get(idx);
      if (gaps !== undefined) this.time.inputGaps.set(idx, bridgeGaps(gaps, r.far));
      const signs = this.time.inputSigns.get(idx);
      if (signs !== undefined) this.time.inputSigns.set(idx, signs.filter(([t]) => !overlapsAny(t, t + 1, r.far)));
    });
    this.plausibility = split;
    if (allFar.length === 0) return;
    // Shared series: a bucket goes only when far times alone could have filled it.
    dropBuckets(this.time.all, allFar, allKept);
    dropBuckets(this.time.tokens, allFar, allKept);
    for (const s of this.time.listsByResource.values()) dropBuckets(s, allFar, allKept);
    for (const g of groups.groups.values()) {
      if (!dropBuckets(g.series, allFar, allKept)) continue;
      let lo = Infinity;
      let hi = -Infinity;
      for (const b of g.series.buckets.keys()) {
        lo = Math.min(lo, b * g.series.widthMs);
        hi = Math.max(hi, (b + 1) * g.series.widthMs - 1);
      }
      if (g.firstMs !== null && overlapsAny(g.firstMs, g.firstMs + 1, allFar)) g.firstMs = Number.isFinite(lo) ? lo : null;
      if (g.lastMs !== null && overlapsAny(g.lastMs, g.lastMs + 1, allFar)) g.lastMs = Number.isFinite(hi) ? hi : null;
    }
  }
}

/** Deletes the buckets of `s` that overlap `far` and no `kept` range; true when any went. */
function dropBuckets(s: TimeSeries, far: TimeCluster[], kept: TimeCluster[]): boolean {
  let dropped = false;
  for (const b of [...s.buckets.keys()]) {
    const from = b * s.widthMs;
    const to = from + s.widthMs;
    if (overlapsAny(from, to, far) && !overlapsAny(from, to, kept)) {
      s.buckets.delete(b);
      dropped = true;
    }
  }
  return dropped;
}

/** Gaps with far times at an end are joined through them: [a, stray] and [stray, b] become [a, b] (the pause the
 * plausible events show); a pause only before the first or after the last far time is dropped. */
function bridgeGaps(gaps: Array<[number, number]>, far: TimeCluster[]): Array<[number, number]> {
  const isFar = (t: number): boolean => overlapsAny(t, t + 1, far);
  const out: Array<[number, number]> = [];
  let open: number | null = null; // a plausible time just before far ones
  for (const [a, b] of [...gaps].sort((x, y) => x[0] - y[0])) {
    const fa = isFar(a);
    const fb = isFar(b);
    if (!fa && !fb) out.push([a, b]);
    else if (!fa && fb) open = a;
    else if (fa && !fb && open !== null) {
      out.push([open, b]);
      open = null;
    }
  }
  return out;
}

