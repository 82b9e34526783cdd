// The latency sketch behind listGroups[].latencyMs, etcdLatencyMs and apfQueueWaitMs: buckets 0.1 ms wide below
// 10 ms and 1% wider each above, percentiles by nearest rank held within the exact min and max.
// Expected values worked out from the bucket rule: above 10 ms, bucket(ms) = 100 + floor(ln(ms/10) / ln 1.01),
// and a bucket stands for 10 × 1.01^(bucket − 100 + 0.5).
import { describe, expect, it } from 'vitest';
import { bucketValue, latencyAdd, latencyBucket, edgesFromTable, latencyEdges, latencyEdges2000, latencyFigures, latencyMerge, newLatency, nextDouble } from '../../src/aggregate/latency.js';
import { LATENCY_EDGES_2000 } from '../../src/aggregate/latency-edges.js';

describe('latencyBucket', () => {
  it.each<[number, number]>([
    [-5, 0], // a clock step back
    [Number.NaN, 0],
    [0, 0],
    [0.05, 0],
    [0.1, 1],
    [0.29, 2],
    [5, 50],
    [9.99, 99],
    [10, 100],
    [20, 169], // ln 2 / ln 1.01 = 69.66
    [50, 261], // ln 5 / ln 1.01 = 161.7
    [1000, 562], // ln 100 / ln 1.01 = 462.8
  ])('%s ms → bucket %i', (ms, b) => expect(latencyBucket(ms)).toBe(b));

  it('a bucket stands for its lower edge below 10 ms and its geometric middle above', () => {
    expect(bucketValue(50)).toBe(5);
    expect(bucketValue(99)).toBe(9.9);
    expect(bucketValue(169)).toBeCloseTo(19.968, 3);
    expect(bucketValue(261)).toBeCloseTo(49.877, 3); // 10 × 1.01^161.5
    expect(bucketValue(100)).toBeCloseTo(10.05, 3); // the first 1% bucket: 10 × 1.01^0.5
  });
});

describe('latencyFigures', () => {
  it('nothing measured: null', () => expect(latencyFigures(newLatency())).toBeNull());

  it('one request gives its own time for every percentile, however wide its bucket', () => {
    const s = newLatency();
    latencyAdd(s, 512.3);
    expect(latencyFigures(s)).toEqual({ p50: 512.3, p90: 512.3, p99: 512.3, max: 512.3, n: 1 });
  });

  it('1..100 ms: the 50th, 90th and 99th values, within 1%, and the exact max', () => {
    const s = newLatency();
    for (let ms = 100; ms >= 1; ms--) latencyAdd(s, ms);
    // ranks 50, 90, 99 hold 50, 90 and 99 ms: buckets 261, 320 and 330, which stand for 49.9, 89.7 and 99.1 ms
    expect(latencyFigures(s)).toEqual({ p50: 49.9, p90: 89.7, p99: 99.1, max: 100, n: 100 });
  });

  it('below 10 ms the figures are exact to 0.1 ms: 9 × 2 ms and 1 × 8 ms', () => {
    const s = newLatency();
    for (let i = 0; i < 9; i++) latencyAdd(s, 2);
    latencyAdd(s, 8);
    // rank 5 → 2 ms; rank 9 → 2 ms; rank 10 (99% of 10, rounded up) → 8 ms
    expect(latencyFigures(s)).toEqual({ p50: 2, p90: 2, p99: 8, max: 8, n: 10 });
  });

  it('a clock step back counts as 0 ms, and does not drag the min below it', () => {
    const s = newLatency();
    latencyAdd(s, -300);
    latencyAdd(s, -1);
    expect(latencyFigures(s)).toEqual({ p50: 0, p90: 0, p99: 0, max: 0, n: 2 });
    expect(s.min).toBe(0);
  });

  it('merging two threads’ sketches gives what one thread would', () => {
    const one = newLatency();
    const a = newLatency();
    const b = newLatency();
    for (let i = 1; i <= 300; i++) {
      const ms = (i * 37) % 1500;
      latencyAdd(one, ms);
      latencyAdd(i % 2 ? a : b, ms);
    }
    latencyMerge(a, b);
    expect(a).toEqual(one);
    expect(latencyFigures(a)).toEqual(latencyFigures(one));
  });

  it('merging keeps the smaller min and the larger max of either side', () => {
    const lo = newLatency();
    const hi = newLatency();
    latencyAdd(lo, 1);
    latencyAdd(lo, 2);
    latencyAdd(hi, 50);
    latencyAdd(hi, 900);
    const a = newLatency();
    latencyMerge(a, lo);
    latencyMerge(a, hi);
    expect([a.min, a.max, a.n]).toEqual([1, 900, 4]);
    const b = newLatency();
    latencyMerge(b, hi);
    latencyMerge(b, lo);
    expect([b.min, b.max, b.n]).toEqual([1, 900, 4]);
  });

  it('memory follows the buckets met, not the requests: 100,000 requests of 1 ms to 1 s use 331 buckets', () => {
    const s = newLatency();
    for (let i = 0; i < 100_000; i++) latencyAdd(s, 1 + (i % 1000));
    // whole ms only: 1–9 ms meet 9 of the 0.1 ms buckets; 10–99 ms one bucket each (1% of them is under 1 ms),
    // 90; from 100 ms every bucket up to 1,000 ms's is met: 331 to 562, 232
    expect(s.buckets.size).toBe(9 + 90 + 232);
    expect(s.n).toBe(100_000);
  });
});

describe('latencyEdges: the compiled aggregator buckets as latencyBucket does', () => {
  const edges = latencyEdges(2000);
  // what slots.ts does with them: 0.1 ms buckets below 10 ms, then the largest j with edges[j] <= v
  const viaEdges = (v: number): number => {
    if (!(v > 0)) return 0;
    if (v < 10) return Math.floor(v * 10 + 1e-9);
    let lo = 0;
    let hi = edges.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (edges[mid]! <= v) lo = mid;
      else hi = mid;
    }
    return 100 + lo;
  };
  it('starts at 10 ms and each edge is the least double of its bucket', () => {
    expect(edges[0]).toBe(10);
    const f = new Float64Array(1);
    const u = new BigUint64Array(f.buffer);
    for (let j = 1; j < edges.length; j++) {
      expect(latencyBucket(edges[j]!)).toBeGreaterThanOrEqual(100 + j);
      f[0] = edges[j]!;
      u[0]! -= 1n; // the double just below
      expect(latencyBucket(f[0]!)).toBeLessThan(100 + j);
    }
  });
  it('the table the scan reads (latency-edges.ts) is latencyEdges(2000), bit for bit (else: node scripts/latency-edges.mjs), and is taken', () => {
    const table = edgesFromTable(LATENCY_EDGES_2000);
    expect(table).not.toBeNull();
    expect(Buffer.from(table!.buffer)).toEqual(Buffer.from(edges.buffer));
    expect(Buffer.from(latencyEdges2000().buffer)).toEqual(Buffer.from(edges.buffer));
    // the table is taken: nothing is made anew
    const made = latencyEdges2000(() => {
      throw new Error('made anew');
    });
    expect(Buffer.from(made.buffer)).toEqual(Buffer.from(edges.buffer));
  });
  const off = (j: number, step: 1 | -1): string => {
    const bad = new Float64Array(edges);
    bad[j] = nextDouble(bad[j]!, step);
    return Buffer.from(bad.buffer).toString('base64');
  };
  it.each([
    // the edges checked: every 7th from 1, and the last
    ['the first checked edge one double too high', 1, 1],
    ['a checked edge one double too high', 1 + 7 * 71, 1],
    ['a checked edge one double too low', 1 + 7 * 200, -1],
    ['the last checked edge before the end one double too low', 1 + 7 * 285, -1],
    ['the last edge one double too high', 1999, 1],
    ['the last edge one double too low', 1999, -1],
    ['the first edge not 10 ms', 0, 1],
  ])('a table with %s is not taken', (_, j, step) => {
    expect(edgesFromTable(off(j as number, step as 1 | -1))).toBeNull();
  });
  it('an edge between the checked ones is not checked (the test above holds the table itself)', () => {
    expect(edgesFromTable(off(2, 1))).not.toBeNull();
  });
  it.each([
    ['none', ''],
    ['one short', Buffer.from(edges.buffer).subarray(8).toString('base64')],
    ['one more', Buffer.concat([Buffer.from(edges.buffer), Buffer.alloc(8)]).toString('base64')],
  ])('a table of the wrong length (%s) is not taken', (_, table) => {
    expect(edgesFromTable(table)).toBeNull();
  });
  it.each([
    // [high word, low word] of x and of the double above it
    [[0x3ff00000, 0], [0x3ff00000, 1]],
    [[0x3ff00000, 0xffffffff], [0x3ff00001, 0]], // a carry into the high word
    [[0x40240000, 0x7fffffff], [0x40240000, 0x80000000]],
  ])('nextDouble steps one double: %j up to %j, and back', (below, above) => {
    const f = new Float64Array(1);
    const u = new Uint32Array(f.buffer);
    const of = ([hi, lo]: number[]): number => {
      u[0] = lo!;
      u[1] = hi!;
      return f[0]!;
    };
    expect(nextDouble(of(below), 1)).toBe(of(above));
    expect(nextDouble(of(above), -1)).toBe(of(below));
  });
  it.each([
    [0, 0],
    [-3, 0],
    [9.99999, 99],
    [10, 100],
    [10.09, 100], // ln(1.009) / ln(1.01) = 0.90
    [10.11, 101], // 1.09
    [250, 423], // ln(25) / ln(1.01) = 323.5
    [3_600_000, 1385], // ln(360,000) / ln(1.01) = 1,285.8
  ])('%s ms', (v, want) => {
    expect(latencyBucket(v)).toBe(want);
    expect(viaEdges(v)).toBe(want);
  });
  it('agrees on 100,000 seeded latencies, at edges and between them', () => {
    let s = 7;
    const rnd = (): number => ((s = (s * 1103515245 + 12345) % 2 ** 31), s / 2 ** 31);
    for (let i = 0; i < 100_000; i++) {
      const v = i % 2 === 0 ? 10 ** (rnd() * 9) : edges[Math.floor(rnd() * edges.length)]! * (1 + (rnd() - 0.5) * 1e-15);
      if (v >= edges[edges.length - 1]!) continue;
      expect(viaEdges(v), String(v)).toBe(latencyBucket(v));
    }
  });
});
