/*! One job: one source read whole, on this thread, as one segment of a ScanState (readOne; readSourceSegment for
 * `partial`): sniffed as lines, a CSV export or JSON documents, read straight into the engine when it is a plain
 * file of lines, else chunk by chunk (a stream, gzip), and a must-gather's metadata files counted as such. The
 * scan's orchestration across inputs and threads is scan/scan.ts. */

import type { Readable } from 'node:stream';
import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import type { ScanState } from '../aggregate/scan-state.js';
import type { createDocumentReader } from '../input/json-document.js';
import { LineSplitter } from '../input/lines.js';
import { describeFsError, openRaw, readBytes, type Source } from '../input/sources.js';
import { logsInsightsColumn } from '../decode/csv.js';
import { MUST_GATHER_METADATA } from '../decode/json-shape.js';
import { EngineFeeder, newSegmentFeeder, readIntoEngine } from './feed.js';

/** What reading one source takes (the scan's ReadOptions, scan/scan.ts, hold these and more). */
export interface SourceReadOptions {
  stdin: Readable;
  /** called with bytes read so far, for progress display */
  onProgress?: (source: Source, bytes: number) => void;
  /** called with each number of bytes read (by any thread), for the progress bar */
  onBytes?: (n: number) => void;
  maxLineBytes?: number;
  /** aborted by SIGINT: stop reading (also a read waiting on a terminal or a quiet pipe) and report what was read */
  signal?: AbortSignal;
  /** set by SIGINT: stop reading and report what was read (derived from `signal` when not given) */
  shouldStop?: () => boolean;
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

/** Reads a whole source as one segment of input `inputIndex`, begun with `key` and left open for the caller to
 * end (a partial result keeps its SegmentResult: src/parallel/partial.ts). Returns the message of a failure
 * part-way (recorded on the segment's counts, what was read before it kept), or null. */
export async function readSourceSegment(src: Source, state: ScanState, inputIndex: number, key: string, o: SourceReadOptions): Promise<string | null> {
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

/** Counts the lines of a file that describes a must-gather (its timestamp, its listings): no event in it. */
export async function readMetadata(src: Source, state: ScanState, o: SourceReadOptions): Promise<void> {
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

export async function readOne(src: Source, state: ScanState, o: SourceReadOptions, onGzip: () => void, onMode: (m: 'lines' | 'documents') => void): Promise<void> {
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
async function readPlainIntoEngine(path: string, src: Source, state: ScanState, o: SourceReadOptions): Promise<boolean> {
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
export function plainLines(first: Buffer): boolean {
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
export function destroyOnAbort(raw: Readable, signal: AbortSignal | undefined): () => void {
  if (signal === undefined) return () => {};
  const stop = (): void => {
    raw.destroy();
  };
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  return () => signal.removeEventListener('abort', stop);
}

/** The single-threaded reader: sniffs the mode from the first chunk, then feeds lines or documents. */
export async function readChunks(src: Source, state: ScanState, o: SourceReadOptions, chunks: AsyncIterable<Buffer> | AsyncIterator<Buffer>, onMode: (m: 'lines' | 'documents') => void): Promise<void> {
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
