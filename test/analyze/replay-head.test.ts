// A segment's first event times measured again at reconcile (replayHead, src/aggregate/timing.ts): the gaps
// and spacing of one input cut into segments (threads, shards) equal one segment's, whatever the times around the
// cut. Events are fed to real ScanStates; one reads the input whole, the other in two segments cut at `cut`.
import { describe, expect, it } from 'vitest';
import { HEAD_TIMES, ScanState } from '../../src/aggregate/scan-state.js';
import { replayHead } from '../../src/aggregate/timing.js';
import { addSpacing, newSpacingHistogram } from '../../src/aggregate/gaps.js';
import { NO_FILTER } from '../../src/aggregate/filters.js';
import type { AuditEvent } from '../../src/model/audit-event.js';

const T = Date.UTC(2026, 0, 1);
const NOW = Date.UTC(2026, 0, 2);

function ev(i: number, t: number): AuditEvent {
  return {
    auditID: `id-${i}`, stage: 'ResponseComplete', level: 'Metadata', verb: 'get', requestURI: '/api/v1/namespaces/a/pods/p', username: 'u', userAgent: 'ua/1', nodeName: null,
    resource: 'pods', apiGroup: '', namespace: 'a', name: 'p', subresource: '', code: 200, receivedMs: t, stageMs: t, returnedItems: null, remainingItems: null,
    tokenExpirationSeconds: null, leaseHolder: null, queryKnown: true, etcdLatencyMs: null, apfQueueWaitMs: null,
  };
}

/** gaps and spacing of input 0, read whole and read in two segments cut before event `cut` */
function both(times: number[], cut: number, gapMs = 5000): { whole: unknown; split: unknown; inexact: number } {
  const opts = { filter: NO_FILTER, bucketMs: 1000, gapMs, nowMs: NOW };
  const whole = new ScanState(null, null, undefined, opts);
  whole.beginInput('a.log');
  times.forEach((t, i) => whole.addAuditEvent(ev(i, t)));
  whole.endInput();
  whole.finishPending();
  const split = new ScanState(null, null, undefined, opts);
  const idx = split.addInput('a.log');
  split.beginSegment(idx, 'a.log', 's0');
  times.slice(0, cut).forEach((t, i) => split.addAuditEvent(ev(i, t)));
  const r0 = split.endSegment();
  split.beginSegment(idx, 'a.log', 's1', times[cut - 1]! + 1); // a look-behind's guess: not the latest time
  times.slice(cut).forEach((t, i) => split.addAuditEvent(ev(cut + i, t)));
  const r1 = split.endSegment();
  split.reconcile(r0);
  split.reconcile(r1);
  split.finishPending();
  const pick = (s: ScanState) => ({ gaps: s.time.inputGaps.get(0) ?? [], spacing: s.time.inputSpacing.get(0) });
  return { whole: pick(whole), split: pick(split), inexact: split.counters.timingInexact };
}

describe('gaps and spacing do not depend on where an input is cut', () => {
  const steady = (n: number, from: number, step: number) => Array.from({ length: n }, (_, i) => from + i * step);

  it.each([
    ['in time order, a 30 s pause after the cut', [...steady(50, T, 100), ...steady(50, T + 35_000, 100)], 50],
    ['in time order, a 30 s pause before the cut', [...steady(40, T, 100), ...steady(60, T + 34_000, 100)], 50],
    // The segment's first events are older than the latest before the cut: one thread measures them from that
    // latest time (no gap), the segment from its own first event (a gap of 20 s from 00:00:05 to 00:00:25).
    ['old events first after the cut', [...steady(50, T + 30_000, 100), ...steady(10, T + 5000, 100), T + 25_000, ...steady(40, T + 40_000, 100)], 50],
    // The latest time before the cut lies further back than the cut's 64 KiB look-behind sees: an event at 24:00
    // far before the cut, then earlier times up to the cut.
    ['a late event long before the cut', [T + 86_000_000, ...steady(80, T, 100), ...steady(20, T + 60_000, 100)], 60],
  ])('%s', (_, times, cut) => {
    const r = both(times as number[], cut as number);
    expect(r.split).toEqual(r.whole);
    expect(r.inexact).toBe(0);
  });

  it('the hand-worked case: 00:00:30 latest, then 00:00:05 … 00:00:05.9, 00:00:25, then 00:00:40 …', () => {
    const times = [...steady(50, T + 30_000, 100), ...steady(10, T + 5000, 100), T + 25_000, ...steady(40, T + 40_000, 100)];
    const r = both(times, 50);
    // one thread: the latest time is 00:00:34.9 until 00:00:40; the pause 34.9 → 40 s is 5.1 s, a gap (≥ 5 s)
    expect((r.whole as { gaps: unknown }).gaps).toEqual([[T + 34_900, T + 40_000]]);
  });

  it(`logs joined out of order: more than ${HEAD_TIMES} older events after the cut are counted, and the gaps still agree`, () => {
    // b.log's 5,000 events (with a 20 s pause inside) come after a.log's, all older: one thread finds no gap in
    // them (every one is older than a.log's last); the segment finds the pause, and clips it away at reconcile.
    const a = steady(200, T + 3_600_000, 100);
    const b = [...steady(2500, T, 100), ...steady(2500, T + 270_000, 100)];
    const r = both([...a, ...b], 200);
    expect((r.split as { gaps: unknown }).gaps).toEqual((r.whole as { gaps: unknown }).gaps);
    expect(r.inexact).toBe(1);
  });
});

describe('the segment edge cases a review found', () => {
  const steady = (n: number, from: number, step: number) => Array.from({ length: n }, (_, i) => from + i * step);
  it('over 1,000 gaps a segment measured at its old first events do not push its real gaps out', () => {
    // --gap 1s. Before the cut 10 events at +10 h; after it 1,001 events from T, 2 s apart (older than the cut: the
    // segment measures 1,000 gaps one thread never sees), then 6 events from +10 h 1 s, 1.5 s apart (5 real gaps).
    const times = [...steady(10, T + 36_000_000, 10), ...steady(1001, T, 2000), ...steady(6, T + 36_001_000, 1500)];
    const r = both(times, 10, 1000);
    expect((r.whole as { gaps: unknown[] }).gaps).toHaveLength(5);
    expect(r.split).toEqual(r.whole);
    expect(r.inexact).toBe(0);
  });

  it(`exactly ${HEAD_TIMES} older events after the cut are measured again exactly (not counted as inexact)`, () => {
    const times = [...steady(10, T + 36_000_000, 10), ...steady(HEAD_TIMES, T, 100)];
    const r = both(times, 10);
    expect(r.split).toEqual(r.whole);
    expect(r.inexact).toBe(0);
  });
});

describe('replayHead, by hand', () => {
  it('takes out what the segment measured and puts in what one thread measures', () => {
    // prev 100 s; the segment: 90 s, 95 s, 130 s. It measured 90 → 95 (5 s) and 95 → 130 (35 s, a gap).
    // One thread: 90 and 95 are older than 100 (spacing 0, 0), then 100 → 130 (30 s, a gap).
    const s = newSpacingHistogram();
    addSpacing(s, 5000);
    addSpacing(s, 35_000);
    const own: Array<[number, number]> = [[95_000, 130_000]];
    expect(replayHead(100_000, [90_000, 95_000, 130_000], s, own, 5000)).toBe(true);
    const want = newSpacingHistogram();
    addSpacing(want, 0);
    addSpacing(want, 0);
    addSpacing(want, 30_000);
    expect(s).toEqual(want);
    expect(own).toEqual([[100_000, 130_000]]);
  });

  it('stops once the segment has caught up: later events are already measured alike', () => {
    const s = newSpacingHistogram();
    addSpacing(s, 1000);
    addSpacing(s, 1000);
    const own: Array<[number, number]> = [];
    // prev 99 s; the segment's first event (100 s) is past it: one thread adds 99 → 100 (1 s), nothing else changes
    expect(replayHead(99_000, [100_000, 101_000, 102_000], s, own, 5000)).toBe(true);
    const want = newSpacingHistogram();
    for (let i = 0; i < 3; i++) addSpacing(want, 1000);
    expect(s).toEqual(want);
    expect(own).toEqual([]);
  });
});
