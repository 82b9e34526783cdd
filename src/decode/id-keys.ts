/*! auditIDs as the dedup's keys (the engine's module and the look-back across segments key them alike): UTF-8,
 * the bytes the engine reads off a line; a string with a lone surrogate (JSON.parse keeps one, UTF-8 cannot) as
 * 0xFF and its UTF-16 code units, which no UTF-8 begins with, so that two different strings never meet as one key.
 *
 * A segment's tail (its last final-stage IDs, the next segment's look-back) travels between threads as one
 * IdTail: keys laid end to end, not an array of strings (65,536 strings a range, made, cloned and collected). */

/** Keys laid end to end: the i-th is bytes [ends[i-1] (0 for the first), ends[i]). */
export interface IdTail {
  readonly bytes: Uint8Array;
  readonly ends: Uint32Array;
  /** each key's keyHash, when whoever made the tail had them at hand (the engine's module does) */
  readonly hashes?: Uint32Array;
}

export const EMPTY_TAIL: IdTail = { bytes: new Uint8Array(0), ends: new Uint32Array(0) };

/** Bytes `id`'s key may take. */
export function keyCapacity(id: string): number {
  return isWellFormed(id) ? id.length * 3 : 1 + id.length * 2;
}

/** Writes `id`'s key at `at` of `into` (room for keyCapacity(id) bytes); its length. */
export function writeKey(id: string, into: Buffer, at: number): number {
  // Stryker disable next-line StringLiteral: Buffer.write's default encoding is UTF-8
  if (isWellFormed(id)) return into.write(id, at, 'utf8');
  into[at] = 0xff;
  return 1 + into.write(id, at + 1, 'utf16le');
}

/** FNV-1a over the key bytes [from, to), its bits mixed down (the look-back's table probes on the low ones). The
 * engine's module computes the same (assembly/dedup.ts keyHash) as it packs a tail. */
export function keyHash(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** The ID whose key is `bytes`. */
export function keyString(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty key's b[0] is undefined, not 0xff
  return b.length > 0 && b[0] === 0xff ? b.toString('utf16le', 1) : b.toString('utf8');
}

/** The tail of `ids`, in order. */
export function idTailOf(ids: readonly string[]): IdTail {
  // Stryker disable next-line ConditionalExpression: a shortcut; the loop below makes an empty tail too
  if (ids.length === 0) return EMPTY_TAIL;
  let cap = 0;
  for (const id of ids) cap += keyCapacity(id);
  const buf = Buffer.allocUnsafe(cap);
  const ends = new Uint32Array(ids.length);
  let at = 0;
  for (let i = 0; i < ids.length; i++) {
    at += writeKey(ids[i]!, buf, at);
    ends[i] = at;
  }
  return { bytes: new Uint8Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + at)), ends };
}

/** The IDs of a tail, in order (tests, diagnostics). */
export function tailIds(t: IdTail): string[] {
  const out: string[] = [];
  for (let i = 0, from = 0; i < t.ends.length; from = t.ends[i]!, i++) out.push(keyString(t.bytes.subarray(from, t.ends[i])));
  return out;
}

function isWellFormed(id: string): boolean {
  return (id as unknown as { isWellFormed(): boolean }).isWellFormed(); // ES2024, in Node 20
}
