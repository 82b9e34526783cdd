/*! Sparklines: counts → ▁▂▃▄▅▆▇█ scaled to the largest, a blank for zero. */

const BARS = '▁▂▃▄▅▆▇█';

/** One character per value. */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values);
  if (max === 0) return ' '.repeat(values.length);
  return values.map((v) => (v <= 0 ? ' ' : BARS[Math.min(7, Math.floor((v / max) * 7.999))])).join('');
}
