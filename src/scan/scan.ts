/*! The scan driver: reads each source (line mode or document mode, gzip or not) into one ScanState, on this
 * thread (segment/source.ts) or cut into segments for the lanes and workers (parallel/pool.ts): a big plain file by
 * byte ranges, a gzip or stdin stream by chunks (segment/cut.ts finds where). */

import type { Readable } from 'node:stream';
import { ScanState, type InputStats, type SkipListener } from '../aggregate/scan-state.js';
import { DEFAULT_MAX_LINE_BYTES, leadingBytes } from '../input/lines.js';
import { promises as fsp, readSync } from 'node:fs';
import { describeFsError, openRaw, readAhead, readBytes, type Source } from '../input/sources.js';
import type { LocalLane, RangeCutter, ScanPool } from '../parallel/pool.js';
import { loadEngine } from '../decode/engine/engine.js';
import { dropParked } from '../input/parked.js';
import { MIN_SPLIT_BYTES } from '../segment/range-cut.js';
import { scanRange } from '../segment/feed.js';
import { continuesInNextLine, continuesKlogRecord, latestTimeBefore, latestTimeIn, lineEndAfter, LOOK_BEHIND_BYTES, MAX_KLOG_SKIP, splitPoints } from '../segment/cut.js';
import { destroyOnAbort, isMustGatherMetadata, plainLines, readChunks, readMetadata, readOne, sniffCsv, sniffDocumentMode, type InputFailure, type SourceReadOptions } from '../segment/source.js';

/** Options of the reading stage. */
export interface ReadOptions extends SourceReadOptions {
  etcdPrefix: string | null;
  onSkip: SkipListener | null;
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
      // One range a lane; a lane that runs out of work cuts the range with the most left (src/segment/range-cut.ts)
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

