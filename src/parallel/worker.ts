/*! Worker thread: reads segments (a byte range of a file, or a newline-aligned chunk of a stream) into its own
 * ScanState and posts each segment's result, then its aggregates at the end. Runs the same line code as the
 * single-threaded path (segment/feed.ts newSegmentFeeder), so results do not depend on the thread count. */

import { parentPort } from 'node:worker_threads';
import { ScanState, type SegmentResult } from '../aggregate/scan-state.js';
import { newSegmentFeeder, scanRange } from '../segment/feed.js';
import { loadEngine } from '../decode/engine/engine.js';
import type { ToWorker, FromWorker } from './protocol.js';

const port = parentPort!;
// Compiled and instantiated at once: a worker bin/ started early (src/parallel/prewarm.ts) has it ready when the
// scan's options arrive.
const warm = loadEngine();
let state: ScanState | null = null;
let maxLineBytes: number | undefined;
const readBuf = Buffer.allocUnsafe(1 << 20);
/** the stream segment (a run of chunks) being read */
let run: ReturnType<typeof newSegmentFeeder> | null = null;

const post = (m: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

// One segment at a time: a ScanState has one current segment, and reading a range awaits I/O.
let queue: Promise<void> = Promise.resolve();
let stopped = false;
port.on('message', (m: ToWorker) => {
  // SIGINT in the main thread: finish the current segment early; it still reports what it read.
  if (m.t === 'stop') {
    stopped = true;
    return;
  }
  queue = queue.then(() => handle(m)).catch((err: unknown) => post({ t: 'error', seq: 'seq' in m ? m.seq : -1, message: (err as Error).message ?? String(err) }));
});

async function handle(m: ToWorker): Promise<void> {
  switch (m.t) {
    case 'init':
      state = new ScanState(m.etcdPrefix, null, m.maxGroups, m.time);
      state.foldLate = true;
      if (m.engine) state.engine = warm.engine;
      maxLineBytes = m.maxLineBytes;
      return;
    case 'range': {
      const result = await scanRange(state!, m, maxLineBytes, readBuf, () => stopped, (bytes) => post({ t: 'progress', bytes }));
      post({ t: 'segment', seq: m.seq, result }, tailBuffers(result));
      return;
    }
    case 'chunk': {
      const s = state!;
      if (m.runStart) {
        s.beginSegment(m.inputIndex, m.name, `w${m.seq}`, m.beforeMs);
        run = newSegmentFeeder(s, m.firstOfInput, maxLineBytes);
      }
      run!.push(Buffer.from(m.buf.buffer, m.buf.byteOffset, m.buf.byteLength));
      // The chunk's buffer goes back for the main thread to fill again (nothing here keeps a view of it: the feeder
      // copies what it keeps): fresh 8 MB buffers for each chunk cost the gzip scan page faults.
      const buf = m.buf.buffer as ArrayBuffer;
      post({ t: 'chunk', buf }, [buf]);
      return;
    }
    case 'endRun': {
      run!.end();
      run = null;
      const result = state!.endSegment(!m.last);
      post({ t: 'segment', seq: m.seq, result }, tailBuffers(result));
      return;
    }
    case 'stop':
      return;
    case 'finish':
      post({ t: 'snapshot', snapshot: state!.snapshot() });
      return;
  }
}

/** The buffers of a result's look-back tail, moved rather than copied (they are its own: dedupTail copies). */
function tailBuffers(r: SegmentResult): ArrayBuffer[] {
  const { bytes, ends, hashes } = r.tail;
  if (ends.length === 0) return [];
  const own = [bytes.buffer as ArrayBuffer, ends.buffer as ArrayBuffer];
  return hashes === undefined ? own : [...own, hashes.buffer as ArrayBuffer];
}
