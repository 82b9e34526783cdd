/*! The scan driver: reads each source (line mode or document mode, gzip or not) into one ScanState.
 * Sniffs the first bytes to choose the mode; decodes lines as UTF-8 and counts the ones it had to repair. */

import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { ScanState, type SkipListener } from './analyze/scan-state.js';
import { createDocumentReader } from './input/json-document.js';
import { LineSplitter } from './input/lines.js';
import { describeFsError, openRaw, readBytes, type Source } from './input/sources.js';

/** Options of the reading stage. */
export interface ReadOptions {
  etcdPrefix: string;
  stdin: Readable;
  onSkip: SkipListener | null;
  /** called with bytes read so far, for progress display */
  onProgress?: (source: Source, bytes: number) => void;
  maxLineBytes?: number;
  /** set by SIGINT: stop reading and report what was read */
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

/** Reads every source into `state`. Returns the inputs that failed (unreadable, corrupt gzip). */
export async function readSources(sources: Source[], state: ScanState, o: ReadOptions): Promise<InputFailure[]> {
  const failures: InputFailure[] = [];
  for (const src of sources) {
    if (o.shouldStop?.()) break;
    const inp = state.beginInput(src.name);
    try {
      await readOne(src, state, o, () => (inp.gzip = true), (mode) => (inp.format = mode));
    } catch (err) {
      const message = describeFsError(err);
      inp.error = message;
      failures.push({ name: src.name, message });
    } finally {
      state.endInput();
    }
  }
  state.finishPending();
  return failures;
}

async function readOne(src: Source, state: ScanState, o: ReadOptions, onGzip: () => void, onMode: (m: 'lines' | 'documents') => void): Promise<void> {
  const raw = openRaw(src, o.stdin);
  let bytes = 0;
  let splitter: LineSplitter | null = null;
  let doc: ReturnType<typeof createDocumentReader> | null = null;
  let docLines = 0;
  let first = true;
  try {
    for await (const chunk of readBytes(raw, onGzip)) {
      bytes += chunk.length;
      o.onProgress?.(src, bytes);
      if (first) {
        first = false;
        if (sniffDocumentMode(chunk.subarray(0, 1 << 16))) {
          onMode('documents');
          doc = createDocumentReader((where, v, key) => state.addDocumentValue(where, v, key));
        } else {
          splitter = new LineSplitter(
            (buf, start, end, lineNo, terminated) => feedLine(state, buf, start, end, lineNo, terminated, lineNo === 1),
            (lineNo, n, head) => state.skipRawLine(lineNo, `line too long (${n} bytes)`, head.toString('utf8')),
            o.maxLineBytes,
          );
        }
      }
      if (doc !== null) {
        docLines += countNewlines(chunk);
        await doc.write(chunk);
      } else {
        splitter!.push(chunk);
      }
      if (o.shouldStop?.()) break;
    }
  } finally {
    if (doc !== null) {
      const tail = await doc.end();
      if (tail !== null) state.skipDocumentTail('end', tail);
      state.setDocumentLines(docLines);
    } else {
      splitter?.end();
    }
    if (src.path !== null) raw.destroy();
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

function feedLine(state: ScanState, buf: Buffer, start: number, end: number, lineNo: number, terminated: boolean, isFirst: boolean): void {
  if (isFirst && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
  const text = buf.toString('utf8', start, end);
  // toString() already replaced invalid sequences with U+FFFD; count the line as repaired if that happened.
  const repaired = text.indexOf('\ufffd') >= 0 && !isUtf8(buf.subarray(start, end));
  state.addLine(lineNo, text, terminated, repaired);
}
