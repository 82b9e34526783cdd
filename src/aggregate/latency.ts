/*! Latency percentiles per group, from a sparse, mergeable histogram: exact to 0.1 ms below 10 ms, within 1%
 * above. Memory grows with the distinct buckets a group meets (a few dozen; at most about 1,400 for latencies
 * from 0 to an hour), never with its requests. */

import { LATENCY_EDGES_2000 } from './latency-edges.js';

/** bucket index → count, plus the exact smallest and largest values and the count. Plain data: survives
 * structured clone. */
export interface LatencySketch {
  buckets: Map<number, number>;
  n: number;
  min: number;
  max: number;
}

/** Below this, buckets are 0.1 ms wide; above, each is 1% wider than the last. */
const LINEAR_MS = 10;
const LINEAR_BUCKETS = LINEAR_MS * 10;
const LOG_STEP = Math.log(1.01);

export function newLatency(): LatencySketch {
  return { buckets: new Map(), n: 0, min: Infinity, max: 0 };
}

/** The bucket of `ms` (negative values, a clock step back, count as 0). */
export function latencyBucket(ms: number): number {
  // Stryker disable next-line EqualityOperator: 0 falls in bucket 0 either way
  if (!(ms > 0)) return 0;
  // Stryker disable next-line EqualityOperator: 10 ms is bucket 100 by either rule
  if (ms < LINEAR_MS) return Math.floor(ms * 10 + 1e-9);
  return LINEAR_BUCKETS + Math.floor(Math.log(ms / LINEAR_MS) / LOG_STEP);
}

/** The value a bucket stands for: its lower edge below 10 ms, its geometric middle above. */
export function bucketValue(b: number): number {
  if (b < LINEAR_BUCKETS) return b / 10;
  return LINEAR_MS * Math.exp((b - LINEAR_BUCKETS + 0.5) * LOG_STEP);
}

export function latencyAdd(s: LatencySketch, ms: number): void {
  // Stryker disable next-line EqualityOperator: 0 either way
  const v = ms > 0 ? ms : 0; // a clock step back counts as 0, as its bucket does
  const b = latencyBucket(v);
  s.buckets.set(b, (s.buckets.get(b) ?? 0) + 1);
  s.n++;
  // Stryker disable next-line EqualityOperator: an equal value changes nothing
  if (v < s.min) s.min = v;
  // Stryker disable next-line EqualityOperator: as above
  if (v > s.max) s.max = v;
}

export function latencyMerge(a: LatencySketch, b: LatencySketch): void {
  const mine = a.buckets;
  b.buckets.forEach((n, k) => mine.set(k, (mine.get(k) ?? 0) + n)); // forEach: see TimeSeries.merge
  a.n += b.n;
  // Stryker disable next-line EqualityOperator: an equal value changes nothing
  if (b.min < a.min) a.min = b.min;
  // Stryker disable next-line EqualityOperator: as above
  if (b.max > a.max) a.max = b.max;
}

/** The figures a report gives: nearest-rank p50, p90, p99 (ms, to 0.1 ms), the exact max, and the count. A
 * percentile is its bucket's value held within the exact min and max, so one request, or requests that all took
 * the same time, give their time exactly. */
export interface LatencyFigures {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  n: number;
}

export function latencyFigures(s: LatencySketch): LatencyFigures | null {
  if (s.n === 0) return null;
  const keys = [...s.buckets.keys()].sort((x, y) => x - y);
  const at = (p: number): number => {
    const rank = Math.max(1, Math.ceil((p / 100) * s.n));
    let seen = 0;
    for (const k of keys) {
      seen += s.buckets.get(k)!;
      if (seen >= rank) return round1(Math.min(Math.max(bucketValue(k), s.min), s.max));
    }
    return round1(s.max);
  };
  return { p50: at(50), p90: at(90), p99: at(99), max: round1(s.max), n: s.n };
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** Adds `n` to bucket `b` alone (the compiled aggregator's latency buckets: it counts n, min and max itself). */
export function latencyAddBucket(s: LatencySketch, b: number, n: number): void {
  s.buckets.set(b, (s.buckets.get(b) ?? 0) + n);
}

/** Edges for the compiled aggregator (decode/engine/assembly/slots.ts): edges[j] is the least latency (ms) whose
 * latencyBucket() is LINEAR_BUCKETS + j or more. Settled with latencyBucket() itself, so that a bucket found among
 * them is the one this module gives to the last bit (latencyBucket is monotone): from the edge's closed form,
 * 10·1.01^j, which rounding leaves a few doubles off, stepped one double at a time until the double below is in a
 * lower bucket and the edge itself is not. About 4 latencyBucket() calls an edge: under 1 ms for 2,000 edges, where
 * a bisection from the edge before took 20-30 ms of every scan thread's start. */
export function latencyEdges(n: number): Float64Array {
  const out = new Float64Array(n);
  out[0] = LINEAR_MS; // the log buckets start at 10 ms (below it, the linear rule; slots.ts follows it too)
  // Stryker disable next-line EqualityOperator: an edge past the end is computed and not kept (a typed array ignores it)
  for (let j = 1; j < n; j++) {
    const target = LINEAR_BUCKETS + j;
    let e = LINEAR_MS * Math.exp(j * LOG_STEP);
    while (latencyBucket(e) < target) e = nextDouble(e, 1);
    for (;;) {
      const below = nextDouble(e, -1);
      if (latencyBucket(below) < target) break;
      e = below;
    }
    out[j] = e;
  }
  return out;
}

/** latencyEdges(2000), the compiled aggregator's edges: 2,000 buckets past 10 ms reach 10·1.01^1999 ms, about 49
 * days. Read from the table scripts/latency-edges.mjs wrote (latency-edges.ts): settling them one double at a time
 * ran in cold code at every scan thread's start, 20-30 ms of the main thread's (--cpu-prof). V8's Math.log is its
 * own (fdlibm's, the same on every platform), and the test holds the table to latencyEdges(2000) bit for bit; as a
 * guard against a V8 whose Math.log rounds differently, every 7th edge and the last are checked against
 * latencyBucket() here, and the edges made anew when one is off. */
export function latencyEdges2000(make: (n: number) => Float64Array = latencyEdges): Float64Array {
  return edgesFromTable(LATENCY_EDGES_2000) ?? make(2000);
}

/** The 2,000 edges a table holds (base64 of the doubles' bytes, little-endian), or null when it is not 2,000 of
 * them or a checked edge is off (latencyEdges2000). */
export function edgesFromTable(table: string): Float64Array | null {
  const bytes = Buffer.from(table, 'base64');
  if (bytes.length !== 2000 * 8) return null;
  const edges = new Float64Array(2000);
  new Uint8Array(edges.buffer).set(bytes);
  if (edges[0] !== LINEAR_MS) return null;
  // Stryker disable next-line EqualityOperator: j runs 1, 8, …, 1996, 2003: never 2000
  for (let j = 1; j < 2000; j += 7) if (!isEdge(edges[j]!, LINEAR_BUCKETS + j)) return null;
  return isEdge(edges[1999]!, LINEAR_BUCKETS + 1999) ? edges : null;
}

/** `e` is the least double whose latencyBucket() is `bucket` or more. */
function isEdge(e: number, bucket: number): boolean {
  return latencyBucket(e) >= bucket && latencyBucket(nextDouble(e, -1)) < bucket;
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer); // little-endian: [low, high]

/** The double next to a positive finite `x`, above (`step` 1) or below (-1): its bit pattern plus or minus one. */
export function nextDouble(x: number, step: 1 | -1): number {
  F64[0] = x;
  const low = U32[0]! + step;
  U32[0] = low; // wraps modulo 2^32
  // a carry into (or a borrow from) the high word
  if (low === 0x1_0000_0000) U32[1]!++;
  else if (low === -1) U32[1]!--;
  return F64[0]!;
}
