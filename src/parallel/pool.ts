/*! A pool of scan lanes. Hands out segments, reconciles their results into the main ScanState in segment order,
 * and merges the lanes' aggregates at the end.
 *
 * A big plain file's byte ranges go to `threads` lanes: the main thread's own lane (a ScanState of its own, fed by
 * `LocalLane`) and `threads - 1` workers. The main thread has little else to do while ranges are read (it reconciles
 * a result now and then), and a worker costs a V8 heap, a module memory and a malloc arena of its own: about 80 MB
 * of the 1 GB bench scan's peak RSS. A gzip file or stdin keeps `threads` workers: there the main thread inflates,
 * cuts and posts the chunks, and is the busiest thread of the scan. A file starts as one range a lane; a lane that
 * is free, with no range queued, cuts the range with the most left to read about half-way through what is left
 * (segment/range-cut.ts), so that lanes that started late or read slower (the main thread's also reconciles) end
 * together, at the cost of a segment's edges only where a cut was needed. */

import type { Worker } from 'node:worker_threads';
import type { ScanState, SegmentResult, StateSnapshot, TimeOptions } from '../aggregate/scan-state.js';
import type { FromWorker, ToWorker } from './protocol.js';
import { startWorker, takeParkedWorker } from './prewarm.js';
import { claimedAndEnd, cutAt, newRangeCut, unclaimed } from '../segment/range-cut.js';

/** Chunk buffers kept for reuse (at most QUEUED_CHUNKS a worker are in flight, and a worker hands one back as the
 * main thread fills the next). */
const SPARE_BUFFERS = 4;
/** A stream's chunks go to the workers in runs of this many, each run one segment of one worker: a segment's head
 * (the final events of requests received in its first second, which reconcile() counts on this thread, one
 * `AuditEvent` each) and its tail come once a run, not once a chunk. On the 1 GB bench log (about 500 requests a
 * second, 8 MB chunks) a head was a sixth of each chunk's requests. The gzip bench log against one chunk a
 * segment (farm-bench -n 7, wall): 8 chunks 0.79, then against 8: 16 chunks 0.92, 32 chunks 0.90; peak RSS
 * grows with the run (a worker's dedup ring fills): 259, 270, 277 MiB. */
const RUN_CHUNKS = 16;
/** Chunks a worker may have queued: about half a run, so that the worker not being fed has work while the other's
 * run is cut. */
const QUEUED_CHUNKS = 4;

type RangeMessage = Extract<ToWorker, { t: 'range' }>;

/** How the ranges of one file may be cut when a lane runs out of work (segment/range-cut.ts): the least a lane must
 * have left to be cut (a cut costs a segment's edges), and where the line that `at` falls in ends, with the latest
 * time before it (scan/scan.ts readParallel: the file is open until its ranges are read). */
export interface RangeCutter {
  minBytes: number;
  align(at: number): Promise<{ at: number; beforeMs: number | null } | null>;
}

/** The main thread's lane: reads a range into a ScanState of its own (src/segment/feed.ts scanRange), as a worker
 * does. */
export interface LocalLane {
  range(m: RangeMessage): Promise<SegmentResult>;
  /** cuts the current range short (SIGINT) */
  stop(): void;
  /** the lane's aggregates, or null when it read nothing; the lane reads no more after it */
  snapshot(): StateSnapshot | null;
}

export class ScanPool {
  private readonly workers: Worker[] = [];
  private readonly busy: number[] = [];
  private nextSeq = 0;
  /** the segments not reconciled yet, in input order (a range cut from another goes right after it) */
  private readonly order: number[] = [];
  private readonly done = new Map<number, SegmentResult>();
  private readonly waiters: Array<() => void> = [];
  private failure: Error | null = null;
  private snapshots = 0;
  private snapshotDone: (() => void) | null = null;
  /** chunk buffers the workers handed back, for takeBuffer() */
  private readonly spare: ArrayBuffer[] = [];
  /** ranges no lane has taken yet */
  private readonly ranges: RangeMessage[] = [];
  private localBusy = false;
  private localRead = false;
  /** the range each worker and the main thread's lane is reading, when it may be cut */
  private readonly reading: Array<RangeMessage | null> = [];
  private localReading: RangeMessage | null = null;
  /** how each input's ranges are cut, by input index */
  private readonly cutters = new Map<number, RangeCutter>();
  private cutting = false;
  private stopping = false;
  /** a file's ranges are being queued: no cuts yet (a lane free for a moment then is not out of work) */
  private queueing = false;
  private readonly init: ToWorker;
  /** chunks sent to each worker and not read yet */
  private readonly queued: number[] = [];
  /** the stream segment being sent: its worker, seq and chunks so far */
  private run: { worker: number; seq: number; chunks: number } | null = null;

  /** `size` threads read; `local`: the main thread's lane, one of them for ranges (null: workers only). */
  constructor(
    private readonly state: ScanState,
    readonly size: number,
    etcdPrefix: string | null,
    maxLineBytes: number | undefined,
    maxGroups: number | undefined,
    time: TimeOptions,
    private readonly onBytes: (n: number) => void = () => {},
    private readonly local: LocalLane | null = null,
  ) {
    this.init = { t: 'init', engine: state.engine !== null, etcdPrefix, maxLineBytes, maxGroups, time };
  }

  /** Starts workers until there are `n` (they load while the main thread goes on). */
  private spawn(n: number): void {
    while (this.workers.length < n) {
      const i = this.workers.length;
      // the one bin/ started before the CLI's bundle loaded, if it did (prewarm.ts)
      const w = (i === 0 ? takeParkedWorker() : undefined) ?? startWorker();
      w.on('message', (m: FromWorker) => this.onMessage(i, m));
      w.on('error', (err) => this.fail(err));
      this.workers.push(w);
      this.busy.push(0);
      this.queued.push(0);
      this.reading.push(null);
      this.send(i, this.init);
    }
  }

  private send(i: number, m: ToWorker, transfer: ArrayBuffer[] = []): void {
    this.workers[i]!.postMessage(m, transfer);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiters.splice(0)) w();
    this.snapshotDone?.();
  }

  private onMessage(i: number, m: FromWorker): void {
    switch (m.t) {
      case 'progress':
        this.onBytes(m.bytes);
        return;
      case 'error':
        this.fail(new Error(m.message));
        return;
      case 'chunk':
        this.queued[i]!--;
        if (this.spare.length < SPARE_BUFFERS) this.spare.push(m.buf);
        for (const w of this.waiters.splice(0)) w();
        return;
      case 'segment':
        this.busy[i]!--;
        if (this.reading[i]?.seq === m.seq) this.reading[i] = null;
        this.segmentDone(m.seq, m.result);
        return;
      case 'snapshot':
        // The worker is done: its heap and module memory go back before the main thread's merge and report grow.
        void this.workers[i]!.terminate();
        this.state.mergeSnapshot(m.snapshot);
        if (++this.snapshots === this.workers.length) this.snapshotDone?.();
        return;
    }
  }

  private segmentDone(seq: number, result: SegmentResult): void {
    this.done.set(seq, result);
    // The lane that finished gets its next range before the results are reconciled (20-60 ms on the 1 GB log):
    // the worker waited for that before.
    this.pump();
    // Segments of one input must join in order (etcd lines at the edges), so reconcile in sequence.
    while (this.order.length > 0 && this.done.has(this.order[0]!)) {
      const seq = this.order.shift()!;
      const r = this.done.get(seq)!;
      this.done.delete(seq);
      this.state.reconcile(r);
    }
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Hands queued ranges to free lanes: the main thread's lane first, then a worker; with none queued, a free lane
   * takes part of the range with the most left to read. The main thread's lane first: it reads at once, while the
   * pool's worker may still be booting (on the 1 GB bench log it began 10-130 ms after the main thread), and a
   * file's first range is its first segment to reconcile, so the lane that starts first more often has it done,
   * reconciled and its tail in the look-back while the other still reads, not at the end when both wait for it
   * (the 1 GB scan, farm-bench -n 15 and -n 21 twice, A and B swapped: 0.974, 0.986 and 0.988 of the time). */
  private pump(): void {
    while (this.ranges.length > 0 && this.failure === null) {
      if (this.local !== null && !this.localBusy) {
        this.runLocal(this.local, this.ranges.shift()!);
        continue;
      }
      const w = this.busy.indexOf(0);
      if (w >= 0) {
        this.busy[w]!++;
        const m = this.ranges.shift()!;
        this.reading[w] = m.cut === undefined ? null : m;
        this.send(w, m);
        continue;
      }
      return;
    }
    void this.cutForFreeLane();
  }

  /** A free lane (and no range queued): the range with the most left to read is cut at a line's end about half-way
   * through what is left, and the part after the cut queued. One cut at a time; none once stopping. */
  private async cutForFreeLane(): Promise<void> {
    if (this.cutting || this.queueing || this.stopping || this.failure !== null || this.ranges.length > 0) return;
    const free = this.busy.includes(0) || (this.local !== null && !this.localBusy);
    if (!free) return;
    let victim: RangeMessage | null = null;
    let most = 0;
    for (const r of [...this.reading, this.localReading]) {
      if (r === null || r.cut === undefined) continue;
      const left = unclaimed(r.cut);
      if (left >= this.cutters.get(r.inputIndex)!.minBytes && left > most) {
        most = left;
        victim = r;
      }
    }
    if (victim === null) return;
    this.cutting = true;
    try {
      const c = victim.cut!;
      const { claimed, end } = claimedAndEnd(c);
      const at = await this.cutters.get(victim.inputIndex)!.align(claimed + Math.floor((end - claimed) / 2));
      if (at === null || at.at >= end || this.stopping || this.failure !== null) return;
      const last = cutAt(c, at.at, end);
      if (last === null) return; // the lane read past it meanwhile
      const seq = this.nextSeq++;
      const m: RangeMessage = { ...victim, seq, start: at.at, end, firstOfInput: false, lastOfInput: last, beforeMs: at.beforeMs, cut: newRangeCut(at.at, end, last) };
      this.order.splice(this.order.indexOf(victim.seq) + 1, 0, seq);
      this.ranges.unshift(m);
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.cutting = false;
      this.wake();
    }
    this.pump();
  }

  private runLocal(lane: LocalLane, m: RangeMessage): void {
    this.localBusy = true;
    this.localRead = true;
    this.localReading = m.cut === undefined ? null : m;
    // A turn first: the caller goes on queueing ranges (and the workers get theirs) before this thread reads.
    setImmediate(() => {
      // (a throw while the lane is set up rejects too, as a read's failure does)
      Promise.resolve()
        .then(() => lane.range(m))
        .then(
          (r) => {
            this.localBusy = false;
            this.localReading = null;
            // Not copied as a worker's result is (structured clone: 30-60 ms a segment on the 1 GB log):
            // endSegment() hands over objects made for the segment, which the lane's state no longer holds, all
            // plain data.
            this.segmentDone(m.seq, r);
          },
          (err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))),
        );
    });
  }

  /** Holds cuts while a file's ranges are queued one by one (true), and lets them go (false). Without it the lane
   * still waiting for the second range cut the first, and the file had a segment edge more. */
  queueingRanges(on: boolean): void {
    this.queueing = on;
    if (!on) this.pump();
  }

  /** Waits until fewer than `limit` segments are in flight. */
  async throttle(limit: number): Promise<void> {
    while (!this.failure && this.order.length + (this.cutting ? 1 : 0) >= limit) await new Promise<void>((r) => this.waiters.push(r));
    if (this.failure) throw this.failure;
  }

  /** Queues a byte range [start, end) of a file. `beforeMs`: the latest event time just before the range (see
   * ScanState.beginSegment). */
  submitRange(inputIndex: number, name: string, path: string, start: number, end: number, firstOfInput: boolean, lastOfInput: boolean, beforeMs: number | null, cutter?: RangeCutter): void {
    this.spawn(this.local === null ? this.size : this.size - 1);
    const seq = this.nextSeq++;
    this.order.push(seq);
    if (cutter !== undefined) this.cutters.set(inputIndex, cutter);
    this.ranges.push({ t: 'range', seq, inputIndex, name, path, start, end, firstOfInput, lastOfInput, beforeMs, ...(cutter === undefined ? {} : { cut: newRangeCut(start, end, lastOfInput) }) });
    this.pump();
  }

  /** A buffer of at least `bytes` for the next chunk: one a worker handed back when there is one that big. */
  takeBuffer(bytes: number): ArrayBuffer {
    for (let k = this.spare.length - 1; k >= 0; k--) {
      if (this.spare[k]!.byteLength >= bytes) return this.spare.splice(k, 1)[0]!;
    }
    return new ArrayBuffer(bytes);
  }

  /** The worker the next chunk goes to, and whether it begins a run. */
  private nextChunkLane(firstOfInput: boolean): { worker: number; runStart: boolean } {
    const r = this.run;
    if (r !== null && !firstOfInput && r.chunks < RUN_CHUNKS) return { worker: r.worker, runStart: false };
    // a new run: the worker with the fewest chunks still to read
    let best = 0;
    for (let i = 1; i < this.queued.length; i++) if (this.queued[i]! < this.queued[best]!) best = i;
    return { worker: best, runStart: true };
  }

  /** Waits until the lane of the next chunk has room for it (and, for a new run, until fewer than `threads` × 2
   * segments wait to be reconciled). */
  async throttleChunk(firstOfInput: boolean): Promise<void> {
    this.spawn(this.size);
    for (;;) {
      if (this.failure) throw this.failure;
      const { worker, runStart } = this.nextChunkLane(firstOfInput);
      if (this.queued[worker]! < QUEUED_CHUNKS && (!runStart || this.order.length < this.size * 2)) return;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Queues a newline-aligned chunk of a stream (the buffer is transferred, not copied), after throttleChunk(). */
  submitChunk(inputIndex: number, name: string, buf: Uint8Array, firstOfInput: boolean, beforeMs: number | null): void {
    this.spawn(this.size);
    const { worker, runStart } = this.nextChunkLane(firstOfInput);
    if (runStart) {
      this.endRun();
      this.busy[worker]!++;
      this.run = { worker, seq: this.nextSeq++, chunks: 0 };
      this.order.push(this.run.seq);
    }
    const r = this.run!;
    r.chunks++;
    this.queued[worker]!++;
    this.send(worker, { t: 'chunk', seq: r.seq, runStart, inputIndex, name, buf, firstOfInput, beforeMs }, [buf.buffer as ArrayBuffer]);
  }

  /** Ends the stream segment being sent: its worker hands its result in. `last`: the stream ends with it. */
  private endRun(last = false): void {
    if (this.run === null) return;
    this.send(this.run.worker, { t: 'endRun', seq: this.run.seq, last });
    this.run = null;
  }

  /** Asks every lane to cut its current segment short (SIGINT). */
  stop(): void {
    this.stopping = true;
    for (let i = 0; i < this.workers.length; i++) this.send(i, { t: 'stop' });
    this.local?.stop();
  }

  /** Ends the stream segment being sent (an input's last: drain() is called at each input's end), and waits for
   * every queued segment to be reconciled. */
  async drain(): Promise<void> {
    this.endRun(true);
    await this.throttle(1);
  }

  /** Drains, merges every lane's aggregates into the state, and stops the workers. */
  async close(): Promise<void> {
    try {
      await this.drain();
      const snapshots =
        this.workers.length === 0
          ? null
          : new Promise<void>((resolve) => {
              this.snapshotDone = resolve;
              for (let i = 0; i < this.workers.length; i++) this.send(i, { t: 'finish' });
            });
      // The main thread's lane is merged while the workers make theirs. Not copied as a worker's snapshot is (a
      // structured clone): mergeSnapshot copies what it keeps of the series and reads the rest as data, so its
      // classes' instances do as well as their clones, and the lane's state is let go once it is merged: one copy
      // of the aggregates fewer at the scan's peak (the 10 GB bench log's was 232 MiB with the copy).
      const own = this.localRead ? this.local!.snapshot() : null;
      if (own !== null) this.state.mergeSnapshot(own);
      if (snapshots !== null) await snapshots;
      if (this.failure) throw this.failure;
    } finally {
      await Promise.all(this.workers.map((w) => w.terminate()));
    }
  }
}
