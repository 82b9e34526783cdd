/*! One job: a segment's lines fed to a ScanState, and a byte range read as one segment (`scanRange`, what a scan
 * lane runs, the worker's and the main thread's): the feeders go through the compiled engine (`EngineFeeder`,
 * reading straight into its input window) or line by line (`LineSplitter`). Apart from source.ts so that a scan
 * worker loads this and what it needs, not the stream, gzip and JSON-document readers of the inputs. */

import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import type { ScanState, SegmentResult } from '../aggregate/scan-state.js';
import { DEFAULT_MAX_LINE_BYTES, HeldLine, LineSplitter } from '../input/lines.js';
import type { LineEngine } from '../decode/engine/engine.js';
import { claim, close as closeCut, type RangeCut } from './range-cut.js';

/** A byte range [start, end) of a file, read as one segment of input `inputIndex` by a scan lane (a worker, or
 * the main thread's lane in src/parallel/pool.ts). */
export interface RangeTask {
  seq: number;
  inputIndex: number;
  name: string;
  path: string;
  start: number;
  end: number;
  firstOfInput: boolean;
  /** no segment of the input follows: the result needs no tail */
  lastOfInput: boolean;
  beforeMs: number | null;
  /** the range's shared state when another lane may cut it short (range-cut.ts) */
  cut?: RangeCut;
}

/** Reads range `r` into `state` as one segment and ends it. Reads are synchronous, into `buf`: a lane reads one
 * range at a time, and the feeder copies what it keeps (the engine its input, a held part of a line its bytes), so
 * the buffer is free again when push returns. A stream's reads went through the thread pool (a worker idled 15% of
 * a 1 GB scan waiting for them) and left a new 1 MB buffer a read for the garbage collector. The event loop gets a
 * turn every 4 reads: for 'stop', and on the main thread for the other lanes' results. A read that fails ends the
 * segment there, its message on the segment's input. */
export async function scanRange(state: ScanState, r: RangeTask, maxLineBytes: number | undefined, buf: Buffer, stopped: () => boolean, progress: (bytes: number) => void): Promise<SegmentResult> {
  state.beginSegment(r.inputIndex, r.name, `w${r.seq}`, r.beforeMs);
  const feed = newSegmentFeeder(state, r.firstOfInput, maxLineBytes);
  // a range another lane may cut short (range-cut.ts) claims each read; a fixed one ends at r.end
  const cut = r.cut ?? null;
  const limit = cut === null ? (at: number, want: number): number => Math.min(at + want, r.end) : (at: number, want: number): number => claim(cut, at, want);
  let reached = r.start;
  let bytes = 0;
  let error: string | null = null;
  let fd: number | null = null;
  try {
    fd = openSync(r.path, 'r');
    const onRead = (n: number): void => {
      reached += n;
      bytes += n;
      if (bytes >= 16 << 20) {
        progress(bytes);
        bytes = 0;
      }
    };
    if (feed instanceof EngineFeeder) await readIntoEngine(fd, feed, state.engine!, r.start, limit, onRead, stopped);
    else {
      for (let at = r.start, turn = 0; !stopped(); ) {
        const to = limit(at, buf.length);
        if (to <= at) break;
        const n = readSync(fd, buf, 0, to - at, at);
        if (n === 0) break;
        feed.push(buf.subarray(0, n));
        at += n;
        onRead(n);
        if (++turn % 4 === 0) await new Promise<void>((res) => setImmediate(res));
      }
    }
  } catch (err) {
    error = (err as Error).message;
  } finally {
    if (fd !== null) closeSync(fd);
  }
  // Where the lane stopped is the range's end from now on (nothing after it is cut away later, so a stop or a
  // failed read leaves the rest unread, as before); a range cut short is not its input's last.
  const last = cut === null ? r.lastOfInput : closeCut(cut, reached);
  feed.end();
  const result = state.endSegment(!last);
  if (error !== null) result.input.error = error;
  progress(bytes);
  return result;
}

/** Reads a range of a file through an engine feeder, each read [at, limit(at, room)), until limit gives `at`
 * (`limit` claims the bytes of a range that may be cut: scanRange), into the engine's input:
 * its whole lines are scanned there, not copied there from a buffer (0.91x the time of a `-j 2` scan of the 1 GB
 * bench log); the part of a line a read ends in moves to the front for the next read. A line longer than the
 * input goes to the feeder's held line, and while the feeder holds one its lines go through push() as copies:
 * releasing a held line may scan it in the engine's input (today a held line is always longer than the input and
 * declined whole, but the window would be overwritten if it were not). The event loop gets a turn every 4 reads.
 * The last line, unterminated (or cut short by a stop or a failed read), is pushed for the feeder to hold. */
export async function readIntoEngine(fd: number, feed: EngineFeeder, engine: LineEngine, start: number, limit: (at: number, want: number) => number, onRead: (n: number) => void, stopped: () => boolean): Promise<void> {
  let carry = 0;
  try {
    for (let at = start, turn = 0; !stopped(); ) {
      const win = engine.inputWindow();
      const to = limit(at, win.length - carry);
      if (to <= at) break;
      const n = readSync(fd, win, carry, to - at, at);
      if (n === 0) break;
      const total = carry + n;
      const last = win.lastIndexOf(10, total - 1);
      carry = 0;
      if (last < 0) feed.push(Buffer.from(win.subarray(0, total)));
      else {
        feed.push(feed.holding ? Buffer.from(win.subarray(0, last + 1)) : win.subarray(0, last + 1));
        carry = total - (last + 1);
        // (a new view: the module's memory may have grown in the scan; the input's bytes are where they were)
        if (carry > 0) engine.inputWindow().copyWithin(0, last + 1, total);
      }
      at += n;
      onRead(n);
      if (++turn % 4 === 0) await new Promise<void>((res) => setImmediate(res));
    }
  } finally {
    if (carry > 0) feed.push(Buffer.from(engine.inputWindow().subarray(0, carry)));
  }
}

/** Feeds lines of one segment into `state` (which has begun the segment). */
export function newSegmentFeeder(state: ScanState, firstOfInput: boolean, maxLineBytes: number | undefined): { push(b: Buffer): void; end(): void } {
  if (state.engine !== null && !state.csvMode) return new EngineFeeder(state, state.engine, firstOfInput, maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  const splitter = new LineSplitter(
    (buf, start, end, lineNo, terminated) => feedLine(state, buf, start, end, lineNo, terminated, firstOfInput && lineNo === 1),
    (lineNo, n, head) => state.skipRawLine(lineNo, `line too long (${n} bytes)`, head.toString('utf8')),
    maxLineBytes,
  );
  return { push: (b) => splitter.push(b), end: () => splitter.end() };
}

/** The lines of a segment through the compiled engine (src/decode/engine/engine.ts): whole lines go to the engine in
 * batches, the lines it declines to feedLine() as LineSplitter would give them, so the lines, their numbers,
 * the long-line rule and the held partial last line are the same as on the JavaScript path. */
export class EngineFeeder {
  private lineNo = 0;
  private readonly held: HeldLine;

  constructor(
    private readonly state: ScanState,
    private readonly engine: LineEngine,
    private readonly firstOfInput: boolean,
    private readonly maxLineBytes: number,
  ) {
    this.held = new HeldLine(maxLineBytes);
  }

  /** The lines the module admits on its own (ScanState.engineFast), numbered as the others. */
  private readonly fast = (i: number, n: number): number => {
    const j = this.state.engineFast(i, n);
    this.lineNo += j - i;
    return j;
  };

  push(chunk: Buffer): void {
    let pos = this.held.resume(chunk, this.releaseTerminated);
    if (pos < 0) return;
    const last = chunk.lastIndexOf(10);
    if (last >= pos) {
      const st = this.state;
      const max = this.maxLineBytes;
      // the first line of an input may start with a BOM: feedLine strips it
      const declineFirst = this.firstOfInput && this.lineNo === 0 ? 1 : 0;
      // (l.buf: the chunk, or a live view of it when it is the engine's input window)
      chunk = this.engine.readLines(chunk, pos, last + 1, max - 1, declineFirst, (l) => {
        const lineNo = ++this.lineNo;
        if (l.accepted && (!l.log || st.takesLogLine())) {
          st.addEngineLine(l);
          return;
        }
        st.noteEngineDeclined();
        if (l.nl - l.start > max) st.skipRawLine(lineNo, `line too long (${l.nl - l.start} bytes)`, l.buf.subarray(l.start, l.start + 200).toString('utf8'));
        else feedLine(st, l.buf, l.start, l.end, lineNo, true, this.firstOfInput && lineNo === 1);
      }, this.fast);
      pos = last + 1;
    }
    if (pos < chunk.length) this.held.add(chunk.subarray(pos));
  }

  end(): void {
    if (this.held.holding) this.releaseHeld(false);
  }

  /** true while part of a line from an earlier push is held */
  get holding(): boolean {
    return this.held.holding;
  }

  // the held partial line, as LineSplitter holds and lets it go (HeldLine)
  private readonly releaseTerminated = (): void => this.releaseHeld(true);

  private releaseHeld(terminated: boolean): void {
    const lineNo = ++this.lineNo;
    const h = this.held.take(terminated);
    const st = this.state;
    if (h.tooLong !== null) {
      st.noteEngineDeclined();
      st.skipRawLine(lineNo, `line too long (${h.tooLong} bytes)`, h.head.toString('utf8'));
      return;
    }
    const first = this.firstOfInput && lineNo === 1;
    if (!terminated || first) {
      st.noteEngineDeclined();
      feedLine(st, h.line, 0, h.end, lineNo, terminated, first);
      return;
    }
    // A whole line that spanned reads goes to the engine as the others do: lines longer than a read (RequestResponse
    // bodies of a few hundred KB) always span one, and all took JSON.parse before.
    const b = HeldLine.withNewline(h.line, h.end);
    this.engine.readLines(b, 0, b.length, this.maxLineBytes - 1, 0, (l) => {
      if (l.accepted && (!l.log || st.takesLogLine())) st.addEngineLine(l);
      else {
        st.noteEngineDeclined();
        feedLine(st, b, l.start, l.end, lineNo, true, false);
      }
    });
  }
}

export function feedLine(state: ScanState, buf: Buffer, start: number, end: number, lineNo: number, terminated: boolean, isFirst: boolean): void {
  if (isFirst && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
  const text = buf.toString('utf8', start, end);
  // toString() already replaced invalid sequences with U+FFFD; count the line as repaired if that happened.
  const repaired = text.indexOf('\ufffd') >= 0 && !isUtf8(buf.subarray(start, end));
  state.addLine(lineNo, text, terminated, repaired);
}
