/*! Counts for people: 4800 → "4,800", as `toLocaleString('en-US')` writes them, without loading ICU's number
 * formatting (about 6–12 ms at the first call, paid by every scan that names a count). */

/** `n` rounded, its digits grouped by threes with commas; what ICU alone writes (∞, NaN, 1e21 and above, -0)
 * still comes from it. */
export function formatCount(n: number): string {
  const r = Math.round(n);
  // Stryker disable next-line ConditionalExpression,BooleanLiteral: ICU for every value writes the same strings (the tests hold the two equal); only slower
  if (!Number.isFinite(r) || Math.abs(r) >= 1e21 || Object.is(r, -0)) return r.toLocaleString('en-US');
  const s = String(Math.abs(r));
  let out = s.slice(0, ((s.length - 1) % 3) + 1);
  for (let i = out.length; i < s.length; i += 3) out += ',' + s.slice(i, i + 3);
  return r < 0 ? '-' + out : out;
}
