/*! Copies of one log given as two inputs (a must-gather next to a shipper's export, a file and its .gz):
 * each input keeps, per second of requestReceivedTimestamp, the number of requests it counted and two sums of
 * their auditID hashes. Two inputs holding the same requests in a second have the same three numbers there;
 * different requests practically never do. Seconds, not minutes: an excerpt of a log shares whole seconds with
 * it, and only the partial second at each end of an overlap can be counted twice. Memory grows with the seconds
 * that have traffic, not with requests (bounded: the width doubles past MAX_CELLS, about 28 busy hours), and a
 * fingerprint is a pure sum, so it does not depend on threads or cuts. */

/** window (at widthMs) → [requests, sum of hash lows, sum of hash highs] (sums mod 2^32). */
export interface Fingerprint {
  widthMs: number;
  cells: Map<number, [number, number, number]>;
}

const BASE_MS = 1000;
const MAX_CELLS = 100_000;

export function newFingerprint(): Fingerprint {
  return { widthMs: BASE_MS, cells: new Map() };
}

/** Two 32-bit hashes of a string in one pass (multiply-xorshift, in the style of cyrb53). */
function hash2(s: string): [number, number] {
  let a = 0x9e3779b9;
  let b = 0x85ebca6b;
  // Stryker disable next-line EqualityOperator: one more round with NaN (read as 0) is still a consistent hash
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x9e3779b1);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b) ^ Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b) ^ Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  return [a >>> 0, b >>> 0];
}

/** Adds one counted request received at `t` with auditID `id`. */
export function fingerprintAdd(f: Fingerprint, t: number, id: string): void {
  const idx = Math.floor(t / f.widthMs);
  const [h1, h2] = hash2(id);
  addCell(f.cells, idx, [1, h1, h2]);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: fit() itself stops at MAX_CELLS, so calling it more often changes nothing
  if (f.cells.size > MAX_CELLS) fit(f);
}

/** Adds what the engine's aggregator counted in second `sec` of the received times (slots.ts P_FP_*): `n`
 * requests, `h1` and `h2` the sums mod 2^32 of their IDs' hashes. A part of a cell (say only its h1) may come alone:
 * the cells are sums. */
export function fingerprintAddSecond(f: Fingerprint, sec: number, n: number, h1: number, h2: number): void {
  addCell(f.cells, Math.floor(sec / (f.widthMs / BASE_MS)), [n, h1 >>> 0, h2 >>> 0]);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: fit() itself stops at MAX_CELLS, so calling it more often changes nothing
  if (f.cells.size > MAX_CELLS) fit(f);
}

/** hash2() of a string, for the tests that hold the engine's to it. */
export const fingerprintHash = (s: string): [number, number] => hash2(s);

function addCell(m: Map<number, [number, number, number]>, i: number, c: readonly [number, number, number]): void {
  const d = m.get(i);
  if (d === undefined) m.set(i, [c[0], c[1], c[2]]);
  else {
    d[0] += c[0];
    // Stryker disable next-line ArithmeticOperator: sums and differences mod 2^32 are both order-independent fingerprints
    d[1] = (d[1] + c[1]) >>> 0;
    // Stryker disable next-line ArithmeticOperator: as above
    d[2] = (d[2] + c[2]) >>> 0;
  }
}

/** Doubles the window once: neighbouring cells merge. */
function double(f: Fingerprint): void {
  const old = [...f.cells.entries()];
  f.cells.clear();
  for (const [i, c] of old) addCell(f.cells, Math.floor(i / 2), c);
  f.widthMs *= 2;
}

function fit(f: Fingerprint): void {
  while (f.cells.size > MAX_CELLS) double(f);
}

/** A copy of `f` at a width at least `widthMs`. */
function at(f: Fingerprint, widthMs: number): Fingerprint {
  const c: Fingerprint = { widthMs: f.widthMs, cells: new Map([...f.cells].map(([i, x]) => [i, [x[0], x[1], x[2]] as [number, number, number]])) };
  while (c.widthMs < widthMs) double(c);
  return c;
}

/** Adds `b` into `a` (a segment into its input). */
export function fingerprintMerge(a: Fingerprint, b: Fingerprint): void {
  // Stryker disable next-line EqualityOperator,ConditionalExpression: at equal widths, or a b wider than a, at() widens the copy of b by nothing and it adds the same cells
  const src = b.widthMs < a.widthMs ? at(b, a.widthMs) : b;
  while (a.widthMs < src.widthMs) double(a);
  for (const [i, c] of src.cells) addCell(a.cells, i, c);
  fit(a);
}

/** Time windows of one input to leave out when it is read again: [widthMs, window indexes]. */
export type SkipWindows = Array<[number, number[]]>;

/** What comparing the inputs found, for one input. */
export interface CopyFinding {
  /** requests in windows where an earlier input holds the same requests */
  requests: number;
  /** the earlier inputs it repeats, with the requests repeated from each */
  of: Array<{ input: number; requests: number }>;
  skip: SkipWindows;
}

/** Compares every input with the earlier ones; a window equal in both is repeated in the later one. */
export function findCopies(fingerprints: ReadonlyArray<Fingerprint>): Map<number, CopyFinding> {
  const out = new Map<number, CopyFinding>();
  for (let j = 1; j < fingerprints.length; j++) {
    const fj = fingerprints[j]!;
    const taken = new Map<number, Set<number>>(); // width → windows of j already matched
    const finding: CopyFinding = { requests: 0, of: [], skip: [] };
    for (let i = 0; i < j; i++) {
      const fi = fingerprints[i]!;
      const w = Math.max(fi.widthMs, fj.widthMs);
      const a = at(fi, w);
      const b = at(fj, w);
      let seen = taken.get(w);
      if (seen === undefined) taken.set(w, (seen = new Set()));
      let n = 0;
      const windows: number[] = [];
      for (const [idx, c] of b.cells) {
        if (seen.has(idx)) continue;
        const d = a.cells.get(idx);
        if (d !== undefined && d[0] === c[0] && d[1] === c[1] && d[2] === c[2]) {
          seen.add(idx);
          windows.push(idx);
          n += c[0];
        }
      }
      if (n === 0) continue;
      finding.requests += n;
      finding.of.push({ input: i, requests: n });
      const entry = finding.skip.find(([width]) => width === w);
      if (entry) entry[1].push(...windows);
      else finding.skip.push([w, windows]);
    }
    if (finding.requests > 0) out.set(j, finding);
  }
  return out;
}

/** Total requests a fingerprint counted. */
export function fingerprintTotal(f: Fingerprint): number {
  let n = 0;
  for (const c of f.cells.values()) n += c[0];
  return n;
}
