/*! Timestamps that cannot be real for a log (issue 11). Two rules:
 *  - at ingest, fixed: before 1971 (Go's zero time 0001-01-01, the Unix epoch, an unset clock) or more than a day
 *    after now;
 *  - at the end, per input: "far from the rest of the input", decided on a bounded, mergeable sketch of the
 *    input's event times, so the answer does not depend on threads or on where an input was cut.
 * Implausible times are counted per input and left out of the time analysis; their events count everywhere else. */

/** Anything before this is a zero or unset clock, not a Kubernetes audit log (Kubernetes began in 2014). */
export const EARLIEST_PLAUSIBLE_MS = Date.UTC(1971, 0, 1);
/** How far after "now" a clock may run before its times are called implausible. */
export const FUTURE_SLACK_MS = 24 * 3600_000;

/** Why a time was left out of the time analysis. */
export type ImplausibleKind = 'zero' | 'future' | 'far';

/** The fixed rule: 'zero' before 1971, 'future' more than a day after `nowMs`, else null. */
export function implausibleAtIngest(t: number, nowMs: number): ImplausibleKind | null {
  if (t < EARLIEST_PLAUSIBLE_MS) return 'zero';
  if (t > nowMs + FUTURE_SLACK_MS) return 'future';
  return null;
}

/** A sparse histogram of one input's event times: bucket index → [count, earliest ms, latest ms]. Plain data,
 * so it survives structured clone from a worker. Coarsens (width doubles) past MAX_SKETCH_BUCKETS. */
export interface TimeSketch {
  widthMs: number;
  buckets: Map<number, [number, number, number]>;
}

const SKETCH_BASE_MS = 60_000;
const MAX_SKETCH_BUCKETS = 4096;

export function newSketch(): TimeSketch {
  return { widthMs: SKETCH_BASE_MS, buckets: new Map() };
}

/** Adds one plausible event time. */
export function sketchAdd(s: TimeSketch, t: number): void {
  const idx = Math.floor(t / s.widthMs);
  let cell = s.buckets.get(idx);
  if (cell === undefined) {
    cell = [0, t, t];
    s.buckets.set(idx, cell);
  }
  cell[0]++;
  // Stryker disable next-line EqualityOperator: an equal time leaves the earliest as it is
  if (t < cell[1]) cell[1] = t;
  // Stryker disable next-line EqualityOperator: as above, for the latest
  if (t > cell[2]) cell[2] = t;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: fit() itself stops at MAX_SKETCH_BUCKETS, so calling it more often changes nothing
  if (s.buckets.size > MAX_SKETCH_BUCKETS) fit(s);
}

/** Adds cell `c` into the cell at `i` of `m`. */
function addCell(m: Map<number, [number, number, number]>, i: number, c: readonly [number, number, number]): void {
  const d = m.get(i);
  if (d === undefined) m.set(i, [c[0], c[1], c[2]]);
  else {
    d[0] += c[0];
    d[1] = Math.min(d[1], c[1]);
    d[2] = Math.max(d[2], c[2]);
  }
}

/** Doubles the width once: neighbouring buckets merge. */
function double(s: TimeSketch): void {
  const old = [...s.buckets.entries()];
  s.buckets.clear();
  for (const [i, c] of old) addCell(s.buckets, Math.floor(i / 2), c);
  s.widthMs *= 2;
}

/** Coarsens until the sketch fits its bucket budget. */
function fit(s: TimeSketch): void {
  while (s.buckets.size > MAX_SKETCH_BUCKETS) double(s);
}

/** Coarsens to at least `widthMs` (a power-of-two multiple of the base width). */
function widen(s: TimeSketch, widthMs: number): void {
  while (s.widthMs < widthMs) double(s);
}

/** Adds sketch `b` into `a` (a worker's segment into its input). Order-independent: the result is the finest
 * width at which the union fits, whatever the order of merges. */
export function sketchMerge(a: TimeSketch, b: TimeSketch): void {
  let src = b;
  // Stryker disable next-line EqualityOperator: at the same width the copy is widened by nothing and adds the same cells
  if (b.widthMs < a.widthMs) {
    src = { widthMs: b.widthMs, buckets: new Map([...b.buckets].map(([i, c]) => [i, [c[0], c[1], c[2]] as [number, number, number]])) };
    widen(src, a.widthMs);
  } else widen(a, b.widthMs);
  for (const [i, c] of src.buckets) addCell(a.buckets, i, c);
  fit(a);
}

/** A run of event times: [earliest ms, latest ms] and how many events. */
export interface TimeCluster {
  fromMs: number;
  toMs: number;
  events: number;
}

/** Silences at least this long split an input's times into clusters (and at least 10× the main cluster's span). */
export const FAR_GAP_MS = 6 * 3600_000;
/** A cluster with fewer than this share of the input's events, split off by such a silence, is "far away"... */
export const FAR_SHARE = 0.01;
/** ...when the clusters that are not hold at least this share of them. */
export const REST_SHARE = 0.9;

/** Splits an input's times into the clusters it keeps and the ones far from the rest of it.
 * Clusters are separated by silences ≥ max(6 h, 10 × the main cluster's span); a cluster holding under 1% of
 * the input's events is far away, provided the other clusters hold ≥ 90% of them. */
export function splitFar(s: TimeSketch): { kept: TimeCluster[]; far: TimeCluster[] } {
  const pts = [...s.buckets.entries()].sort((x, y) => x[0] - y[0]).map(([, c]) => c);
  let total = 0;
  for (const c of pts) total += c[0];
  let gap = FAR_GAP_MS;
  let clusters = clustersAt(pts, gap);
  for (;;) {
    // The first of the biggest clusters is the main one; its span may call for a longer silence.
    let main = clusters[0];
    for (const c of clusters) if (c.events > main!.events) main = c;
    const wanted = main === undefined ? gap : Math.max(FAR_GAP_MS, 10 * (main.toMs - main.fromMs));
    if (wanted <= gap) break;
    gap = wanted;
    clusters = clustersAt(pts, gap);
  }
  // Under 100 events no cluster can hold under 1%: one event is already 1% or more.
  const kept: TimeCluster[] = [];
  const far: TimeCluster[] = [];
  let keptEvents = 0;
  for (const c of clusters) {
    if (c.events < FAR_SHARE * total) far.push(c);
    else {
      kept.push(c);
      keptEvents += c.events;
    }
  }
  // "Far from the rest" needs a rest: when the big clusters hold under 90% of the events, the times are spread
  // out (a quiet cluster's log over months), not a few strays, and nothing is left out.
  if (keptEvents < REST_SHARE * total) return { kept: clusters, far: [] };
  return { kept, far };
}

/** Runs of sorted buckets, split where the silence between two is at least `gap`. */
function clustersAt(pts: ReadonlyArray<readonly [number, number, number]>, gap: number): TimeCluster[] {
  const out: TimeCluster[] = [];
  for (const [n, lo, hi] of pts) {
    const last = out[out.length - 1];
    // Buckets are disjoint and sorted, so a later bucket's latest time is past the cluster's.
    if (last !== undefined && lo - last.toMs < gap) {
      last.events += n;
      last.toMs = hi;
    } else out.push({ fromMs: lo, toMs: hi, events: n });
  }
  return out;
}

/** true when [fromMs, toMs) overlaps one of `ranges`. */
export function overlapsAny(fromMs: number, toMs: number, ranges: ReadonlyArray<TimeCluster>): boolean {
  for (const r of ranges) if (fromMs <= r.toMs && toMs - 1 >= r.fromMs) return true;
  return false;
}
