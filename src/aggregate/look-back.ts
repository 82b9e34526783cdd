/*! An input's look-back across segments: its last `cap` final-stage auditIDs over the segments reconciled so far,
 * the segments' tails laid end to end (an ID may stand in it twice: once in each of two segments' tails), and
 * whether an ID is among them. reconcile() asks it for each head event and leftover of a segment.
 *
 * The IDs stay in the tails they came in (id-keys.ts IdTail: keys laid end to end); a ring of `cap` positions names
 * each one's tail, index and hash, and a table of ring positions (linear probing on the hash, at most a quarter
 * full, deletion by backward shift) finds them. A hit is verified on the key's bytes. Per ID: a hash of its bytes
 * and a table update, no string, no Map: a gzip scan pushes every ID of the log through here (a tail of a few
 * thousand IDs every 8 MB), where Map<string, number> updates and the strings' collection cost a tenth of the
 * main thread. */

import { writeKey, keyCapacity, keyHash, type IdTail } from '../decode/id-keys.js';

const EMPTY = 0;

export class LookBack {
  /** ring position → the tail holding the ID, its index there, and its hash */
  private readonly tailAt: Array<IdTail | undefined>;
  private readonly indexAt: Uint32Array;
  private readonly hashAt: Uint32Array;
  /** ring position + 1, or EMPTY */
  private readonly table: Uint32Array;
  private readonly mask: number;
  /** ring position of the oldest ID, and how many the window holds */
  private oldest = 0;
  private count = 0;
  private scratch = Buffer.allocUnsafe(256);

  constructor(private readonly cap: number) {
    // Stryker disable next-line ArrayDeclaration: a sparse array of no length holds the same positions
    this.tailAt = new Array(cap);
    this.indexAt = new Uint32Array(cap);
    this.hashAt = new Uint32Array(cap);
    let size = 16;
    // Stryker disable next-line EqualityOperator: at most a quarter full or an eighth: the same answers
    while (size < cap * 4) size *= 2;
    this.table = new Uint32Array(size);
    this.mask = size - 1;
  }

  /** IDs in the window (tests). */
  get size(): number {
    return this.count;
  }

  /** Appends a segment's tail: its IDs enter, oldest first, and as many of the oldest in the window leave. */
  push(tail: IdTail): void {
    const n = tail.ends.length;
    const { bytes, ends, hashes } = tail;
    const cap = this.cap;
    // Only the last `cap` of a longer tail can stay.
    const from = Math.max(0, n - cap);
    // A tail that fills the window alone (a range's usually does) evicts every ID in it: cleared at once, not one
    // by one (backward shifts: 7 ms a tail of the main thread's time on the 1 GB bench log).
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: a shortcut; evicting one by one leaves the same window
    if (n - from === cap && this.count > 0) this.clear();
    // The loop runs where V8 has not compiled it (a scan in lanes raises the interrupt budget: src/cli/prewarm.ts),
    // 65,536 times for a range's tail: the fields in locals, no modulo (three tails as a 1 GB scan's: 31-36 ms
    // before, 23-29 after).
    const table = this.table;
    const mask = this.mask;
    const tailAt = this.tailAt;
    const indexAt = this.indexAt;
    const hashAt = this.hashAt;
    let count = this.count;
    // the ring position the next ID takes (an eviction moves the oldest and the count alike: it stays)
    let pos = this.oldest + count;
    if (pos >= cap) pos -= cap;
    for (let i = from; i < n; i++) {
      if (count === cap) {
        this.count = count;
        this.evictOldest();
        count = this.count;
      }
      // Stryker disable next-line ConditionalExpression: the module's hashes are keyHash's (test/engine-dedup.test.ts)
      const h = hashes !== undefined ? hashes[i]! : keyHash(bytes, i === 0 ? 0 : ends[i - 1]!, ends[i]!);
      tailAt[pos] = tail;
      indexAt[pos] = i;
      hashAt[pos] = h;
      let j = h & mask;
      while (table[j] !== EMPTY) j = (j + 1) & mask;
      table[j] = pos + 1;
      count++;
      if (++pos === cap) pos = 0;
    }
    this.count = count;
  }

  /** Whether `id` is in the window. */
  has(id: string): boolean {
    // Stryker disable next-line ConditionalExpression: a shortcut; an empty table finds nothing either
    if (this.count === 0) return false;
    const cap = keyCapacity(id);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a new scratch more often holds the same key
    if (cap > this.scratch.length) this.scratch = Buffer.allocUnsafe(cap * 2);
    const len = writeKey(id, this.scratch, 0);
    const key = this.scratch;
    const h = keyHash(key, 0, len);
    for (let j = h & this.mask; ; j = (j + 1) & this.mask) {
      const p = this.table[j]!;
      if (p === EMPTY) return false;
      // Stryker disable next-line ConditionalExpression: a shortcut; the bytes are compared below
      if (this.hashAt[p - 1] !== h) continue;
      const t = this.tailAt[p - 1]!;
      const i = this.indexAt[p - 1]!;
      const from = i === 0 ? 0 : t.ends[i - 1]!;
      // Stryker disable next-line ConditionalExpression: tells a key from a longer one it begins, of the same 32-bit hash
      if (t.ends[i]! - from === len && sameBytes(t.bytes, from, key, len)) return true;
    }
  }

  private clear(): void {
    this.table.fill(EMPTY);
    this.tailAt.fill(undefined);
    this.oldest = 0;
    this.count = 0;
  }

  private evictOldest(): void {
    const pos = this.oldest;
    const mask = this.mask;
    // The window's oldest entry sits in its home slot: with linear probing every slot from an entry's home to its
    // own is taken, and backward-shift deletion moves it back whenever one of those is freed; those slots were all
    // taken when it was placed, by entries older than it, so once it is the oldest they are gone and it is home.
    // (test/look-back.test.ts holds this against a model with windows full of copies of a few IDs.)
    const j = this.hashAt[pos]! & mask;
    // Knuth's algorithm R: later entries of the run move back into the hole.
    let i = j;
    for (let k = (j + 1) & mask; ; k = (k + 1) & mask) {
      const p = this.table[k]!;
      if (p === EMPTY) break;
      const home = this.hashAt[p - 1]! & mask;
      // Stryker disable next-line EqualityOperator: i < k inside a run that does not wrap, never i = k
      if (i <= k ? home > i && home <= k : home > i || home <= k) continue;
      this.table[i] = p;
      i = k;
    }
    this.table[i] = EMPTY;
    this.tailAt[pos] = undefined;
    this.oldest = (pos + 1) % this.cap;
    this.count--;
  }
}

function sameBytes(a: Uint8Array, from: number, key: Uint8Array, len: number): boolean {
  for (let i = 0; i < len; i++) if (a[from + i] !== key[i]) return false;
  return true;
}
