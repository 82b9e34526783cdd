/*! gzip inflated on a thread of its own: zlib runs back to back in a small worker while this thread scans.
 *
 * Node's zlib streams inflate on the libuv pool, but each next call is started from this thread's event loop (the
 * callback of the call before). While this thread scans a megabyte of lines, inflate waits for it, and the two took
 * turns more than they overlapped: a 1 GB gzip scan on one thread left this thread idle 0.65 s of its 2.2 s. In a
 * worker, whose event loop does nothing else, zlib's callbacks run at once.
 *
 * The worker is this file's WORKER_SOURCE, evaluated (no file to find: the same in dist/, a bundle or the single
 * binary). This thread sends it the compressed bytes as they are read, at most IN_FLIGHT_IN ahead of what zlib has
 * taken; the worker sends back zlib's output buffers (transferred, not copied) and pauses zlib while OUT_UNREAD of
 * them wait here (the scan counts what it took in shared memory): memory stays bounded whatever the file's size
 * and however well it compresses. A file (not stdin, not a pipe) the worker reads on its own past the first bytes,
 * from a descriptor this thread opened and checked to be the file the scan began (InflateOptions.file). Every byte
 * zlib put out before an error reaches the scan, then the error, as zlib's own (code and message).
 *
 * A reader that keeps nothing of a chunk once it asks for the next (`Recycle`) gives zlib's buffers back, a few at a
 * time, and zlib writes its next output into them. Without that each megabyte was a new buffer: its pages were
 * faulted in on the libuv thread that inflated into it (270 ms of a 1 GB scan's CPU), and its memory, external to
 * V8, was freed by this thread's garbage collector (14 full collections, 220 ms with their helpers). */

import { closeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { park, takeParked } from './parked.js';

/** gzip streams of at least this many compressed bytes (about 13 MB of audit lines) are inflated on a thread of
 * their own; a shorter one, in a directory of small rotated files say, does not pay for the thread's start (about
 * 30 ms) and is inflated by zlib from the reading thread (sources.ts readBytes). */
export const INFLATE_THREAD_MIN_BYTES = 1 << 20;

/** The threshold, lowered by AUDIT_SCAN_INFLATE_MIN_BYTES (tests put small files through the thread); read here
 * and by bin/'s guess (src/cli/prewarm.ts), so that the two agree. */
export function inflateThreadMin(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.AUDIT_SCAN_INFLATE_MIN_BYTES);
  return env.AUDIT_SCAN_INFLATE_MIN_BYTES !== undefined && Number.isFinite(v) && v >= 0 ? v : INFLATE_THREAD_MIN_BYTES;
}

/** zlib's output buffers: 1 MB. */
const CHUNK_BYTES = 1 << 20;

/** Buffers given back to the worker at once (a message each cost about 80 us here). */
const GIVE_BACK = 4;

/** A reader's promise: `on` while it keeps nothing of a chunk it was given once it asks for the next one (it copies
 * what it keeps), so that the chunk's buffer can go back to zlib. Read when a chunk is given and again when the next
 * is asked for: a buffer goes back only if it was on both times. */
export interface Recycle {
  on: boolean;
}

/** Compressed bytes sent and not yet taken by zlib, at most. */
const IN_FLIGHT_IN = 8 << 20;
/** zlib's 1 MB output buffers sent and not yet taken here, at most (the worker pauses zlib at it). */
const OUT_UNREAD = 4;

/** The worker, CommonJS. zlib's output chunks are slices of a 1 MB buffer it fills and then leaves for a new one:
 * a buffer is transferred once the slices reach its end; the rest of one at the end or an error, and a chunk in a
 * buffer of another shape (a future zlib that pools), are copied. zlib takes each new buffer from
 * Buffer.allocUnsafe(chunkSize); in this worker, where zlib is all that runs, that call hands out a buffer the scan
 * gave back when there is one (a zlib that allocates otherwise just gets new ones, as before). */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createGunzip } = require('node:zlib');
const { Buffer } = require('node:buffer');
const fs = require('node:fs');
const CHUNK = ${CHUNK_BYTES};
const OUT_UNREAD = ${OUT_UNREAD};
const SPARE_MAX = ${OUT_UNREAD + 2 * GIVE_BACK};
const spare = [];
let reused = 0;
const allocUnsafe = Buffer.allocUnsafe;
Buffer.allocUnsafe = function (size) {
  if (size === CHUNK && spare.length > 0) {
    reused++;
    return Buffer.from(spare.pop());
  }
  return allocUnsafe(size);
};
const gz = createGunzip({ chunkSize: CHUNK });
const input = [];
// taken[0]: how many of the buffers sent the scan has taken (it counts them there: a message each cost it 80 us);
// taken[1]: while this thread waits for the scan, the count it waits for (sleeps()), else 0
const taken = new Int32Array(workerData);
let ended = false, writing = false, sent = 0, fed = 0, failed = false;
// the file this thread reads on its own ('file'): the scan's descriptor (the scan closes it), the next offset, and
// the buffer each read reuses
let fd = null, pos = 0, inbuf = null;
let cur = null, curLen = 0;
function send(ab, len) {
  sent++;
  parentPort.postMessage({ t: 'data', ab, len }, [ab]);
  // A megabyte of gzip can hold a gigabyte of repeated lines: zlib is paused, not just left unfed, until the scan
  // has taken enough (paused, it stops at its next buffer, and what it holds comes out first on resume).
  if (!gz.isPaused() && behind() && sleeps()) gz.pause();
}
const behind = () => sent - Atomics.load(taken, 0) >= OUT_UNREAD;
// Asleep: taken[1] holds the count the scan must reach (all but OUT_UNREAD / 2 taken), and the scan posts 'room'
// when it does: a message every other buffer or so, not one a buffer. (Atomics.waitAsync was tried for this: in a
// worker reading stdin its promise did not settle while the worker's loop had nothing else to do.)
function sleeps() {
  const target = sent - (OUT_UNREAD >> 1);
  Atomics.store(taken, 1, target);
  if (Atomics.load(taken, 0) < target) return true;
  Atomics.store(taken, 1, 0);
  return false;
}
// The scan took a buffer while this thread slept: zlib resumed and fed, unless still behind.
function room() {
  if (behind() && sleeps()) return;
  if (gz.isPaused()) gz.resume();
  pump();
}
// zlib is done with a buffer once it is full, or once a chunk comes in another: it is transferred
function flushCur() {
  if (cur !== null && curLen > 0) send(cur, curLen);
  cur = null;
  curLen = 0;
}
// at the end or an error zlib may still write into its buffer (its end can come before its flush), so a buffer
// it has not filled is copied
function copyCur() {
  if (cur !== null && curLen > 0) {
    const copy = new Uint8Array(curLen);
    copy.set(new Uint8Array(cur, 0, curLen));
    send(copy.buffer, curLen);
  }
  cur = null;
  curLen = 0;
}
gz.on('data', (c) => {
  const ab = c.buffer;
  if (ab.byteLength === CHUNK && (cur === ab ? c.byteOffset === curLen : c.byteOffset === 0)) {
    if (cur !== ab) flushCur();
    cur = ab;
    curLen = c.byteOffset + c.length;
    if (curLen === CHUNK) flushCur();
    return;
  }
  flushCur();
  const copy = new Uint8Array(c.length);
  copy.set(c);
  send(copy.buffer, c.length);
});
gz.on('end', () => {
  copyCur();
  parentPort.postMessage({ t: 'end', trailing: fed - gz.bytesWritten, reused });
});
gz.on('error', (err) => {
  failed = true;
  copyCur();
  parentPort.postMessage({ t: 'error', message: err.message, code: err.code, errno: err.errno });
});
// The next megabyte of the file, into the buffer the last one used (zlib is done with it: no write is under way).
function readFile() {
  let n = 0;
  try {
    n = fs.readSync(fd, inbuf, 0, CHUNK, pos);
  } catch (err) {
    fd = null;
    failed = true;
    copyCur();
    parentPort.postMessage({ t: 'error', message: err.message, code: err.code, errno: err.errno });
    return;
  }
  if (n === 0) {
    fd = null;
    ended = true;
    return;
  }
  pos += n;
  input.push(inbuf.subarray(0, n));
}
function pump() {
  for (;;) {
    if (writing || failed) return;
    if (input.length === 0 && fd === null) break;
    if (gz.isPaused()) return; // room() goes on
    if (behind()) {
      if (sleeps()) return;
      continue;
    }
    // nothing sent waits: the file's next megabyte (or its end, or a failed read)
    if (input.length === 0) {
      readFile();
      continue;
    }
    const b = input.shift();
    writing = true;
    fed += b.length;
    gz.write(b, () => {
      writing = false;
      if (b.buffer !== inbuf?.buffer) parentPort.postMessage({ t: 'taken', n: b.length });
      pump();
    });
  }
  if (!writing && !failed && ended && input.length === 0) {
    ended = false;
    gz.end();
  }
}
parentPort.on('message', (m) => {
  if (m.t === 'in') {
    // 1 MB slices: zlib drops the output of the call that meets garbage after the stream, one output chunk at most
    for (let i = 0; i < m.buf.length; i += CHUNK) input.push(m.buf.subarray(i, Math.min(m.buf.length, i + CHUNK)));
  } else if (m.t === 'end') ended = true;
  else if (m.t === 'room') return room();
  else if (m.t === 'file') {
    fd = m.fd;
    pos = m.at;
    inbuf = allocUnsafe(CHUNK); // (not one of zlib's, given back)
  }
  else if (m.t === 'back') {
    for (const ab of m.abs) if (ab.byteLength === CHUNK && spare.length < SPARE_MAX) spare.push(ab);
    return;
  }
  pump();
});
`;

/** A new inflate worker, and the counters it shares with the scan ([taken, waitTarget]). */
function startInflateWorker(): { w: Worker; shared: SharedArrayBuffer } {
  const shared = new SharedArrayBuffer(8);
  return { w: new Worker(WORKER_SOURCE, { eval: true, workerData: shared }), shared };
}

/** Starts an inflate worker and parks it for the first gzip stream of the scan (src/input/parked.ts): it boots
 * while the CLI's bundle loads, about 100 ms that the scan otherwise waited for its first inflated bytes. */
export function parkInflateWorker(): void {
  const { w, shared } = startInflateWorker();
  park('inflate', w, shared);
}

/** What inflateOffThread() may also be given: `recycle`, the reader's promise (see Recycle); `file`, a descriptor of
 * the file the stream reads, opened for this (it closes it), from which the worker reads the bytes after `head`
 * itself at offset `at` (`rest` is then not read); `seen`, filled in: `mostWaiting`, the most buffers that waited
 * here at once; `reused`, at the end, the buffers zlib wrote into again. */
export interface InflateOptions {
  recycle?: Recycle;
  file?: { fd: number; at: number };
  seen?: { mostWaiting: number; reused?: number };
}

/** Yields the inflated bytes of the gzip stream whose first chunk is `head` and whose rest `rest` yields (`owned`:
 * its chunks are the caller's to give away). Throws zlib's error after the bytes put out before it, or an Error
 * naming trailing bytes after the last member. */
export async function* inflateOffThread(head: Buffer, rest: AsyncIterator<Buffer>, owned: boolean, o: InflateOptions = {}): AsyncGenerator<Buffer> {
  const seen = o.seen ?? { mostWaiting: 0 };
  const recycle = o.recycle ?? { on: false };
  // the one bin/ started before the CLI's bundle loaded, if it did (src/cli/prewarm.ts)
  const parked = takeParked('inflate');
  const { w, shared } = parked === undefined ? startInflateWorker() : { w: parked.worker, shared: parked.data as SharedArrayBuffer };
  const taken = new Int32Array(shared);
  const out: Buffer[] = [];
  // read buffers on their way back to the worker (Recycle)
  let back: ArrayBuffer[] = [];
  let done = false;
  let failure: Error | null = null;
  let wake = null as (() => void) | null;
  const signal = (): void => {
    const f = wake;
    wake = null;
    f?.();
  };
  let inFlight = 0;
  let pumpWake = null as (() => void) | null;
  const wakeFeed = (): void => {
    const f = pumpWake;
    pumpWake = null;
    f?.();
  };
  w.on('message', (m: { t: string; ab?: ArrayBuffer; len?: number; n?: number; trailing?: number; reused?: number; message?: string; code?: string; errno?: number }) => {
    if (m.t === 'data') {
      out.push(Buffer.from(m.ab!, 0, m.len!));
      if (out.length > seen.mostWaiting) seen.mostWaiting = out.length;
    } else if (m.t === 'taken') {
      inFlight -= m.n!;
      wakeFeed();
      return;
    } else if (m.t === 'end') {
      seen.reused = m.reused;
      if (m.trailing! > 0) failure = new Error(`${m.trailing} bytes of trailing data after the gzip stream were ignored`);
      done = true;
    } else if (m.t === 'error') {
      failure = Object.assign(new Error(m.message), { code: m.code, errno: m.errno });
      done = true;
    }
    signal();
  });
  w.on('error', (err) => {
    failure ??= err;
    done = true;
    signal();
  });
  let stopped = false;
  // The compressed side: read ahead, at most IN_FLIGHT_IN bytes zlib has not taken.
  const feed = async (): Promise<void> => {
    try {
      let chunk: Buffer | null = head;
      while (!stopped) {
        if (chunk === null) {
          const n = await rest.next();
          if (n.done) break;
          chunk = n.value;
        }
        while (inFlight >= IN_FLIGHT_IN && !stopped && !done) await new Promise<void>((r) => (pumpWake = r));
        if (stopped || done) return;
        // A read of a file opened here, in a buffer of its own, goes as it is (transferred); a chunk of another's
        // stream (it may keep it), a view of a bigger buffer (a transfer or a clone would take all of it) or of
        // Node's pool (which cannot be transferred), as a copy.
        let buf: Uint8Array = chunk;
        if (!owned || chunk.byteOffset !== 0 || chunk.buffer.byteLength !== chunk.length || chunk.length < 65536) {
          buf = new Uint8Array(chunk.length);
          buf.set(chunk);
        }
        inFlight += buf.length;
        w.postMessage({ t: 'in', buf }, [buf.buffer as ArrayBuffer]);
        chunk = null;
      }
      if (!stopped) w.postMessage({ t: 'end' });
    } catch (err) {
      failure ??= err as Error;
      done = true;
      signal();
    }
  };
  if (o.file === undefined) void feed();
  else {
    // The head as it is (a copy: the caller may keep it); the rest the worker reads into one buffer it reuses:
    // a read a buffer of its own faulted its pages in (80 MB of gzip, 20,000 faults), and each read was a message.
    const buf = new Uint8Array(head);
    w.postMessage({ t: 'in', buf }, [buf.buffer]);
    w.postMessage({ t: 'file', fd: o.file.fd, at: o.file.at });
  }
  try {
    for (;;) {
      if (out.length > 0) {
        const b = out.shift()!;
        // taken from the queue: the worker may put out more
        tookOne(taken, w);
        const give = recycle.on;
        yield b;
        if (give && recycle.on && b.buffer.byteLength === CHUNK_BYTES && !done) {
          back.push(b.buffer as ArrayBuffer);
          if (back.length === GIVE_BACK) {
            w.postMessage({ t: 'back', abs: back }, back);
            back = [];
          }
        }
        continue;
      }
      if (done) break;
      await new Promise<void>((r) => (wake = r));
    }
    if (failure !== null) throw failure;
  } finally {
    stopped = true;
    wakeFeed();
    await w.terminate();
    if (o.file !== undefined) closeSync(o.file.fd);
  }
}

/** Counts a buffer taken (taken[0]) and wakes the worker with a message when it sleeps until this count (taken[1]). */
function tookOne(taken: Int32Array, w: Worker): void {
  const n = Atomics.add(taken, 0, 1) + 1;
  const want = Atomics.load(taken, 1);
  if (want !== 0 && n >= want && Atomics.compareExchange(taken, 1, want, 0) === want) w.postMessage({ t: 'room' });
}
