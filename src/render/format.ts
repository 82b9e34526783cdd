/*! Number and time formatting shared by the human-readable renderers. */

export { formatBytes, formatCount } from '../analyze/report.js';

/** null → "–", else the formatted value. */
export function orDash<T>(v: T | null | undefined, f: (x: T) => string): string {
  return v === null || v === undefined ? '–' : f(v);
}

/** "2026-01-02T03:04:05.678Z" → "03:04:05" (or with the date when the scan spans days). */
export function shortTime(iso: string | null, withDate: boolean): string {
  if (iso === null) return '–';
  return withDate ? iso.slice(5, 19).replace('T', ' ') : iso.slice(11, 19);
}

/** An amplification ratio: "64.8×". */
export const formatRatio = (x: number): string => `${x >= 100 ? Math.round(x) : x}×`;
