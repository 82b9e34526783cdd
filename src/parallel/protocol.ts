/*! Messages between the main thread and scan workers (structured clone keeps Maps and Sets). */

import type { RangeCut } from '../segment/range-cut.js';
import type { SegmentResult, StateSnapshot, TimeOptions } from '../aggregate/scan-state.js';

export type ToWorker =
  | { t: 'init'; engine: boolean; etcdPrefix: string | null; maxLineBytes: number | undefined; maxGroups: number | undefined; time: TimeOptions }
  /** A byte range of a file. `lastOfInput`: no segment of its input follows, so its result needs no tail (the IDs
   * for the next segment's look-back). */
  | { t: 'range'; seq: number; inputIndex: number; name: string; path: string; start: number; end: number; firstOfInput: boolean; lastOfInput: boolean; beforeMs: number | null; cut?: RangeCut }
  /** A newline-aligned chunk of a stream. `runStart`: it begins a segment (a run of chunks, the same worker's,
   * `seq` the run's), which goes on with the worker's next chunks until 'endRun'. */
  | { t: 'chunk'; seq: number; runStart: boolean; inputIndex: number; name: string; buf: Uint8Array; firstOfInput: boolean; beforeMs: number | null }
  /** `last`: the stream's last run (no tail needed, as a range's lastOfInput) */
  | { t: 'endRun'; seq: number; last: boolean }
  | { t: 'finish' }
  | { t: 'stop' };

export type FromWorker =
  | { t: 'segment'; seq: number; result: SegmentResult }
  /** a chunk read: its buffer handed back to be filled again */
  | { t: 'chunk'; buf: ArrayBuffer }
  | { t: 'progress'; bytes: number }
  | { t: 'snapshot'; snapshot: StateSnapshot }
  | { t: 'error'; seq: number; message: string };
