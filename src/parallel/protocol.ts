/*! Messages between the main thread and scan workers (structured clone keeps Maps and Sets). */

import type { SegmentResult, StateSnapshot, TimeOptions } from '../aggregate/scan-state.js';

export type ToWorker =
  | { t: 'init'; engine: boolean; etcdPrefix: string | null; maxLineBytes: number | undefined; maxGroups: number | undefined; time: TimeOptions }
  | { t: 'range'; seq: number; inputIndex: number; name: string; path: string; start: number; end: number; firstOfInput: boolean; beforeMs: number | null }
  | { t: 'chunk'; seq: number; inputIndex: number; name: string; buf: Uint8Array; firstOfInput: boolean; beforeMs: number | null }
  | { t: 'finish' }
  | { t: 'stop' };

export type FromWorker =
  | { t: 'segment'; seq: number; result: SegmentResult; buf?: ArrayBuffer }
  | { t: 'progress'; bytes: number }
  | { t: 'snapshot'; snapshot: StateSnapshot }
  | { t: 'error'; seq: number; message: string };
