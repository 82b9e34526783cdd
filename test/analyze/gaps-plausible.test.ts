// The rules behind issue 11, as pure functions with hand-computed answers: the adaptive gap threshold, the
// fixed plausibility rule, the "far from the rest" clusters, and the copy fingerprints.
import { describe, expect, it } from 'vitest';
import { addSpacing, binSpacingMs, candidateMinMs, gapThresholdMs, humanSeconds, keepLongest, MAX_GAPS, medianSpacingMs, mergeSpacing, newSpacingHistogram, pushGap, spacingBin } from '../../src/aggregate/gaps.js';
import { EARLIEST_PLAUSIBLE_MS, FUTURE_SLACK_MS, implausibleAtIngest, newSketch, overlapsAny, sketchAdd, sketchMerge, splitFar } from '../../src/aggregate/plausible.js';
import { findCopies, fingerprintAdd, fingerprintAddSecond, fingerprintHash, fingerprintMerge, fingerprintTotal, newFingerprint } from '../../src/aggregate/fingerprint.js';

const hist = (...incs: number[]) => {
  const h = newSpacingHistogram();
  for (const i of incs) addSpacing(h, i);
  return h;
};
const binOf = (inc: number): number => hist(inc).findIndex((n) => n > 0);

describe('spacing histogram and the adaptive gap threshold', () => {
  it.each([
    [0, 0],
    [0.5, 0],
    [2.5, 2],
    [100, 100],
    [100.9, 100],
    [999.9, 999],
    [1000, 1000], // then four per doubling from 1 s: 1,000 + floor(4·log2 1)
    [2000, 1004], // 1,000 + 4
    [3000, 1006], // 1,000 + floor(4·1.585) = 1,000 + 6
    [1e300, 1109], // clamped to the last bin
  ])('an advance of %d ms lands in bin %d', (inc, bin) => {
    expect(binOf(inc)).toBe(bin);
  });

  it('each bin stands for its millisecond below 1 s, for its geometric middle above', () => {
    expect([0, 2, 100, 999].map(binSpacingMs)).toEqual([0, 2, 100, 999]);
    expect(binSpacingMs(1000)).toBeCloseTo(1000 * 2 ** (0.5 / 4), 9);
    expect(binSpacingMs(1004)).toBeCloseTo(1000 * 2 ** (4.5 / 4), 9);
    for (const i of [0, 1, 500, 999, 1000, 1004, 1050]) expect(spacingBin(binSpacingMs(i))).toBe(i);
  });

  it('the median is the bin of the lower middle event: exact for millisecond rhythms, 0 when most events do not advance the clock', () => {
    expect(medianSpacingMs(newSpacingHistogram())).toBeNull();
    expect(medianSpacingMs(hist(0, 0, 5))).toBe(0);
    expect(medianSpacingMs(hist(100, 100, 100))).toBe(100);
    // ranks 0..3: the lower middle (rank 1) is the 2 ms step
    expect(medianSpacingMs(hist(0, 2, 1000, 1000))).toBe(2);
    expect(medianSpacingMs(hist(0, 2, 3, 1000))).toBe(2);
    expect(medianSpacingMs(hist(2, 3, 3, 1000))).toBe(3);
  });

  it('merges histograms bin by bin', () => {
    const a = hist(2, 2);
    mergeSpacing(a, hist(2000, 2000, 2000));
    expect(a[2]).toBe(2);
    expect(a[1004]).toBe(3);
    expect(medianSpacingMs(a)).toBeCloseTo(1000 * 2 ** (4.5 / 4), 6);
  });

  it('the threshold: --gap when given; else 100× the median spacing, at least 5 s', () => {
    expect(gapThresholdMs(hist(50), 30_000)).toBe(30_000);
    expect(gapThresholdMs(undefined, null)).toBe(5000);
    // 50 ms: 100× is 5 s exactly; 49 ms gives 4.9 s, so the 5 s floor; 51 ms gives 5.1 s
    expect(gapThresholdMs(hist(50, 50, 50), null)).toBe(5000);
    expect(gapThresholdMs(hist(49, 49, 49), null)).toBe(5000);
    expect(gapThresholdMs(hist(51, 51, 51), null)).toBe(5100);
    // 2 s: bin 1,004, middle 1,000 × 2^(4.5/4) = 2,181.0 ms; 100× = 218.1 s
    expect(gapThresholdMs(hist(2000, 2000), null)).toBeCloseTo(100_000 * 2 ** (4.5 / 4), 6);
    expect(candidateMinMs(null)).toBe(5000);
    expect(candidateMinMs(12_000)).toBe(12_000);
  });

  it('keeps the longest 1,000 gaps, ties by time, listed by time', () => {
    const g: Array<[number, number]> = [];
    for (let i = 0; i < 2500; i++) pushGap(g, i * 1e6, i * 1e6 + 5000 + (i % 7 === 0 ? 100_000 : i));
    const kept = keepLongest(g);
    expect(kept).toHaveLength(MAX_GAPS);
    expect(kept.every(([a, b], k) => k === 0 || a > kept[k - 1]![0])).toBe(true);
    // the 358 gaps of 100 s and more (i divisible by 7) are all kept
    expect(kept.filter(([a, b]) => b - a >= 100_000)).toHaveLength(358);
    // the other 642 are the longest of the rest: i from 1,751 to 2,499 holds 749 numbers, 107 of them multiples of 7
    expect(Math.min(...kept.map(([a, b]) => b - a))).toBe(5000 + 1751);
  });
});

describe('durations as a person reads them', () => {
  it.each([
    [0, '0 s'],
    [44.96, '45 s'],
    [59.9, '59.9 s'],
    [60, '1 min'],
    [400, '6 min 40 s'],
    [3600, '1 h'],
    [7200, '2 h'],
    [22_500, '6 h 15 min'],
    [86_400, '1 d'],
    [2 * 86_400, '2 d'],
    [2 * 86_400 + 59 * 60, '2 d'], // minutes are not shown beside days
    [260 * 86_400 + 18 * 3600, '260 d 18 h'],
  ])('%s s → %s', (sec, text) => {
    expect(humanSeconds(sec)).toBe(text);
  });
});

describe('candidate gaps stay bounded while they are collected', () => {
  it('holds up to 2,000 before cutting to the longest 1,000', () => {
    const g: Array<[number, number]> = [];
    for (let i = 0; i < 2000; i++) pushGap(g, i * 1e6, i * 1e6 + 5000 + i);
    expect(g).toHaveLength(2000);
    pushGap(g, 9e9, 9e9 + 5000);
    expect(g).toHaveLength(1000);
    for (let i = 0; i < 10_000; i++) pushGap(g, 1e10 + i * 1e6, 1e10 + i * 1e6 + 6000);
    expect(g.length).toBeLessThanOrEqual(2000);
  });

  it('among gaps of the same length the earlier ones are kept; kept gaps are listed by start, then by end', () => {
    const g: Array<[number, number]> = [];
    for (let i = 0; i < 1001; i++) g.push([(1000 - i) * 1e6, (1000 - i) * 1e6 + 7000]);
    const kept = keepLongest(g);
    expect(kept[0]).toEqual([0, 7000]);
    expect(kept[kept.length - 1]).toEqual([999e6, 999e6 + 7000]);
    expect(keepLongest([[10, 20_000], [5, 100_000], [10, 15_010]])).toEqual([[5, 100_000], [10, 15_010], [10, 20_000]]);
  });
});

describe('the fixed plausibility rule', () => {
  const now = Date.UTC(2026, 11, 1);
  it.each([
    [Date.UTC(1, 0, 1), 'zero'],
    [0, 'zero'],
    [EARLIEST_PLAUSIBLE_MS - 1, 'zero'],
    [EARLIEST_PLAUSIBLE_MS, null],
    [now, null],
    [now + FUTURE_SLACK_MS, null],
    [now + FUTURE_SLACK_MS + 1, 'future'],
  ])('%d → %s', (t, want) => {
    expect(implausibleAtIngest(t, now)).toBe(want);
  });
  it('the bounds are 1971-01-01 and one day', () => {
    expect(new Date(EARLIEST_PLAUSIBLE_MS).toISOString()).toBe('1971-01-01T00:00:00.000Z');
    expect(FUTURE_SLACK_MS).toBe(86_400_000);
  });
});

const H = 3600_000;
const T0 = Date.UTC(2026, 10, 30, 12);
const sketchOf = (times: number[]) => {
  const s = newSketch();
  for (const t of times) sketchAdd(s, t);
  return s;
};
const spread = (from: number, n: number, step: number) => Array.from({ length: n }, (_, i) => from + i * step);

describe('far from the rest of an input', () => {
  it('fewer than 100 events: nothing is far', () => {
    expect(splitFar(sketchOf([...spread(T0, 98, 1000), T0 - 365 * 24 * H])).far).toEqual([]);
  });

  it('one event a year before 200 others is far; the 200 are kept', () => {
    const { kept, far } = splitFar(sketchOf([T0 - 365 * 24 * H, ...spread(T0, 200, 1000)]));
    expect(far).toEqual([{ fromMs: T0 - 365 * 24 * H, toMs: T0 - 365 * 24 * H, events: 1 }]);
    expect(kept).toEqual([{ fromMs: T0, toMs: T0 + 199_000, events: 200 }]);
  });

  it('a silence under 6 h does not split: an event 5 h 59 m before the rest is kept', () => {
    expect(splitFar(sketchOf([T0 - 6 * H + 60_000, ...spread(T0, 200, 1000)])).far).toEqual([]);
    expect(splitFar(sketchOf([T0 - 6 * H - 60_000, ...spread(T0, 200, 1000)])).far).toHaveLength(1);
  });

  it('the split also waits 10× the main cluster’s span: 200 events over 1 h tolerate a 9 h silence', () => {
    const main = spread(T0, 200, 18_000); // 199 × 18 s = 59.7 min
    expect(splitFar(sketchOf([T0 - 9 * H, ...main])).far).toEqual([]);
    expect(splitFar(sketchOf([T0 - 11 * H, ...main])).far).toHaveLength(1);
  });

  it('a cluster with 1% of the events or more is not far (2 of 200 are kept, 1 of 200 is not)', () => {
    expect(splitFar(sketchOf([T0 - 48 * H, T0 - 48 * H + 1, ...spread(T0, 198, 1000)])).far).toEqual([]);
    expect(splitFar(sketchOf([T0 - 48 * H, ...spread(T0, 199, 1000)])).far).toHaveLength(1);
  });

  it('events spread over years are a quiet log, not strays: the big clusters must hold 90%', () => {
    expect(splitFar(sketchOf(spread(T0, 600, 5 * 24 * H))).far).toEqual([]);
    // 89.5% in one hour and 10.5% spread over a month, one per 3 days: nothing left out
    expect(splitFar(sketchOf([...spread(T0, 179, 10_000), ...spread(T0 + 48 * H, 21, 72 * H)])).far).toEqual([]);
    // 95% in one hour, 5% spread out: the spread ones are far
    expect(splitFar(sketchOf([...spread(T0, 190, 10_000), ...spread(T0 + 48 * H, 10, 72 * H)])).far).toHaveLength(10);
  });

  it('a sketch merged from pieces equals the sketch of the whole (threads and cuts do not matter)', () => {
    // 4,000 events 61 s apart fill 4,000 minutes; 3,000 more 7 s apart fill 350: 4,350 buckets of a minute
    const times = [...spread(T0, 4000, 61_000), ...spread(T0 + 400 * H, 3000, 7000)];
    const whole = sketchOf(times);
    const a = sketchOf(times.slice(0, 2500));
    sketchMerge(a, sketchOf(times.slice(2500)));
    expect(a.widthMs).toBe(whole.widthMs);
    expect([...a.buckets].sort((x, y) => x[0] - y[0])).toEqual([...whole.buckets].sort((x, y) => x[0] - y[0]));
    // more than 4,096 buckets of a minute: the width doubled once; in two-minute buckets the first part covers
    // 0 … floor(61·3,999/120) = 2,032 (2,033 buckets), the second floor(20,993/120) + 1 = 175
    expect(whole.widthMs).toBe(120_000);
    expect(whole.buckets.size).toBe(2033 + 175);
  });

  it('an empty sketch has no clusters; times added out of order give the same clusters, to the millisecond', () => {
    expect(splitFar(newSketch())).toEqual({ kept: [], far: [] });
    const times = [T0 - 365 * 24 * H, ...spread(T0, 200, 1000)];
    const reversed = splitFar(sketchOf([...times].reverse()));
    expect(reversed).toEqual(splitFar(sketchOf(times)));
    // inside one minute, in any order: the cluster runs from the earliest to the latest time
    expect(splitFar(sketchOf([T0 + 30_000, T0 + 5, T0 + 59_999, T0 + 7]))).toEqual({ kept: [{ fromMs: T0 + 5, toMs: T0 + 59_999, events: 4 }], far: [] });
  });

  it('a silence of exactly 6 h splits; 1 ms less does not', () => {
    const main = spread(T0, 200, 100);
    expect(splitFar(sketchOf([T0 - 6 * H, ...main])).far).toHaveLength(1);
    expect(splitFar(sketchOf([T0 - 6 * H + 1, ...main])).far).toEqual([]);
  });

  it('of two clusters of the same size the first is the main one, and its span sets the silence', () => {
    // A: 100 events over 2 h; B: 100 events within a minute, 9 h later; C: one event 8 h after B.
    // With A as the main cluster the silence must be 20 h, so all three are one cluster: nothing far.
    const a = spread(T0, 100, 72_000);
    const b = spread(T0 + 9 * H, 100, 500);
    const c = [T0 + 17 * H + 60_000];
    expect(splitFar(sketchOf([...a, ...b, ...c])).far).toEqual([]);
    // With B first, its 50 s span keeps 6 h: C is alone and far (1 of 201 events, the other 200 kept)
    const later = [...spread(T0 + 30 * H, 100, 72_000)];
    expect(splitFar(sketchOf([...b, ...c, ...later])).far).toEqual([{ fromMs: c[0]!, toMs: c[0]!, events: 1 }]);
  });

  it('exactly 90% in the big clusters is enough for the rest to be far', () => {
    // 900 events in one hour; 100 single events, each two days apart (0.1% each)
    const strays = spread(T0 + 48 * H, 100, 48 * H);
    expect(splitFar(sketchOf([...spread(T0, 900, 4000), ...strays])).far).toHaveLength(100);
    expect(splitFar(sketchOf([...spread(T0, 899, 4000), ...strays])).far).toEqual([]);
  });

  it('4,096 buckets fit at one minute; the 4,097th doubles the width', () => {
    expect(sketchOf(spread(T0, 4096, 60_000)).widthMs).toBe(60_000);
    expect(sketchOf(spread(T0, 4097, 60_000)).widthMs).toBe(120_000);
  });

  it('two sketches merged into exactly 4,096 buckets stay at one minute; one bucket more doubles', () => {
    const a = sketchOf(spread(T0, 2048, 60_000));
    sketchMerge(a, sketchOf(spread(T0 + 2048 * 60_000, 2048, 60_000)));
    expect([a.widthMs, a.buckets.size]).toEqual([60_000, 4096]);
    const b = sketchOf(spread(T0, 2048, 60_000));
    sketchMerge(b, sketchOf(spread(T0 + 2048 * 60_000, 2049, 60_000)));
    expect([b.widthMs, b.buckets.size]).toEqual([120_000, 2049]);
  });

  it('merges a finer sketch into a coarser one and a coarser into a finer, both equal to the whole', () => {
    const fine = spread(T0, 100, 60_000); // 100 minutes
    const coarse = spread(T0 + 1000 * H, 4500, 60_000); // 4,500 minutes: coarsened on its own
    const whole = sketchOf([...fine, ...coarse]);
    const a = sketchOf(fine);
    sketchMerge(a, sketchOf(coarse));
    const b = sketchOf(coarse);
    sketchMerge(b, sketchOf(fine));
    for (const m of [a, b]) {
      expect(m.widthMs).toBe(whole.widthMs);
      expect([...m.buckets].sort((x, y) => x[0] - y[0])).toEqual([...whole.buckets].sort((x, y) => x[0] - y[0]));
    }
    expect(whole.widthMs).toBe(120_000);
  });

  it('overlapsAny is inclusive of a cluster’s last millisecond and exclusive of the range’s end', () => {
    const c = [{ fromMs: 100, toMs: 200, events: 1 }];
    expect(overlapsAny(200, 201, c)).toBe(true);
    expect(overlapsAny(201, 300, c)).toBe(false);
    expect(overlapsAny(0, 100, c)).toBe(false);
    expect(overlapsAny(0, 101, c)).toBe(true);
  });
});

describe('copy fingerprints', () => {
  const fp = (reqs: Array<[number, string]>) => {
    const f = newFingerprint();
    for (const [t, id] of reqs) fingerprintAdd(f, t, id);
    return f;
  };
  const secs = (from: number, to: number) => spread(from, to - from, 1).flatMap((s) => [0, 1, 2].map((k): [number, string] => [T0 + s * 1000 + k * 100, `r-${s}-${k}`]));

  it('finds the seconds an input repeats from an earlier one, and no others', () => {
    const copies = findCopies([fp(secs(0, 10)), fp(secs(5, 15)), fp(secs(20, 25))]);
    expect([...copies.keys()]).toEqual([1]);
    const c = copies.get(1)!;
    expect(c.requests).toBe(15);
    expect(c.of).toEqual([{ input: 0, requests: 15 }]);
    expect(c.skip).toEqual([[1000, spread(Math.floor(T0 / 1000) + 5, 5, 1)]]);
  });

  it('a second that holds one request more or less is not a copy', () => {
    const a = secs(0, 3);
    const b = secs(0, 3).filter(([, id]) => id !== 'r-1-2');
    const c = findCopies([fp(a), fp(b)]).get(1)!;
    expect(c.requests).toBe(6); // seconds 0 and 2; second 1 differs
  });

  it("the engine's per-second sums (fingerprintAddSecond) make the fingerprint fingerprintAdd makes, at any width", () => {
    // requests in 3 seconds, one of them 2 s away (a cell of its own at 1 s, shared with its neighbour at 2 s)
    const reqs: Array<[number, string]> = [[T0 + 10, 'a'], [T0 + 900, 'b'], [T0 + 1200, 'c'], [T0 + 3100, 'd'], [T0 + 3999, 'e']];
    for (const width of [1000, 2000, 8000]) {
      const one = newFingerprint();
      one.widthMs = width;
      for (const [t, id] of reqs) fingerprintAdd(one, t, id);
      // the module's cells: per second, the count and the two hash sums mod 2^32, each kind on its own
      const sums = new Map<number, [number, number, number]>();
      for (const [t, id] of reqs) {
        const sec = Math.floor(t / 1000);
        const [h1, h2] = fingerprintHash(id);
        const c = sums.get(sec) ?? [0, 0, 0];
        sums.set(sec, [c[0] + 1, (c[1] + h1) >>> 0, (c[2] + h2) >>> 0]);
      }
      const two = newFingerprint();
      two.widthMs = width;
      for (const [sec, [n, h1, h2]] of sums) {
        fingerprintAddSecond(two, sec, n, 0, 0);
        fingerprintAddSecond(two, sec, 0, h1, 0);
        fingerprintAddSecond(two, sec, 0, 0, h2);
      }
      expect(two).toEqual(one);
      expect(fingerprintTotal(two)).toBe(5);
    }
  });

  it('past 100,000 busy seconds the per-second sums double the width as fingerprintAdd does', () => {
    const one = newFingerprint();
    const two = newFingerprint();
    for (let s = 0; s <= 100_000; s++) {
      fingerprintAdd(one, s * 1000, `r${s}`);
      const [h1, h2] = fingerprintHash(`r${s}`);
      fingerprintAddSecond(two, s, 1, h1, h2);
    }
    expect(two.widthMs).toBe(2000);
    expect(two).toEqual(one);
  });

  it('a request repeated by a third input counts once against the first', () => {
    const copies = findCopies([fp(secs(0, 4)), fp(secs(0, 4)), fp(secs(0, 4))]);
    expect(copies.get(2)!.of).toEqual([{ input: 0, requests: 12 }]);
  });

  // Hand-built fingerprints: second → [requests, sum of low hashes, sum of high hashes].
  const cells = (...cs: Array<[number, number, number, number]>) => ({ widthMs: 1000, cells: new Map(cs.map(([i, n, a, b]) => [i, [n, a, b] as [number, number, number]])) });

  it('a window matches only when all three numbers match', () => {
    const first = cells([10, 3, 7, 9]);
    expect(findCopies([first, cells([10, 3, 7, 9])]).get(1)!.requests).toBe(3);
    expect(findCopies([first, cells([10, 4, 7, 9])]).has(1)).toBe(false);
    expect(findCopies([first, cells([10, 3, 8, 9])]).has(1)).toBe(false);
    expect(findCopies([first, cells([10, 3, 7, 8])]).has(1)).toBe(false);
    expect(findCopies([first, cells([11, 3, 7, 9])]).has(1)).toBe(false);
  });

  it('the windows a later input repeats from two earlier ones are left out together', () => {
    const c = findCopies([cells([1, 2, 5, 5]), cells([2, 3, 6, 6]), cells([1, 2, 5, 5], [2, 3, 6, 6], [3, 1, 1, 1])]).get(2)!;
    expect(c.of).toEqual([{ input: 0, requests: 2 }, { input: 1, requests: 3 }]);
    expect(c.skip).toEqual([[1000, [1, 2]]]);
  });

  it('merged to exactly 100,000 busy seconds a fingerprint stays at 1 s; one more doubles it', () => {
    const secsFrom = (from: number, n: number) => spread(from, n, 1).map((s): [number, string] => [T0 + s * 1000, `e-${s}`]);
    const a = fp(secsFrom(0, 50_000));
    fingerprintMerge(a, fp(secsFrom(50_000, 50_000)));
    expect([a.widthMs, a.cells.size, fingerprintTotal(a)]).toEqual([1000, 100_000, 100_000]);
    const b = fp(secsFrom(0, 50_000));
    fingerprintMerge(b, fp(secsFrom(50_000, 50_001)));
    expect([b.widthMs, fingerprintTotal(b)]).toEqual([2000, 100_001]);
  });

  it('windows repeated from two earlier inputs at two widths are listed per width', () => {
    const at = (widthMs: number, ...cs: Array<[number, number, number, number]>) => ({ ...cells(...cs), widthMs });
    // input 2 (1 s) repeats window 10 of input 0 (1 s), and at 2 s window 20 of input 1 (2 s)
    const c = findCopies([at(1000, [10, 1, 2, 5]), at(2000, [20, 1, 3, 6]), at(1000, [10, 1, 2, 5], [40, 1, 3, 6])]).get(2)!;
    expect(c.of).toEqual([{ input: 0, requests: 1 }, { input: 1, requests: 1 }]);
    expect(c.skip).toEqual([[1000, [10]], [2000, [20]]]);
  });

  it('compares inputs at the coarser of their two widths', () => {
    // 100,001 busy seconds do not fit: that fingerprint doubles its window to 2 s
    const big = fp(spread(0, 100_001, 1).map((s): [number, string] => [T0 + s * 1000, `b-${s}`]));
    expect(big.widthMs).toBe(2000);
    // seconds 10–19 again, alone: a fingerprint at 1 s; compared at 2 s, windows 5–9 match
    const part = fp(spread(10, 10, 1).map((s): [number, string] => [T0 + s * 1000, `b-${s}`]));
    expect(part.widthMs).toBe(1000);
    const c = findCopies([big, part]).get(1)!;
    expect(c.requests).toBe(10);
    expect(c.skip).toEqual([[2000, spread(Math.floor(T0 / 2000) + 5, 5, 1)]]);
    // the other way round: the coarse one is later, and repeats the windows the fine one has whole
    expect(findCopies([part, big]).get(1)!.requests).toBe(10);
  });

  it('merges a coarser segment into a finer one and the other way, equal to one pass', () => {
    // 100,011 busy seconds: the last 100,001 alone are already at 2 s, the first 10 at 1 s
    const all = spread(0, 100_011, 1).map((s): [number, string] => [T0 + s * 1000, `m-${s}`]);
    const whole = fp(all);
    expect([whole.widthMs, fp(all.slice(10)).widthMs, fp(all.slice(0, 10)).widthMs]).toEqual([2000, 2000, 1000]);
    const fine = fp(all.slice(0, 10));
    fingerprintMerge(fine, fp(all.slice(10)));
    const coarse = fp(all.slice(10));
    fingerprintMerge(coarse, fp(all.slice(0, 10)));
    for (const m of [fine, coarse]) {
      expect(m.widthMs).toBe(whole.widthMs);
      expect([...m.cells].sort((x, y) => x[0] - y[0])).toEqual([...whole.cells].sort((x, y) => x[0] - y[0]));
    }
  });

  it('merging segments gives the same fingerprint as one pass', () => {
    const all = secs(0, 50);
    const whole = fp(all);
    const a = fp(all.slice(0, 70));
    fingerprintMerge(a, fp(all.slice(70)));
    expect([...a.cells].sort((x, y) => x[0] - y[0])).toEqual([...whole.cells].sort((x, y) => x[0] - y[0]));
    expect(fingerprintTotal(a)).toBe(150);
  });
});
