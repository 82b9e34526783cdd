/*! The scan driver: reads each source (line mode or document mode, gzip or not) into one ScanState.
 * Sniffs the first bytes to choose the mode; decodes lines as UTF-8 and counts the ones it had to repair. */

import type { Readable } from 'node:stream';
import { ScanState, type InputStats, type SegmentResult, type SkipListener } from '../aggregate/scan-state.js';
import type { createDocumentReader } from '../input/json-document.js';
import { DEFAULT_MAX_LINE_BYTES, leadingBytes, LineSplitter } from '../input/lines.js';
import { closeSync, openSync, promises as fsp, readSync } from 'node:fs';
import { describeFsError, openRaw, readAhead, readBytes, type Source } from '../input/sources.js';
import type { LocalLane, RangeCutter, ScanPool } from '../parallel/pool.js';
import { parseTimestampMs } from '../decode/time.js';
import { logsInsightsColumn } from '../decode/csv.js';
import { basename } from 'node:path';
import { MUST_GATHER_METADATA } from '../decode/json-shape.js';
import { loadEngine } from '../decode/engine/engine.js';
import { dropParked } from '../input/parked.js';
import { MIN_SPLIT_BYTES } from '../parallel/range-cut.js';
import { EngineFeeder, newSegmentFeeder, readIntoEngine, scanRange } from './segment.js';

/** Options of the reading stage. */
export interface ReadOptions {
  etcdPrefix: string | null;
  stdin: Readable;
  onSkip: SkipListener | null;
  /** called with bytes read so far, for progress display */
  onProgress?: (source: Source, bytes: number) => void;
  /** called with each number of bytes read (by any thread), for the progress bar */
  onBytes?: (n: number) => void;
  maxLineBytes?: number;
  /** aborted by SIGINT: stop reading (also a read waiting on a terminal or a quiet pipe) and report what was read */
  signal?: AbortSignal;
  /** set by SIGINT: stop reading and report what was read (derived from `signal` when not given) */
  shouldStop?: () => boolean;
  /** worker threads for big plain files and for gzip or stdin streams; 1 = read on this thread */
  threads?: number;
  /** files below this size are read on this thread (workers cost ~30 ms to start); default MIN_SPLIT_BYTES */
  minSplitBytes?: number;
  /** the group cap of each worker's state */
  maxGroups?: number;
}

/** Size of the chunks a gzip or stdin stream is cut into for workers (or the split threshold, if smaller:
 * tests lower both with AUDIT_SCAN_MIN_SPLIT_BYTES to cut small streams). */
const STREAM_CHUNK_BYTES = 8 << 20;

/** How far before a cut latestTimeIn() looks. */
const LOOK_BEHIND_BYTES = 64 << 10;
// The time a scan orders events by: stageTimestamp (legacy: timestamp), else requestReceivedTimestamp.
const STAGE_TIME = /\\?"(?:stageTimestamp|timestamp)\\?"\s*:\s*\\?"([^"\\]{10,40})/g;
const RECEIVED_TIME = /\\?"requestReceivedTimestamp\\?"\s*:\s*\\?"([^"\\]{10,40})/g;

/** The latest audit event time in the last 64 KB of `b`: when the segment that starts after `b` began, for its
 * head and its gaps (ScanState.beginSegment). Also finds the fields of events wrapped in a JSON string (AKS,
 * CloudWatch). */
export function latestTimeIn(b: Uint8Array): number | null {
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1', Math.max(0, b.byteLength - LOOK_BEHIND_BYTES));
  return maxTime(text, STAGE_TIME) ?? maxTime(text, RECEIVED_TIME);
}

function maxTime(text: string, re: RegExp): number | null {
  let max: number | null = null;
  for (const m of text.matchAll(re)) {
    const t = parseTimestampMs(m[1]);
    if (t !== null && (max === null || t > max)) max = t;
  }
  return max;
}

/** An input that failed part-way; what was read before the failure is kept. */
export interface InputFailure {
  name: string;
  message: string;
}

/** Decides line mode vs document mode from the start of a source. Pretty-printed JSON opens with a line
 * that is not a complete JSON value and ends in "{", "[", "," or ":". */
export function sniffDocumentMode(head: Buffer): boolean {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  while (i < head.length && (head[i] === 32 || head[i] === 9 || head[i] === 10 || head[i] === 13)) i++;
  if (i >= head.length || (head[i] !== 123 && head[i] !== 91)) return false;
  // "[" then a word is a prefix ("[pod/kube-apiserver-m1/kube-apiserver] I1130 … Trace[1]: … (total time: 700ms):"),
  // not an array: a JSON array goes on with a value, a space or its end
  if (head[i] === 91 && i + 1 < head.length && !/^[\s{["\]\d-]/.test(String.fromCharCode(head[i + 1]!))) return false;
  const nl = head.indexOf(10, i);
  if (nl < 0) return false;
  const first = head.toString('utf8', i, nl).trim();
  const last = first[first.length - 1];
  if (last !== '{' && last !== '[' && last !== ',' && last !== ':') return false;
  try {
    JSON.parse(first);
    return false;
  } catch {
    return true;
  }
}

/** The @message column when the first line of `head` is a CloudWatch Logs Insights CSV header, else null. */
export function sniffCsv(head: Uint8Array): number | null {
  const b = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 4096));
  const nl = b.indexOf(10);
  return logsInsightsColumn(b.toString('utf8', 0, nl < 0 ? b.length : nl));
}

/** Files of an OpenShift must-gather that describe it and hold no log: counted as such, never as skipped. */
export function isMustGatherMetadata(name: string): boolean {
  const b = basename(name);
  return b === 'timestamp' || b === 'must-gather.logs' || b.endsWith('.audit_logs_listing') || b === 'event-filter.html';
}

/** Longest line part a container runtime writes (16 KiB, plus its prefix): a split line's part is never longer. */
const MAX_PART_BYTES = 20 << 10;
// A CRI line that continues in the next: "<RFC 3339> stdout|stderr P ".
const CRI_PARTIAL = /^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) P /;
// The end of a Docker json-file record; without the escaped \n before it, the record is a part of a line.
const DOCKER_TAIL = /(\\n)?","stream":"(?:stdout|stderr)","time":"[^"]*"\}\r?$/;

// A line that goes on a klog record of the apiserver's log: a trace block's next line (klog writes it without a
// header), or a line of a multi-line value (`key=<`, then lines after a tab, then " >"), after a CRI prefix or not.
// A trace block's first line too: a request's trace follows its storage trace (a block of its own before 1.26),
// and the two are read together (apiserver-log-reader.ts storageOf).
const KLOG_CONTINUATION = /^(?:\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) [FP] )?(?:Trace\[\d+\]: |\t| >|[IWEF]\d{4} [\d:.]+\s+\d+ trace\.go:\d+\] Trace\[|\{"ts":[\d.e+]+,"caller":"trace\/trace\.go)/;
// the same after any wrapper's prefix (journald, syslog, kubectl --prefix, stern, minikube's "* ", a leading space),
// and the rest of an old httplog line a terminal wrapped ("934785: (444.045µs) 400 [kube-controller-manager/…")
const KLOG_CONTINUATION_WRAPPED = /^.{0,120}?(?<=^|[\s\]:*])(?:Trace\[\d+\]: |[IWEF]\d{4} [\d:.]+\s+\d+ trace\.go:\d+\] Trace\[)|^\S*: \([^)\s]+\) \d{3} \[/;

/** How far a cut moves on to keep a klog record (a trace block) whole, at most. */
const MAX_KLOG_SKIP = 4 << 20;

/** Whether the line that starts at `at` of `b` goes on the klog record before it: null when `b` ends too soon to
 * tell. A cut is never made before such a line, so a trace block is read whole by one lane. */
export function continuesKlogRecord(b: Uint8Array, at: number): boolean | null {
  const end = Math.min(b.length, at + 128);
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1', at, end);
  if (KLOG_CONTINUATION.test(text) || KLOG_CONTINUATION_WRAPPED.test(text)) return true;
  // too few bytes to rule out a prefix or a "Trace[" not yet whole
  if (end === b.length && end - at < 128) return null;
  return false;
}

/** true when the line [start, end) of `b` is the first part of a line a runtime split (it goes on in the next
 * line): a cut between them would hand the two parts to different threads. */
export function continuesInNextLine(b: Uint8Array, start: number, end: number): boolean {
  if (end - start > MAX_PART_BYTES + 512) return false;
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (CRI_PARTIAL.test(buf.toString('latin1', start, Math.min(end, start + 64)))) return true;
  const tail = DOCKER_TAIL.exec(buf.toString('latin1', Math.max(start, end - 160), end));
  return tail !== null && tail[1] === undefined;
}

/** Reads every source into `state`. Returns the inputs that failed (unreadable, corrupt gzip). */
export async function readSources(sources: Source[], state: ScanState, o: ReadOptions): Promise<InputFailure[]> {
  if (o.shouldStop === undefined && o.signal !== undefined) {
    const signal = o.signal;
    o = { ...o, shouldStop: () => signal.aborted };
  }
  const failures: InputFailure[] = [];
  const threads = o.threads ?? 1;
  const minSplit = o.minSplitBytes ?? MIN_SPLIT_BYTES;
  let pool: ScanPool | null = null;
  const getPool = async (): Promise<ScanPool> => {
    if (pool === null) {
      const { ScanPool: P } = await import('../parallel/pool.js');
      pool = new P(state, threads, o.etcdPrefix, o.maxLineBytes, o.maxGroups, state.timeOptions, (n) => o.onBytes?.(n), mainLane(state, o));
    }
    return pool;
  };
  const stopWatch =
    o.shouldStop === undefined
      ? null
      : setInterval(() => {
          if (o.shouldStop!() && pool !== null) (pool as ScanPool).stop();
        }, 100);
  try {
    for (const src of sources) {
      if (o.shouldStop?.()) break;
      if (src.path !== null && isMustGatherMetadata(src.name)) {
        await readSingle(src, state, failures, () => readMetadata(src, state, o), o.signal);
        continue;
      }
      if (threads > 1 && o.onSkip === null) {
        const handled = await readParallel(src, state, o, getPool, minSplit, failures);
        if (handled) continue;
      }
      await readSingle(src, state, failures, (inp) => readOne(src, state, o, () => (inp.gzip = true), (mode) => (inp.format = mode)), o.signal);
    }
    if (pool !== null) await (pool as ScanPool).close();
  } finally {
    pool = null;
    if (stopWatch !== null) clearInterval(stopWatch);
    // bin/ started a worker this scan did not take (src/cli/prewarm.ts guesses from argv)
    dropParked();
  }
  state.finishPending();
  return failures;
}

/** The main thread's scan lane (src/parallel/pool.ts): a ScanState of its own, set up as a worker's is, made when
 * it is first handed a range. */
function mainLane(state: ScanState, o: ReadOptions): LocalLane {
  let lane: ScanState | null = null;
  let stopped = false;
  let buf: Buffer | null = null;
  return {
    range: (r) => {
      if (lane === null) {
        lane = new ScanState(o.etcdPrefix, null, o.maxGroups, state.timeOptions);
        lane.foldLate = true;
        if (state.engine !== null) lane.engine = loadEngine().engine;
      }
      buf ??= Buffer.allocUnsafe(1 << 20);
      return scanRange(lane, r, o.maxLineBytes, buf, () => stopped || (o.shouldStop?.() ?? false), (n) => o.onBytes?.(n));
    },
    stop: () => {
      stopped = true;
    },
    snapshot: () => {
      const snap = lane?.snapshot() ?? null;
      lane = null; // its aggregates go with the snapshot, once merged
      buf = null;
      return snap;
    },
  };
}

/** Reads one source whole on this thread, as its own input (follow mode's inputs that do not grow: gzip, JSON
 * documents, CSV exports). */
export async function readOneSource(src: Source, state: ScanState, o: { stdin: Readable; maxLineBytes?: number; onBytes?: (n: number) => void }): Promise<InputFailure[]> {
  const failures: InputFailure[] = [];
  const ro: ReadOptions = { etcdPrefix: state.etcdPrefix, stdin: o.stdin, onSkip: null, maxLineBytes: o.maxLineBytes, onBytes: o.onBytes };
  await readSingle(src, state, failures, (inp) => readOne(src, state, ro, () => (inp.gzip = true), (mode) => (inp.format = mode)));
  return failures;
}

/** Reads a whole source as one segment of input `inputIndex`, begun with `key` and left open for the caller to
 * end (a partial result keeps its SegmentResult: src/parallel/partial.ts). Returns the message of a failure
 * part-way (recorded on the segment's counts, what was read before it kept), or null. */
export async function readSourceSegment(src: Source, state: ScanState, inputIndex: number, key: string, o: ReadOptions): Promise<string | null> {
  const inp = state.beginSegment(inputIndex, src.name, key);
  inp.fileTimeMs = src.mtimeMs ?? null;
  try {
    if (src.path !== null && isMustGatherMetadata(src.name)) await readMetadata(src, state, o);
    else await readOne(src, state, o, () => (inp.gzip = true), (mode) => (inp.format = mode));
    return null;
  } catch (err) {
    const message = describeFsError(err);
    inp.error = message;
    return message;
  }
}

/** Reads a source as one segment on this thread; a failure (unreadable, corrupt gzip) is recorded on the input
 * and in `failures`, and what was read before it is kept. */
async function readSingle(src: Source, state: ScanState, failures: InputFailure[], body: (inp: InputStats) => Promise<void>, signal?: AbortSignal): Promise<void> {
  const inp = state.beginInput(src.name);
  inp.fileTimeMs = src.mtimeMs ?? null;
  try {
    await body(inp);
  } catch (err) {
    // A read cut short by Ctrl-C is not a broken input.
    if (signal?.aborted) return;
    const message = describeFsError(err);
    inp.error = message;
    failures.push({ name: src.name, message });
  } finally {
    state.endInput();
  }
}

/** Reads one source with the worker pool when that pays: a big plain file by byte ranges, a gzip or stdin
 * stream by chunks. Returns false to leave it to the single-threaded path (small files, JSON documents). */
async function readParallel(src: Source, state: ScanState, o: ReadOptions, getPool: () => Promise<ScanPool>, minSplit: number, failures: InputFailure[]): Promise<boolean> {
  if (src.path !== null) {
    if (src.sizeBytes === null || src.sizeBytes < minSplit) return false;
    const fh = await fsp.open(src.path, 'r').catch(() => null);
    if (fh === null) return false; // the single-threaded path reports the error
    try {
      // The reads before the lanes start are made at once (readSync): each awaited one was a turn of the thread pool
      // and the event loop, 1-2 ms each of the main thread's lane not started, four of them.
      const head = Buffer.alloc(1 << 16);
      const bytesRead = readSync(fh.fd, head, 0, head.length, 0);
      const h = head.subarray(0, bytesRead);
      if ((h[0] === 0x1f && h[1] === 0x8b) || sniffDocumentMode(h) || sniffCsv(h) !== null) {
        if (!(h[0] === 0x1f && h[1] === 0x8b) || !workersForGzip(o)) return false;
        await fh.close();
        return readStreamParallel(src, state, o, getPool, failures, minSplit);
      }
      const pool = await getPool();
      // One range a lane; a lane that runs out of work cuts the range with the most left (src/parallel/range-cut.ts)
      const bounds = splitPoints(fh.fd, src.sizeBytes, pool.size);
      const size = src.sizeBytes;
      // (the ranges are queued before any cut is made, and cuts are made one at a time: one buffer will do)
      const behind = Buffer.alloc(LOOK_BEHIND_BYTES);
      const cutter: RangeCutter = {
        minBytes: minSplit,
        align: async (at) => {
          const end = lineEndAfter(fh.fd, at, size);
          return end >= size ? null : { at: end, beforeMs: latestTimeBefore(fh.fd, end, behind) };
        },
      };
      const idx = state.addInput(src.name);
      state.inputs[idx]!.fileTimeMs = src.mtimeMs ?? null;
      // the last range needs no tail: no segment of this input follows it
      let last = bounds.length - 2;
      while (last > 0 && bounds[last + 1]! <= bounds[last]!) last--;
      // Each range's latest time before it first (a read of the file each), then the ranges, queued at once: the
      // main thread's lane starts reading on the next turn, and a range queued after it had to wait for that
      // lane's first reads to yield before its read completed; the worker, booted, then sat idle 30-80 ms.
      const ranges: Array<{ i: number; beforeMs: number | null }> = [];
      for (let i = 0; i + 1 < bounds.length; i++) {
        if (bounds[i + 1]! > bounds[i]!) ranges.push({ i, beforeMs: bounds[i]! > 0 ? latestTimeBefore(fh.fd, bounds[i]!, behind) : null });
      }
      pool.queueingRanges(true);
      try {
        for (const { i, beforeMs } of ranges) pool.submitRange(idx, src.name, src.path, bounds[i]!, bounds[i + 1]!, i === 0, i === last, beforeMs, cutter);
      } finally {
        pool.queueingRanges(false);
      }
      await pool.drain();
      const err = state.inputs[idx]!.error;
      if (err !== null) failures.push({ name: src.name, message: err });
      return true;
    } finally {
      await fh.close().catch(() => {});
    }
  }
  return readStreamParallel(src, state, o, getPool, failures, minSplit);
}

/** The latest event time in the LOOK_BEHIND_BYTES of a file before `at` (read into `buf`), as a range that starts
 * at `at` is handed it (ScanState.beginSegment): a lane's range, a cut (`readParallel`), a `partial` piece. */
export function latestTimeBefore(fd: number, at: number, buf: Buffer = Buffer.alloc(LOOK_BEHIND_BYTES)): number | null {
  const from = Math.max(0, at - LOOK_BEHIND_BYTES);
  const bytesRead = readSync(fd, buf, 0, at - from, from);
  return latestTimeIn(buf.subarray(0, bytesRead));
}

/** Byte offsets that cut a file into about `parts` ranges, each boundary just after a newline. */
function splitPoints(fd: number, size: number, parts: number): number[] {
  const out = [0];
  for (let i = 1; i < parts; i++) out.push(lineEndAfter(fd, Math.max(Math.floor((size * i) / parts), out[out.length - 1]!), size));
  out.push(size);
  return out;
}

/** The offset just after the first newline at or after `pos` (`size` when there is none) that does not end the
 * first part of a line a container runtime split: a cut there hands both parts of no line to different lanes (or
 * to different `partial` pieces: src/parallel/partial.ts). */
export function lineEndAfter(fd: number, pos: number, size: number): number {
  const buf = Buffer.alloc(1 << 16);
  const start = pos;
  for (;;) {
    const bytesRead = readSync(fd, buf, 0, buf.length, pos);
    if (bytesRead === 0) return size;
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    if (nl >= 0) {
      pos += nl + 1;
      // Never between the parts of a line a container runtime split: look at the line that ends here.
      if (endsInPart(fd, pos - 1)) continue;
      // Nor inside a klog record of several lines (a trace block): look at the line that starts here.
      // (at most MAX_KLOG_SKIP past the cut asked for: a log of traces alone is still cut)
      if (pos < size && pos - start < MAX_KLOG_SKIP && nextLineContinuesKlog(fd, pos)) continue;
      return Math.min(pos, size);
    }
    pos += bytesRead;
  }
}

/** true when the line at `pos` of a file goes on the klog record before it (continuesKlogRecord). */
function nextLineContinuesKlog(fd: number, pos: number): boolean {
  const w = Buffer.alloc(128);
  const n = readSync(fd, w, 0, 128, pos);
  return continuesKlogRecord(w.subarray(0, n), 0) === true;
}

/** true when the line that ends at the newline at `nl` is the first part of a split line. */
export function endsInPart(fd: number, nl: number): boolean {
  const from = Math.max(0, nl - MAX_PART_BYTES - 512);
  const w = Buffer.alloc(nl - from);
  const bytesRead = readSync(fd, w, 0, w.length, from);
  const start = w.subarray(0, bytesRead).lastIndexOf(10) + 1;
  if (start === 0 && from > 0) return false; // a line longer than any part
  return continuesInNextLine(w, start, bytesRead);
}

/** Counts the lines of a file that describes a must-gather (its timestamp, its listings): no event in it. */
async function readMetadata(src: Source, state: ScanState, o: ReadOptions): Promise<void> {
  const raw = openRaw(src, o.stdin);
  try {
    const splitter = new LineSplitter(
      () => state.addOtherLine(MUST_GATHER_METADATA),
      () => state.addOtherLine(MUST_GATHER_METADATA),
      o.maxLineBytes,
    );
    for await (const chunk of readBytes(raw, () => {}, src.path !== null)) splitter.push(chunk);
    splitter.end();
  } finally {
    raw.destroy();
  }
}

/** Whether a gzip stream is cut for scan workers: not at 2 threads, where zlib inflates on one (src/input/
 * inflate-thread.ts) and this thread scans on the other. Cutting it for two workers as well put four busy threads
 * on two cores: the 1 GB bench gzip took 1.30 times as long (farm-bench -n 9) as with this thread alone. */
function workersForGzip(o: ReadOptions): boolean {
  return (o.threads ?? 1) > 2;
}

/** A gzip file or stdin: this thread reads (zlib inflates gzip on a thread of its own); workers parse chunks. */
async function readStreamParallel(src: Source, state: ScanState, o: ReadOptions, getPool: () => Promise<ScanPool>, failures: InputFailure[], minSplit: number): Promise<boolean> {
  const raw = openRaw(src, o.stdin);
  const unhook = destroyOnAbort(raw, o.signal);
  let gzip = false;
  // on for readChunks() (below), which copies what it keeps; not while chunks are held here
  const recycle = { on: false };
  const gen = readBytes(raw, () => (gzip = true), src.path !== null, undefined, { recycle, path: src.path ?? undefined })[Symbol.asyncIterator]();
  const chunkBytes = Math.min(minSplit, STREAM_CHUNK_BYTES);
  // Buffer the start: a stream that ends below minSplit bytes, or holds JSON documents, stays on this thread.
  const head: Buffer[] = [];
  let ended = false;
  let readError: unknown = undefined;
  try {
    ended = await readAhead(gen, head, chunkBytes, (b) => o.onBytes?.(b.length));
  } catch (err) {
    readError = err;
    ended = true;
  }
  const first = head.length === 0 ? null : Buffer.concat(head);
  if (ended || first === null || !plainLines(first) || (gzip && !workersForGzip(o))) {
    await readSingle(src, state, failures, async (inp) => {
      inp.gzip = gzip;
      try {
        const rest: AsyncIterator<Buffer> = ended ? { next: async () => ({ done: true, value: undefined }) } : gen;
        recycle.on = true;
        await readChunks(src, state, { ...o, onBytes: undefined }, first === null ? rest : prepend(first, rest), (mode) => (inp.format = mode));
        if (readError !== undefined) throw readError;
      } finally {
        unhook();
        if (src.path !== null) raw.destroy();
      }
    }, o.signal);
    return true;
  }
  const pool = await getPool();
  const idx = state.addInput(src.name);
  state.inputs[idx]!.gzip = gzip;
  let parts: Buffer[] = [];
  let size = 0;
  // Chunks end at the first newline at or after each multiple of chunkBytes of the stream, so where a
  // stream is cut depends on its bytes only, not on how reads happened to arrive (pipes vary run to run).
  let consumed = 0; // stream offset of parts[0]
  let nextCut = chunkBytes;
  const advance = (n: number): void => {
    consumed += n;
    while (nextCut <= consumed) nextCut += chunkBytes;
  };
  // A line longer than maxLineBytes is not held (as LineSplitter does on one thread): the chunk before it is cut
  // at its start, its bytes are counted until its newline, and it is recorded as skipped.
  const maxLine = o.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let partial = 0; // bytes after the last newline held
  let longBytes: number | null = null;

  let firstOfInput = true;
  let beforeMs: number | null = null; // the latest event time at the end of the previous chunk
  const submit = async (piece: Uint8Array): Promise<void> => {
    await pool.throttleChunk(firstOfInput);
    const latest = latestTimeIn(piece); // before the piece is transferred away
    pool.submitChunk(idx, src.name, piece, firstOfInput, beforeMs);
    beforeMs = latest;
    firstOfInput = false;
  };
  const flush = async (final: boolean): Promise<void> => {
    if (size === 0) return;
    const owned = parts.length > 1; // joined here, in a buffer of its own
    const whole = owned ? joinInto(pool.takeBuffer(Math.max(size, chunkBytes + (1 << 20))), parts, size) : parts[0]!;
    // The pieces first (where the cuts fall, as advance() will move them), then the rest copied out, then the
    // pieces sent: the last one, in a buffer joined here, is sent as it is (its buffer transferred), not copied.
    const pieces: Array<[number, number]> = [];
    let at = 0;
    for (let c = consumed, next = nextCut; ; ) {
      const all = whole.subarray(at);
      const from = next - c;
      if (from >= all.length) break;
      let nl = all.indexOf(10, Math.max(0, from - 1));
      // Never between the parts of a line a container runtime split (the chunk since the last cut starts a line).
      // Nor inside a klog record of several lines (a trace block): the line after the cut must start a record; when
      // the bytes so far cannot tell, the cut waits for more (the final flush sends the rest as it is).
      for (;;) {
        while (nl >= 0 && continuesInNextLine(all, nl > 0 ? all.lastIndexOf(10, nl - 1) + 1 : 0, nl)) nl = all.indexOf(10, nl + 1);
        if (nl < 0) break;
        const k = nl + 1 - from >= MAX_KLOG_SKIP ? false : continuesKlogRecord(all, nl + 1);
        if (k === false) break;
        if (k === null) {
          nl = -1;
          break;
        }
        nl = all.indexOf(10, nl + 1);
      }
      if (nl < 0) break;
      pieces.push([at, at + nl + 1]);
      at += nl + 1;
      c += nl + 1;
      while (next <= c) next += chunkBytes;
    }
    if (final && at < whole.length) {
      pieces.push([at, whole.length]);
      at = whole.length;
    }
    // The rest is copied out of the buffer it was cut from, so that buffer can go.
    const rest = at === whole.length ? null : pieces.length === 0 ? whole : Buffer.from(whole.subarray(at));
    for (let k = 0; k < pieces.length; k++) {
      const [a, b] = pieces[k]!;
      await submit(owned && k === pieces.length - 1 ? new Uint8Array(whole.buffer, a, b - a) : copyOf(whole.subarray(a, b)));
      advance(b - a);
    }
    parts = rest === null ? [] : [rest];
    size = rest === null ? 0 : rest.length;
  };
  const take = async (chunk: Buffer): Promise<void> => {
    if (longBytes !== null) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        longBytes += chunk.length;
        advance(chunk.length);
        return;
      }
      state.skipLongLine(idx, longBytes + nl);
      longBytes = null;
      advance(nl + 1);
      chunk = chunk.subarray(nl + 1);
      if (chunk.length === 0) return;
    }
    parts.push(chunk);
    size += chunk.length;
    const last = chunk.lastIndexOf(10);
    partial = last < 0 ? partial + chunk.length : chunk.length - last - 1;
    // Only a chunk with a newline can complete a cut: a long line is joined once, not at every read.
    if (last >= 0 && size >= chunkBytes) await flush(false);
    if (partial > maxLine) {
      // Submit what comes before the long line; join only the parts that hold it, not the line.
      const lineStart = size - partial;
      if (lineStart > 0) await submit(copyOf(leadingBytes(parts, lineStart)));
      advance(size);
      longBytes = partial;
      parts = [];
      size = 0;
      partial = 0;
    }
  };
  try {
    await take(first);
    for (;;) {
      const n = await gen.next();
      if (n.done) break;
      o.onBytes?.(n.value.length);
      await take(n.value);
      if (o.shouldStop?.()) break;
    }
  } catch (err) {
    if (!o.signal?.aborted) {
      const message = describeFsError(err);
      state.inputs[idx]!.error = message;
      failures.push({ name: src.name, message });
    }
  } finally {
    unhook();
    if (longBytes !== null) state.skipLongLine(idx, longBytes);
    if (size > 0) await flush(true);
    await pool.drain();
    if (src.path !== null) raw.destroy();
  }
  return true;
}

/** `parts` ([0, size) of them) copied to the start of `into` (a buffer of at least `size` bytes, transferred to a
 * worker later, and handed back). */
function joinInto(into: ArrayBuffer, parts: Buffer[], size: number): Buffer {
  const out = Buffer.from(into, 0, size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A copy in its own ArrayBuffer, which can be transferred to a worker. */
function copyOf(b: Buffer): Uint8Array {
  const u = new Uint8Array(b.length);
  u.set(b);
  return u;
}

async function* prepend(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  for (;;) {
    const n = await rest.next();
    if (n.done) return;
    yield n.value;
  }
}

async function readOne(src: Source, state: ScanState, o: ReadOptions, onGzip: () => void, onMode: (m: 'lines' | 'documents') => void): Promise<void> {
  // a regular file (sizeBytes is known only for one): a FIFO or a device is read as a stream, which does not block
  if (src.path !== null && src.sizeBytes !== null && plainFile(src.path)) {
    if (await readPlainIntoEngine(src.path, src, state, o)) return;
    await readChunks(src, state, o, plainFileChunks(src.path), onMode);
    return;
  }
  const raw = openRaw(src, o.stdin);
  const unhook = destroyOnAbort(raw, o.signal);
  try {
    // readChunks() copies what it keeps of a chunk before it asks for the next: zlib may write into it again
    await readChunks(src, state, o, readBytes(raw, onGzip, src.path !== null, undefined, { recycle: { on: true }, path: src.path ?? undefined }), onMode);
  } finally {
    unhook();
    if (src.path !== null) raw.destroy();
  }
}

/** A plain file of lines for the engine: its first MB sniffed as readChunks() sniffs its first read (CSV and JSON
 * documents are left to it, and an empty file), then read whole into the engine's input (readIntoEngine). Returns
 * false when the file is not for this path. */
async function readPlainIntoEngine(path: string, src: Source, state: ScanState, o: ReadOptions): Promise<boolean> {
  const engine = state.engine;
  if (engine === null) return false;
  const fd = openSync(path, 'r');
  try {
    // (sniffed where the lines will go: the engine's input; readIntoEngine reads them again from the start)
    const win = engine.inputWindow();
    const first = win.subarray(0, readSync(fd, win, 0, win.length, 0));
    if (first.length === 0 || !plainLines(first)) return false;
    const feed = newSegmentFeeder(state, true, o.maxLineBytes);
    if (!(feed instanceof EngineFeeder)) return false;
    let bytes = 0;
    const onRead = (n: number): void => {
      bytes += n;
      o.onProgress?.(src, bytes);
      o.onBytes?.(n);
    };
    try {
      await readIntoEngine(fd, feed, engine, 0, (at, want) => at + want, onRead, () => o.shouldStop?.() ?? false);
    } finally {
      feed.end();
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Whether a stream's or file's first read (up to 1 MB) is lines, as readChunks() takes it: neither a CSV export
 * nor JSON documents. */
function plainLines(first: Buffer): boolean {
  return sniffCsv(first) === null && !sniffDocumentMode(first.subarray(0, 1 << 16));
}

/** true when the file at `path` opens and does not begin with gzip's magic (a file that does not open is read
 * as a stream, which reports why). */
function plainFile(path: string): boolean {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(2);
    const n = readSync(fd, head, 0, 2, 0);
    return !(n === 2 && head[0] === 0x1f && head[1] === 0x8b);
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** A plain file's bytes, read synchronously into one buffer of 1 MB that each chunk reuses: readChunks' line path
 * copies what it keeps before it asks for the next (the engine its input, a held part of a line its bytes, a line
 * its string), and the document path copies each chunk. A stream's reads went through the thread pool and left a
 * new 1 MB buffer a read, which kept the garbage collector busy on large files. The event loop gets a turn every
 * 16 MB (Ctrl-C, the progress line). */
async function* plainFileChunks(path: string): AsyncGenerator<Buffer> {
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  try {
    for (let turn = 1; ; turn++) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) return;
      yield buf.subarray(0, n);
      if (turn % 16 === 0) await new Promise<void>((r) => setImmediate(r));
    }
  } finally {
    closeSync(fd);
  }
}

/** On abort (SIGINT), destroys the stream so a read parked on a terminal or a silent pipe returns at once. */
function destroyOnAbort(raw: Readable, signal: AbortSignal | undefined): () => void {
  if (signal === undefined) return () => {};
  const stop = (): void => {
    raw.destroy();
  };
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  return () => signal.removeEventListener('abort', stop);
}

/** The single-threaded reader: sniffs the mode from the first chunk, then feeds lines or documents. */
async function readChunks(src: Source, state: ScanState, o: ReadOptions, chunks: AsyncIterable<Buffer> | AsyncIterator<Buffer>, onMode: (m: 'lines' | 'documents') => void): Promise<void> {
  let bytes = 0;
  let feeder: ReturnType<typeof newSegmentFeeder> | null = null;
  let doc: ReturnType<typeof createDocumentReader> | null = null;
  let docLines = 0;
  let lastByte = 10;
  let first = true;
  const iterable: AsyncIterable<Buffer> = Symbol.asyncIterator in chunks ? (chunks as AsyncIterable<Buffer>) : { [Symbol.asyncIterator]: () => chunks as AsyncIterator<Buffer> };
  try {
    for await (const chunk of iterable) {
      bytes += chunk.length;
      o.onProgress?.(src, bytes);
      o.onBytes?.(chunk.length);
      if (first) {
        first = false;
        const csv = sniffCsv(chunk);
        if (csv === null && sniffDocumentMode(chunk.subarray(0, 1 << 16))) {
          onMode('documents');
          // loaded here, not with the scan: stream-json is for documents only
          doc = (await import('../input/json-document.js')).createDocumentReader((where, v, key) => state.addDocumentValue(where, v, key));
        } else {
          if (csv !== null) state.setCsv(csv);
          feeder = newSegmentFeeder(state, true, o.maxLineBytes);
        }
      }
      if (chunk.length > 0) lastByte = chunk[chunk.length - 1]!;
      if (doc !== null) {
        docLines += countNewlines(chunk);
        await doc.write(Buffer.from(chunk)); // the parser may hold it; the reader may reuse it
      } else {
        feeder!.push(chunk);
      }
      if (o.shouldStop?.()) break;
    }
  } finally {
    if (doc !== null) {
      const tail = await doc.end();
      if (tail !== null) state.skipDocumentTail('end', tail);
      state.setDocumentLines(docLines + (lastByte === 10 ? 0 : 1));
    } else {
      feeder?.end();
    }
  }
}

function countNewlines(b: Buffer): number {
  let n = 0;
  let i = b.indexOf(10);
  while (i >= 0) {
    n++;
    i = b.indexOf(10, i + 1);
  }
  return n;
}
