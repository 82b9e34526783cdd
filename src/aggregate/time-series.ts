/*! Counts per time bucket, sparse and bounded: past `maxBuckets` non-empty buckets the width doubles and
 * neighbours merge, so days of log cost a fixed amount of memory. Mergeable across threads (widths align to
 * the coarser one). Bucket i covers [i·width, (i+1)·width) ms since the epoch. */

/** A bounded, mergeable histogram over time. */
export class TimeSeries {
  readonly buckets = new Map<number, number>();

  constructor(
    public widthMs = 1000,
    private readonly maxBuckets = 100_000,
  ) {}

  /** Adds `n` at time `ms`. */
  add(ms: number, n = 1): void {
    const b = Math.floor(ms / this.widthMs);
    this.buckets.set(b, (this.buckets.get(b) ?? 0) + n);
    if (this.buckets.size > this.maxBuckets) this.coarsen(this.widthMs * 2);
  }

  /** Re-buckets to a wider width (a multiple of the current one). */
  coarsen(widthMs: number): void {
    if (widthMs <= this.widthMs) return;
    const f = widthMs / this.widthMs;
    const old = [...this.buckets.entries()];
    this.buckets.clear();
    for (const [b, n] of old) {
      const nb = Math.floor(b / f);
      this.buckets.set(nb, (this.buckets.get(nb) ?? 0) + n);
    }
    this.widthMs = widthMs;
    while (this.buckets.size > this.maxBuckets) this.coarsen(this.widthMs * 2);
  }

  /** Adds another series (structured-clone copy or instance) into this one. */
  merge(o: { buckets: Map<number, number>; widthMs: number }): void {
    let other = o;
    if (o.widthMs < this.widthMs) {
      const t = new TimeSeries(o.widthMs, Number.MAX_SAFE_INTEGER);
      for (const [b, n] of o.buckets) t.buckets.set(b, n);
      t.coarsen(this.widthMs);
      other = t;
    } else if (o.widthMs > this.widthMs) {
      this.coarsen(o.widthMs);
    }
    // forEach, not for…of: merges run once, in code not yet optimized, where the entry arrays and the iterator of
    // for…of made the 873 merges of a 1 GB scan's snapshots take 26-31 ms of the main thread, against 10-12
    const mine = this.buckets;
    other.buckets.forEach((n, b) => mine.set(b, (mine.get(b) ?? 0) + n));
    while (this.buckets.size > this.maxBuckets) this.coarsen(this.widthMs * 2);
  }

  /** Total count. */
  total(): number {
    let s = 0;
    for (const n of this.buckets.values()) s += n;
    return s;
  }

  /** Sum of counts in [fromMs, toMs). */
  sumIn(fromMs: number, toMs: number): number {
    const a = Math.floor(fromMs / this.widthMs);
    const b = Math.ceil(toMs / this.widthMs);
    let s = 0;
    if (b - a < this.buckets.size) {
      for (let i = a; i < b; i++) s += this.buckets.get(i) ?? 0;
    } else {
      for (const [i, n] of this.buckets) if (i >= a && i < b) s += n;
    }
    return s;
  }

  /** Sorted [bucketStartMs, count] pairs. */
  points(): Array<[number, number]> {
    return [...this.buckets.entries()].sort((x, y) => x[0] - y[0]).map(([b, n]) => [b * this.widthMs, n]);
  }
}

/** Rebuilds a TimeSeries from a structured-clone copy. */
export function reviveSeries(o: { buckets: Map<number, number>; widthMs: number }, maxBuckets?: number): TimeSeries {
  const t = new TimeSeries(o.widthMs, maxBuckets);
  const mine = t.buckets;
  o.buckets.forEach((n, b) => mine.set(b, n)); // (see merge)
  return t;
}

// ---- sparse helpers: everything below costs O(non-empty buckets), never O(time span) -------------------

/** A series' non-empty buckets as sorted [bucketIndex, count] pairs. */
export function sortedBuckets(s: { buckets: Map<number, number> }): Array<[number, number]> {
  return [...s.buckets.entries()].sort((x, y) => x[0] - y[0]);
}

/** The first index i with pts[i][0] >= idx (pts sorted by index). */
export function lowerBound(pts: ReadonlyArray<readonly [number, number]>, idx: number): number {
  let lo = 0;
  let hi = pts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pts[mid]![0] < idx) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The median of the counts of every bucket in [fromIdx, toIdx), empty buckets (zeros) included, without
 * materialising the zeros: a 10-year span with 100 busy seconds costs what 100 seconds cost. */
export function medianWithZeros(pts: ReadonlyArray<readonly [number, number]>, fromIdx: number, toIdx: number): number {
  const total = toIdx - fromIdx;
  if (total <= 0) return 0;
  const nz: number[] = [];
  for (let i = lowerBound(pts, fromIdx); i < pts.length && pts[i]![0] < toIdx; i++) nz.push(pts[i]![1]);
  nz.sort((a, b) => a - b);
  const zeros = total - nz.length;
  const at = (k: number): number => (k < zeros ? 0 : nz[k - zeros]!);
  return total % 2 ? at((total - 1) / 2) : (at(total / 2 - 1) + at(total / 2)) / 2;
}

/** Largest count in [fromIdx, toIdx) (0 when all empty). */
export function maxIn(pts: ReadonlyArray<readonly [number, number]>, fromIdx: number, toIdx: number): number {
  let m = 0;
  for (let i = lowerBound(pts, fromIdx); i < pts.length && pts[i]![0] < toIdx; i++) if (pts[i]![1] > m) m = pts[i]![1];
  return m;
}

/** The buckets [fromIdx, toIdx) squeezed to at most `n` values, each the largest count of its slot: the same
 * slots as cutting the dense array in n equal parts, computed from the non-empty buckets only. */
export function squeezeSparse(pts: ReadonlyArray<readonly [number, number]>, fromIdx: number, toIdx: number, n: number): number[] {
  const len = Math.max(0, toIdx - fromIdx);
  const out = new Array<number>(Math.min(len, n)).fill(0);
  for (let i = lowerBound(pts, fromIdx); i < pts.length && pts[i]![0] < toIdx; i++) {
    const j = pts[i]![0] - fromIdx;
    // Slot i of n covers [floor(i·len/n), floor((i+1)·len/n)); bucket j falls in slot ceil((j+1)·n/len) − 1.
    const slot = len <= n ? j : Math.floor(((j + 1) * n + len - 1) / len) - 1;
    if (pts[i]![1] > out[slot]!) out[slot] = pts[i]![1];
  }
  return out;
}
