// A small line diff for golden updates: what changed, as - and + lines with their context, LCS-based.

/** The lines removed (-, numbered in the old text) and added (+, numbered in the new one), at most `max`. */
export function lineDiff(before: string, after: string, max = 40): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Trim the common head and tail so the quadratic table only covers what changed.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const n = x.length;
  const m = y.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while ((i < n || j < m) && out.length < max) {
    if (i < n && j < m && x[i] === y[j]) {
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`-${head + i + 1}: ${x[i++]}`);
    else out.push(`+${head + j + 1}: ${y[j++]}`);
  }
  if (i < n || j < m) out.push('… (more changes)');
  return out;
}
