/*! Bytes → lines. Splits on \n with Buffer.indexOf (no regex, no per-byte loop), drops a trailing \r, keeps
 * lines of any length up to maxLineBytes and counts longer ones instead of holding them. */

/** Receives each line: the bytes [start, end) of buf, 1-based line number, and whether a \n ended it. */
export type LineSink = (buf: Buffer, start: number, end: number, lineNo: number, terminated: boolean) => void;
/** Receives a line that was too long to keep. */
export type LongLineSink = (lineNo: number, bytes: number, head: Buffer) => void;

/** A copy of the first `n` bytes of `parts` (fewer if they hold fewer), joining only the parts it needs: a long
 * line's excerpt, or what comes before it, without copying the line. */
export function leadingBytes(parts: Buffer[], n: number): Buffer {
  const take: Buffer[] = [];
  let got = 0;
  for (let i = 0; i < parts.length && got < n; i++) {
    const p = parts[i]!.subarray(0, n - got);
    take.push(p);
    got += p.length;
  }
  return Buffer.concat(take, got);
}

/** Default cap on one line: far above the 5 MB lines real logs carry, far below memory trouble. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/** The bytes of a line whose newline has not come yet, held across chunks: copied (a chunk may be a pooled
 * buffer that the stream reuses), and past `maxLineBytes` only counted, its first 200 bytes kept for the message
 * (a copy: a view would keep the line alive). Shared by LineSplitter and the engine's feeder
 * (src/segment/feed.ts), so both hold a partial line alike.
 *
 * The bytes go into one buffer kept from line to line (it grows to the longest line held, and one of more than
 * 4 MB is let go after it), with a byte to spare after the line: the engine's feeder writes the newline there.
 * Each held line was a copy per chunk, a join and a copy for the engine before: three buffers of a few hundred KB
 * for every RequestResponse line across a read, which left the allocator's arenas tens of MB larger. */
export class HeldLine {
  private buf: Buffer | null = null;
  private len = 0;
  private held = false;
  private overflow = false;
  private overflowBytes = 0;
  private overflowHead: Buffer | null = null;

  constructor(private readonly maxLineBytes: number) {}

  /** true while part of a line is held. */
  get holding(): boolean {
    return this.held || this.overflow;
  }

  /** The start of a chunk, as both feeders take it: while a line is held, the chunk's bytes up to its first newline
   * join it and `release` lets it go (terminated). Returns where the chunk's own lines begin: 0 when no line was
   * held, after that newline when one was, or -1 when the chunk has none and all of it was held. */
  resume(chunk: Buffer, release: () => void): number {
    if (!this.holding) return 0;
    const nl = chunk.indexOf(10);
    this.add(nl < 0 ? chunk : chunk.subarray(0, nl));
    if (nl < 0) return -1;
    release();
    return nl + 1;
  }

  add(b: Buffer): void {
    if (b.length === 0) return;
    if (this.overflow) {
      this.overflowBytes += b.length;
      return;
    }
    if (this.len + b.length > this.maxLineBytes) {
      this.overflow = true;
      this.overflowHead = leadingBytes(this.len === 0 ? [b] : [this.buf!.subarray(0, this.len), b], 200);
      this.overflowBytes = this.len + b.length;
      this.len = 0;
      this.held = false;
      return;
    }
    const need = this.len + b.length + 1;
    if (this.buf === null || this.buf.length < need) {
      const bigger = Buffer.allocUnsafe(Math.max(need, Math.min(this.maxLineBytes + 1, 2 * (this.buf?.length ?? 0)), 64 * 1024));
      if (this.len > 0) this.buf!.copy(bigger, 0, 0, this.len);
      this.buf = bigger;
    }
    b.copy(this.buf, this.len);
    this.len += b.length;
    this.held = true;
  }

  /** Lets the held line go: its bytes and where it ends (a \r before a newline dropped), or, for a line over the
   * cap, its length and its first 200 bytes. `line` is valid until the next add(), and has a byte to spare at
   * `line.length` (past the line's own bytes, before the buffer's end). */
  take(terminated: boolean): { line: Buffer; end: number; tooLong: null } | { line: null; tooLong: number; head: Buffer } {
    if (this.overflow) {
      const r = { line: null, tooLong: this.overflowBytes, head: this.overflowHead ?? Buffer.alloc(0) };
      this.overflow = false;
      this.overflowBytes = 0;
      this.overflowHead = null;
      return r;
    }
    const line = this.buf!.subarray(0, this.len);
    let end = line.length;
    if (terminated && end > 0 && line[end - 1] === 13) end--;
    this.len = 0;
    this.held = false;
    // a buffer grown for a rare long line goes with it (the next long line grows one again)
    if (this.buf!.length > 4 << 20) this.buf = null;
    return { line, end, tooLong: null };
  }

  /** The held line's bytes [0, end) followed by a newline at `end`, in the same buffer (take()'s line, valid until
   * the next add()): what the engine reads. */
  static withNewline(line: Buffer, end: number): Buffer {
    const b = Buffer.from(line.buffer, line.byteOffset, end + 1);
    b[end] = 10;
    return b;
  }
}

export class LineSplitter {
  private readonly held: HeldLine;
  private lineNo = 0;

  constructor(
    private readonly onLine: LineSink,
    private readonly onLong: LongLineSink,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {
    this.held = new HeldLine(maxLineBytes);
  }

  /** Lines seen so far. */
  get lines(): number {
    return this.lineNo;
  }

  push(chunk: Buffer): void {
    let pos = this.held.resume(chunk, this.releaseTerminated);
    if (pos < 0) return;
    const len = chunk.length;
    for (;;) {
      const nl = chunk.indexOf(10, pos);
      if (nl < 0) break;
      let end = nl;
      if (end > pos && chunk[end - 1] === 13) end--;
      // The cap holds however the bytes arrived: also for a line that came whole in one chunk.
      if (nl - pos > this.maxLineBytes) this.onLong(++this.lineNo, nl - pos, chunk.subarray(pos, pos + 200));
      else this.onLine(chunk, pos, end, ++this.lineNo, true);
      pos = nl + 1;
    }
    if (pos < len) this.held.add(chunk.subarray(pos));
  }

  /** Call at end of input: delivers a last line that had no newline. */
  end(): void {
    if (this.held.holding) this.releaseHeld(false);
  }

  private readonly releaseTerminated = (): void => this.releaseHeld(true);

  private releaseHeld(terminated: boolean): void {
    const h = this.held.take(terminated);
    if (h.tooLong !== null) this.onLong(++this.lineNo, h.tooLong, h.head);
    else this.onLine(h.line, 0, h.end, ++this.lineNo, terminated);
  }
}
