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

export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private overflow = false;
  private overflowBytes = 0;
  private overflowHead: Buffer | null = null;
  private lineNo = 0;

  constructor(
    private readonly onLine: LineSink,
    private readonly onLong: LongLineSink,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  /** Lines seen so far. */
  get lines(): number {
    return this.lineNo;
  }

  push(chunk: Buffer): void {
    let pos = 0;
    if (this.parts.length > 0 || this.overflow) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        this.hold(chunk);
        return;
      }
      this.hold(chunk.subarray(0, nl));
      this.releaseHeld(true);
      pos = nl + 1;
    }
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
    if (pos < len) this.hold(chunk.subarray(pos));
  }

  /** Call at end of input: delivers a last line that had no newline. */
  end(): void {
    if (this.parts.length > 0 || this.overflow) this.releaseHeld(false);
  }

  private hold(b: Buffer): void {
    if (b.length === 0) return;
    if (this.overflow) {
      this.overflowBytes += b.length;
      return;
    }
    if (this.partBytes + b.length > this.maxLineBytes) {
      this.overflow = true;
      // Only the first 200 bytes are kept, for the message (a copy: a view would keep the line alive).
      this.overflowHead = leadingBytes([...this.parts, b], 200);
      this.overflowBytes = this.partBytes + b.length;
      this.parts = [];
      this.partBytes = 0;
      return;
    }
    // Copy: the chunk may be a pooled buffer that the stream reuses.
    this.parts.push(Buffer.from(b));
    this.partBytes += b.length;
  }

  private releaseHeld(terminated: boolean): void {
    if (this.overflow) {
      this.onLong(++this.lineNo, this.overflowBytes, this.overflowHead ?? Buffer.alloc(0));
      this.overflow = false;
      this.overflowBytes = 0;
      this.overflowHead = null;
      return;
    }
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.partBytes = 0;
    let end = line.length;
    if (terminated && end > 0 && line[end - 1] === 13) end--;
    this.onLine(line, 0, end, ++this.lineNo, terminated);
  }
}
