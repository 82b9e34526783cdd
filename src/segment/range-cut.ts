/*! A byte range a lane is reading that another lane may cut short: the lane that runs out of work takes the second
 * half of the range with the most left to read (work stealing). Before, a file was cut into twice as many ranges as
 * there are lanes, and a lane that finished took the next; every cut costs a segment's edges (its tail of final
 * IDs, its head events reconciled on the main thread: about 30 ms of CPU each on the 1 GB bench log), and a quarter
 * of the file was still the unit the lanes balanced on (one lane idle 90-130 ms at the end, in most runs). Now a
 * file starts as one range a lane, and a range is cut only when a lane has nothing to read.
 *
 * The state lives in shared memory, so that the main thread can cut the range a worker reads: the end, how far the
 * lane has claimed (read or is reading), whether no range of the input follows, and a lock. The lane claims each
 * read under the lock; a cut, under the lock, is taken only at or past the claim, so the lane never reads a byte of
 * the part cut away, and its next claim stops at the cut (a line's end: the caller finds it). */

/** A plain file at least this big is cut into ranges for the lanes, and a range with at least this much left to
 * read is cut for a lane that runs out; streams are cut in chunks of at most this (scan/scan.ts). */
export const MIN_SPLIT_BYTES = 32 << 20;

/** The split size AUDIT_SCAN_MIN_SPLIT_BYTES sets (tests cut small files), or undefined; read by the CLI's options
 * and by bin/'s guess (src/cli/prewarm.ts), so that the two agree. */
export function minSplitFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const v = env.AUDIT_SCAN_MIN_SPLIT_BYTES;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

const END = 0;
const CLAIMED = 1;
const LAST = 2;
const LOCK = 3;

export type RangeCut = BigInt64Array;

/** The shared state of a range [start, end). */
export function newRangeCut(start: number, end: number, lastOfInput: boolean): RangeCut {
  const c = new BigInt64Array(new SharedArrayBuffer(4 * 8));
  c[END] = BigInt(end);
  c[CLAIMED] = BigInt(start);
  c[LAST] = lastOfInput ? 1n : 0n;
  return c;
}

function lock(c: RangeCut): void {
  // held for a few loads and stores on either side: spin
  while (Atomics.compareExchange(c, LOCK, 0n, 1n) !== 0n);
}

function unlock(c: RangeCut): void {
  Atomics.store(c, LOCK, 0n);
}

/** The lane claims the bytes from `at` (its claim so far) for a read of up to `want`: returns where the read ends,
 * `at` when the range is done. */
export function claim(c: RangeCut, at: number, want: number): number {
  lock(c);
  const to = Math.max(at, Math.min(at + want, Number(c[END])));
  c[CLAIMED] = BigInt(to);
  unlock(c);
  return to;
}

/** The lane stops reading at `at` (the range done, or a stop or failed read short of it): nothing after `at` is cut
 * away from now on. Returns whether no range of the input follows (a cut range is no longer the last). */
export function close(c: RangeCut, at: number): boolean {
  lock(c);
  c[END] = BigInt(at);
  c[CLAIMED] = BigInt(at);
  const last = c[LAST] === 1n;
  unlock(c);
  return last;
}

/** Bytes the lane has not claimed yet. */
export function unclaimed(c: RangeCut): number {
  return Number(Atomics.load(c, END)) - Number(Atomics.load(c, CLAIMED));
}

/** The lane's claim so far, and the end. */
export function claimedAndEnd(c: RangeCut): { claimed: number; end: number } {
  return { claimed: Number(Atomics.load(c, CLAIMED)), end: Number(Atomics.load(c, END)) };
}

/** Cuts the range at `at` (a line's end) if the lane has not claimed past it and the end is still `end`: returns
 * whether the range was the input's last (the part cut away is now), or null when the cut was not taken. */
export function cutAt(c: RangeCut, at: number, end: number): boolean | null {
  lock(c);
  try {
    if (Number(c[END]) !== end || Number(c[CLAIMED]) > at || at >= end) return null;
    c[END] = BigInt(at);
    const last = c[LAST] === 1n;
    c[LAST] = 0n;
    return last;
  } finally {
    unlock(c);
  }
}
