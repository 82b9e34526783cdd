/*! Worker thread: reads segments (a byte range of a file, or a newline-aligned chunk of a stream) into its own
 * ScanState and posts each segment's result, then its aggregates at the end. Runs the same line code as the
 * single-threaded path (scan.ts feedSegment), so results do not depend on the thread count. */

import { parentPort } from 'node:worker_threads';
import { closeSync, openSync, readSync } from 'node:fs';
import { ScanState } from '../aggregate/scan-state.js';
import { newSegmentFeeder } from '../scan/scan.js';
import { loadEngine } from '../decode/engine/engine.js';
import type { ToWorker, FromWorker } from './protocol.js';

const port = parentPort!;
let state: ScanState | null = null;
let maxLineBytes: number | undefined;
const readBuf = Buffer.allocUnsafe(1 << 20);

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
      if (m.engine) state.engine = loadEngine().engine;
      maxLineBytes = m.maxLineBytes;
      return;
    case 'range': {
      const s = state!;
      s.beginSegment(m.inputIndex, m.name, `w${m.seq}`, m.beforeMs);
      const feed = newSegmentFeeder(s, m.firstOfInput, maxLineBytes);
      let bytes = 0;
      let error: string | null = null;
      // Read synchronously into one buffer: a worker reads one range at a time, and the feeder copies what it keeps
      // (the engine its input, a held part of a line its bytes), so the buffer is free again when push returns.
      // A stream's reads went through the thread pool (the worker idled 15% of a 1 GB scan waiting for them) and
      // left a new 1 MB buffer a read for the garbage collector. The event loop gets a turn every 16 MB, for 'stop'.
      let fd: number | null = null;
      try {
        fd = openSync(m.path, 'r');
        for (let at = m.start, turn = 0; at < m.end && !stopped; ) {
          const n = readSync(fd, readBuf, 0, Math.min(readBuf.length, m.end - at), at);
          if (n === 0) break;
          feed.push(readBuf.subarray(0, n));
          at += n;
          bytes += n;
          if (bytes >= 16 << 20) {
            post({ t: 'progress', bytes });
            bytes = 0;
          }
          if (++turn % 16 === 0) await new Promise<void>((r) => setImmediate(r));
        }
      } catch (err) {
        error = (err as Error).message;
      } finally {
        if (fd !== null) closeSync(fd);
      }
      feed.end();
      const result = s.endSegment();
      if (error !== null) result.input.error = error;
      post({ t: 'progress', bytes });
      post({ t: 'segment', seq: m.seq, result });
      return;
    }
    case 'chunk': {
      const s = state!;
      s.beginSegment(m.inputIndex, m.name, `w${m.seq}`, m.beforeMs);
      const feed = newSegmentFeeder(s, m.firstOfInput, maxLineBytes);
      feed.push(Buffer.from(m.buf.buffer, m.buf.byteOffset, m.buf.byteLength));
      feed.end();
      post({ t: 'segment', seq: m.seq, result: s.endSegment() });
      return;
    }
    case 'stop':
      return;
    case 'finish':
      post({ t: 'snapshot', snapshot: state!.snapshot() });
      return;
  }
}
