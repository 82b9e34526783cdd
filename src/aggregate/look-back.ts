/*! An input's look-back across segments: its last `cap` final-stage auditIDs over the segments reconciled so far,
 * the segments' tails laid end to end (an ID may stand in it twice: once in each of two segments' tails), and
 * which of a segment's IDs are among them. reconcile() asks it once a segment, for the segment's head events and
 * leftovers together (findAll).
 *
 * The IDs stay in the tails they came in (id-keys.ts IdTail: keys laid end to end); the window is the list of
 * those tails and where in the first of them it begins, so a tail joins it in one step, whatever its length. The
 * asked IDs are few (a segment's first second or so of requests: 502 a segment of the 1 GB bench log, against a
 * window of 65,536), so the question is answered from their side: a small table of their hashes, and one pass over
 * the window's hashes (the engine's module hands them with the tail), a hit verified on the key's bytes. Per ID of
 * the window: a load and a probe of that small table, no string, no Map. This pass used to be a table of the whole
 * window, each tail's IDs put in it as the tail came, deleted one by one as they left: a 1 MB table and three
 * writes an ID, interpreted (the scan's tail runs where V8 has not compiled it: src/cli/prewarm.ts), 13-15 ms of
 * the main thread's time at the end of a 1 GB scan, and 4 MB made for each input of a scan of small files. */

import { writeKey, keyCapacity, keyHash, type IdTail } from '../decode/id-keys.js';

export class LookBack {
  /** the tails the window spans, oldest first; it begins at `first` in the oldest */
  private readonly tails: IdTail[] = [];
  private first = 0;
  /** how many IDs the window holds */
  private count = 0;
  private scratch = Buffer.allocUnsafe(256);

  constructor(private readonly cap: number) {}

  /** IDs in the window. */
  get size(): number {
    return this.count;
  }

  /** Appends a segment's tail: its IDs enter, oldest first, and as many of the oldest in the window leave. */
  push(tail: IdTail): void {
    const n = tail.ends.length;
    // Stryker disable next-line ConditionalExpression: a shortcut; an empty tail in the list holds no ID of the window
    if (n === 0) return;
    this.tails.push(tail);
    this.count += n;
    while (this.count > this.cap) {
      const over = this.count - this.cap;
      const left = this.tails[0]!.ends.length - this.first;
      // Stryker disable next-line EqualityOperator: at over = left the oldest tail stays with none of its IDs in the window, and leaves at the next push
      if (over < left) {
        this.first += over;
        this.count -= over;
      } else {
        this.tails.shift();
        this.first = 0;
        this.count -= left;
      }
    }
  }

  /** Whether `id` is in the window (the tests ask so; one pass over the window each time: reconcile() asks
   * findAll() once a segment). */
  has(id: string): boolean {
    return this.findAll([id]).size > 0;
  }

  /** Those of `ids` that are in the window. */
  findAll(ids: readonly string[]): Set<string> {
    const found = new Set<string>();
    const n = ids.length;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; an empty window or no ID asked finds nothing either
    if (this.count === 0 || n === 0) return found;
    // The asked keys end to end in the scratch (from[q] to from[q + 1]), and a table of them by hash (linear
    // probing, at most a quarter full; query index + 1, 0 empty).
    let room = 0;
    for (let q = 0; q < n; q++) room += keyCapacity(ids[q]!);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a new scratch more often holds the same keys
    if (room > this.scratch.length) this.scratch = Buffer.allocUnsafe(room * 2);
    const key = this.scratch;
    const from = new Uint32Array(n + 1);
    const hash = new Uint32Array(n);
    let size = 16;
    // Stryker disable next-line EqualityOperator: at most a quarter full or a little more: the same answers
    while (size < n * 4) size *= 2;
    const table = new Uint32Array(size);
    const mask = size - 1;
    let at = 0;
    for (let q = 0; q < n; q++) {
      const s = at;
      at += writeKey(ids[q]!, key, at);
      const h = keyHash(key, s, at);
      from[q] = s;
      hash[q] = h;
      let j = h & mask;
      while (table[j] !== 0) j = (j + 1) & mask;
      table[j] = q + 1;
    }
    from[n] = at;
    // Every ID of the window against them.
    for (let t = 0; t < this.tails.length; t++) {
      const { bytes, ends, hashes } = this.tails[t]!;
      const i0 = t === 0 ? this.first : 0;
      let s = i0 === 0 ? 0 : ends[i0 - 1]!;
      // Stryker disable next-line EqualityOperator: one pass past the end reads an undefined end, whose length compares with no key's
      for (let i = i0; i < ends.length; i++) {
        const e = ends[i]!;
        // Stryker disable next-line ConditionalExpression: the module's hashes are keyHash's (test/engine-dedup.test.ts)
        const h = hashes !== undefined ? hashes[i]! : keyHash(bytes, s, e);
        for (let j = h & mask; table[j] !== 0; j = (j + 1) & mask) {
          const q = table[j]! - 1;
          // Stryker disable next-line ConditionalExpression: a shortcut; the bytes are compared below
          if (hash[q] !== h) continue;
          // Stryker disable next-line ConditionalExpression: tells a key from a longer one it begins, of the same 32-bit hash
          if (from[q + 1]! - from[q]! === e - s && sameBytes(bytes, s, key, from[q]!, e - s)) found.add(ids[q]!);
        }
        s = e;
      }
    }
    return found;
  }
}

function sameBytes(a: Uint8Array, from: number, b: Uint8Array, at: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (a[from + i] !== b[at + i]) return false;
  return true;
}
