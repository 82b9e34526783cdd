/*! Pauses in one input's audit stream (restarts, log loss), measured against that input's own rhythm
 * (issue 11): a pause counts when it is ≥ 100× the input's median spacing between events and ≥ 5 s, so a
 * 10–30 s silence on a busy apiserver is found and a quiet cluster's normal spacing is not. `--gap` sets a
 * fixed threshold instead. Everything here is mergeable across segments and bounded. */

/** No pause shorter than this is a gap, whatever the input's rhythm. */
export const MIN_GAP_MS = 5000;
/** A pause this many times the input's median spacing is a gap (when no --gap is given). */
export const ADAPTIVE_GAP_FACTOR = 100;
/** Most gaps kept per input: the longest, so the cap never hides a long pause behind many short ones. */
export const MAX_GAPS = 1000;

/** Bins of the spacing histogram: whole milliseconds below 1 s (event times are read to the millisecond, so
 * a 100 ms rhythm reads as exactly 100 ms), then four per doubling from 1 s. */
const MS_BINS = 1000; // [0, 1000) ms in 1 ms
const LOG_BINS = 110; // [1 s, 2^27.5 s) in quarter doublings
const HIST_BINS = MS_BINS + LOG_BINS;

/** A histogram of the advances of an input's latest event time (0 when an event did not advance it). */
export type SpacingHistogram = number[];

export function newSpacingHistogram(): SpacingHistogram {
  return new Array<number>(HIST_BINS).fill(0);
}

/** The bin of an advance of `inc` ms. */
export function spacingBin(inc: number): number {
  if (inc < MS_BINS) return Math.max(0, Math.floor(inc));
  return Math.min(HIST_BINS - 1, MS_BINS + Math.floor(Math.log2(inc / 1000) * 4));
}

/** The spacing a bin stands for: its millisecond below 1 s, its geometric middle above. */
export function binSpacingMs(i: number): number {
  return i < MS_BINS ? i : 1000 * 2 ** ((i - MS_BINS + 0.5) / 4);
}

/** Counts one advance of `inc` ms. */
export function addSpacing(h: SpacingHistogram, inc: number): void {
  h[spacingBin(inc)]!++;
}

export function mergeSpacing(a: SpacingHistogram, b: SpacingHistogram): void {
  // Stryker disable next-line EqualityOperator: one bin past the end is never read (see stryker.equivalent.md)
  for (let i = 0; i < HIST_BINS; i++) a[i]! += b[i] ?? 0;
}

/** The median advance in ms (see binSpacingMs), or null with no events. */
export function medianSpacingMs(h: SpacingHistogram): number | null {
  let n = 0;
  for (const c of h) n += c;
  if (n === 0) return null;
  const rank = Math.floor((n - 1) / 2);
  let seen = 0;
  for (let i = 0; i < HIST_BINS; i++) {
    seen += h[i]!;
    if (seen > rank) return binSpacingMs(i);
  }
  return null;
}

/** The pause that makes a gap in an input: --gap when given, else max(5 s, 100 × median spacing). */
export function gapThresholdMs(h: SpacingHistogram | undefined, flagMs: number | null): number {
  if (flagMs !== null) return flagMs;
  const m = h === undefined ? null : medianSpacingMs(h);
  return Math.max(MIN_GAP_MS, ADAPTIVE_GAP_FACTOR * (m ?? 0));
}

/** The smallest pause recorded as a candidate during the scan (the threshold is only known at the end). */
export function candidateMinMs(flagMs: number | null): number {
  return flagMs === null ? MIN_GAP_MS : flagMs;
}

/** Adds a candidate gap; keeps the list bounded (the longest MAX_GAPS, ties by time). */
export function pushGap(gaps: Array<[number, number]>, from: number, to: number): void {
  gaps.push([from, to]);
  if (gaps.length > 2 * MAX_GAPS) keepLongest(gaps);
}

/** Cuts `gaps` to the longest MAX_GAPS in place, then sorts them by time: a function of the set of gaps only,
 * so it does not depend on how the input was split into segments. */
export function keepLongest(gaps: Array<[number, number]>): Array<[number, number]> {
  gaps.sort((x, y) => y[1] - y[0] - (x[1] - x[0]) || x[0] - y[0]);
  // Stryker disable next-line EqualityOperator: cutting a list of exactly MAX_GAPS to MAX_GAPS changes nothing
  if (gaps.length > MAX_GAPS) gaps.length = MAX_GAPS;
  gaps.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  return gaps;
}

/** 45 s, 6 min 40 s, 6 h 15 min, 260 d 18 h: a duration as a person reads it. */
export function humanSeconds(sec: number): string {
  if (sec < 60) return `${Math.round(sec * 10) / 10} s`;
  const s = Math.round(sec);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  const r = s % 60;
  return r > 0 ? `${m} min ${r} s` : `${m} min`;
}
