/*! Follow mode's reading: every input at once, as it grows. Each input is pumped by its own reader (a file
 * followed like `tail -F`, stdin until it ends, a gzip or JSON-document file read once) into one queue; one
 * consumer feeds the chunks to each input's line feeder inside that input's own segment, which waits, suspended,
 * while another input's is read. At every tick each segment that holds no half-joined line is ended and
 * reconciled, as the worker threads' segments are, so a report of everything read so far can be built; the next
 * chunk begins a new segment that goes on from where it stopped. The final report is therefore the one a plain
 * scan of the same bytes gives. Memory: the queue holds at most a few chunks per input; the state is bounded as
 * in a plain scan. */

import type { Readable } from 'node:stream';
import { ScanState, type SuspendedSegment } from '../aggregate/scan-state.js';
import { followFile, type FollowEvent } from '../input/follow.js';
import { openRaw, readBytes, type Source } from '../input/sources.js';
import { readOneSource } from './scan.js';
import { sniffCsv, sniffDocumentMode } from '../segment/source.js';
import { newSegmentFeeder } from '../segment/feed.js';
import { promises as fsp } from 'node:fs';

export interface FollowReadOptions {
  stdin: Readable;
  pollMs: number;
  maxLineBytes?: number;
  /** stops following: files are read to their current end, then everything ends */
  signal: AbortSignal;
  onEvent: (input: string, e: FollowEvent | { kind: 'read-once'; why: string }) => void;
}

interface Followed {
  src: Source;
  index: number;
  feeder: ReturnType<typeof newSegmentFeeder> | null;
  segment: SuspendedSegment | null;
  /** the latest event time before the next segment: its gaps are measured from it */
  before: number | null;
  done: boolean;
}

/** The first bytes of a file, or null when it cannot be read yet. */
async function head(path: string): Promise<Buffer | null> {
  const fh = await fsp.open(path, 'r').catch(() => null);
  if (fh === null) return null;
  try {
    const b = Buffer.alloc(1 << 16);
    const { bytesRead } = await fh.read(b, 0, b.length, 0);
    return b.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Reads `sources` into `state` as they grow. `tick()` makes what was read so far part of the state (call it
 * before building a report); `done` resolves when every input has ended (stdin at its end; files when the
 * signal aborts), after the last segments are reconciled and finishPending() ran. */
export class FollowReader {
  readonly readBytes = { n: 0 };
  private readonly inputs: Followed[] = [];
  private readonly queue: Array<{ f: Followed; chunk: Buffer | null }> = [];
  private wake: (() => void) | null = null;
  readonly done: Promise<void>;

  constructor(
    private readonly state: ScanState,
    sources: Source[],
    private readonly o: FollowReadOptions,
  ) {
    state.interleaved = true;
    for (const src of sources) this.inputs.push({ src, index: -1, feeder: null, segment: null, before: null, done: false });
    this.done = this.run();
  }

  private async run(): Promise<void> {
    // Inputs that are not line streams that grow (gzip, JSON documents, CSV exports) are read once, first.
    const live: Followed[] = [];
    for (const f of this.inputs) {
      if (f.src.path !== null) {
        const h = await head(f.src.path);
        const why = h === null ? null : h[0] === 0x1f && h[1] === 0x8b ? 'gzip' : sniffDocumentMode(h) ? 'JSON documents' : sniffCsv(h) !== null ? 'a CSV export' : null;
        if (why !== null) {
          this.o.onEvent(f.src.name, { kind: 'read-once', why });
          await readOneSource(f.src, this.state, { stdin: this.o.stdin, maxLineBytes: this.o.maxLineBytes, onBytes: (n) => (this.readBytes.n += n) });
          f.done = true;
          continue;
        }
      }
      f.index = this.state.addInput(f.src.name);
      this.state.inputs[f.index]!.fileTimeMs = f.src.mtimeMs ?? null;
      live.push(f);
    }
    const pumps = live.map((f) => this.pump(f));
    await this.consume(live.length, pumps);
    for (const f of live) this.close(f);
    this.state.finishPending();
  }

  /** One input's bytes into the queue; a null chunk says it ended. */
  private async pump(f: Followed): Promise<void> {
    // a pipe that stays open (tail -f, kubectl logs -f) is closed on stop, so the read parked on it returns
    const raw = f.src.path === null ? openRaw(f.src, this.o.stdin) : null;
    const close = (): void => void raw?.destroy();
    if (raw !== null) this.o.signal.addEventListener('abort', close, { once: true });
    try {
      const chunks = raw !== null ? readBytes(raw, () => {}, false, Infinity) : followFile(f.src.path!, { pollMs: this.o.pollMs, signal: this.o.signal, onEvent: (e) => this.o.onEvent(f.src.name, e) });
      for await (const chunk of chunks) {
        this.push(f, chunk);
        // a stream held back until the consumer has caught up: the queue stays small
        while (this.queue.length > 8) await new Promise((r) => setImmediate(r));
        if (f.src.path === null && this.o.signal.aborted) break;
      }
    } catch (err) {
      if (!this.o.signal.aborted) this.o.onEvent(f.src.name, { kind: 'read-once', why: `stopped: ${(err as Error).message}` });
    } finally {
      this.o.signal.removeEventListener('abort', close);
      this.push(f, null);
    }
  }

  private push(f: Followed, chunk: Buffer | null): void {
    this.queue.push({ f, chunk });
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private async consume(n: number, pumps: Array<Promise<void>>): Promise<void> {
    let open = n;
    while (open > 0) {
      const item = this.queue.shift();
      if (item === undefined) {
        await new Promise<void>((r) => (this.wake = r));
        continue;
      }
      if (item.chunk === null) {
        open--;
        continue;
      }
      this.readBytes.n += item.chunk.length;
      this.enter(item.f);
      item.f.feeder!.push(item.chunk);
      this.leave(item.f);
    }
    await Promise.all(pumps);
  }

  /** Makes `f`'s segment current: resumed, or begun where the last one ended. */
  private enter(f: Followed): void {
    if (f.segment !== null) {
      this.state.resumeSegment(f.segment);
      f.segment = null;
      return;
    }
    this.state.beginSegment(f.index, f.src.name, undefined, f.before);
    f.feeder ??= newSegmentFeeder(this.state, true, this.o.maxLineBytes);
  }

  private leave(f: Followed): void {
    f.segment = this.state.suspendSegment();
  }

  /** Ends and reconciles every segment that can be cut now (none holds half of a split line). */
  tick(): void {
    for (const f of this.inputs) {
      if (f.segment === null) continue;
      this.state.resumeSegment(f.segment);
      f.segment = null;
      if (this.state.segmentHoldsPart) {
        f.segment = this.state.suspendSegment();
        continue;
      }
      const r = this.state.endSegment(true);
      if (r.timing.lastT !== null) f.before = Math.max(f.before ?? -Infinity, r.timing.lastT);
      this.state.reconcile(r);
    }
  }

  /** The input's end: its held partial line is its last line, as at the end of a file. */
  private close(f: Followed): void {
    if (f.feeder === null && f.segment === null) return;
    this.enter(f);
    f.feeder!.end();
    this.state.reconcile(this.state.endSegment(false));
  }
}
