/*! One job: where a file or a stream of lines may be cut between segments, and what the segment after a cut
 * needs to know: a line's end that splits no line a container runtime split in parts and no klog record of several
 * lines (a trace block), and the latest event time before the cut (for the segment's head and gaps). Used by the
 * scan's lanes (scan/scan.ts) and by `partial` pieces (parallel/partial.ts). */

import { readSync } from 'node:fs';
import { parseTimestampMs } from '../decode/time.js';

/** How far before a cut latestTimeIn() looks. */
export const LOOK_BEHIND_BYTES = 64 << 10;
// The time a scan orders events by: stageTimestamp (legacy: timestamp), else requestReceivedTimestamp.
const STAGE_TIME = /\\?"(?:stageTimestamp|timestamp)\\?"\s*:\s*\\?"([^"\\]{10,40})/g;
const RECEIVED_TIME = /\\?"requestReceivedTimestamp\\?"\s*:\s*\\?"([^"\\]{10,40})/g;

/** The latest audit event time in the last 64 KB of `b`: when the segment that starts after `b` began, for its
 * head and its gaps (ScanState.beginSegment). Also finds the fields of events wrapped in a JSON string (AKS,
 * CloudWatch). */
export function latestTimeIn(b: Uint8Array): number | null {
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1', Math.max(0, b.byteLength - LOOK_BEHIND_BYTES));
  return maxTime(text, STAGE_TIME) ?? maxTime(text, RECEIVED_TIME);
}

function maxTime(text: string, re: RegExp): number | null {
  let max: number | null = null;
  for (const m of text.matchAll(re)) {
    const t = parseTimestampMs(m[1]);
    if (t !== null && (max === null || t > max)) max = t;
  }
  return max;
}

/** Longest line part a container runtime writes (16 KiB, plus its prefix): a split line's part is never longer. */
const MAX_PART_BYTES = 20 << 10;
// A CRI line that continues in the next: "<RFC 3339> stdout|stderr P ".
const CRI_PARTIAL = /^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) P /;
// The end of a Docker json-file record; without the escaped \n before it, the record is a part of a line.
const DOCKER_TAIL = /(\\n)?","stream":"(?:stdout|stderr)","time":"[^"]*"\}\r?$/;

// A line that goes on a klog record of the apiserver's log: a trace block's next line (klog writes it without a
// header), or a line of a multi-line value (`key=<`, then lines after a tab, then " >"), after a CRI prefix or not.
// A trace block's first line too: a request's trace follows its storage trace (a block of its own before 1.26),
// and the two are read together (apiserver-log-reader.ts storageOf).
const KLOG_CONTINUATION = /^(?:\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) [FP] )?(?:Trace\[\d+\]: |\t| >|[IWEF]\d{4} [\d:.]+\s+\d+ trace\.go:\d+\] Trace\[|\{"ts":[\d.e+]+,"caller":"trace\/trace\.go)/;
// the same after any wrapper's prefix (journald, syslog, kubectl --prefix, stern, minikube's "* ", a leading space),
// and the rest of an old httplog line a terminal wrapped ("934785: (444.045µs) 400 [kube-controller-manager/…")
const KLOG_CONTINUATION_WRAPPED = /^.{0,120}?(?<=^|[\s\]:*])(?:Trace\[\d+\]: |[IWEF]\d{4} [\d:.]+\s+\d+ trace\.go:\d+\] Trace\[)|^\S*: \([^)\s]+\) \d{3} \[/;

/** How far a cut moves on to keep a klog record (a trace block) whole, at most. */
export const MAX_KLOG_SKIP = 4 << 20;

/** Whether the line that starts at `at` of `b` goes on the klog record before it: null when `b` ends too soon to
 * tell. A cut is never made before such a line, so a trace block is read whole by one lane. */
export function continuesKlogRecord(b: Uint8Array, at: number): boolean | null {
  const end = Math.min(b.length, at + 128);
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1', at, end);
  if (KLOG_CONTINUATION.test(text) || KLOG_CONTINUATION_WRAPPED.test(text)) return true;
  // too few bytes to rule out a prefix or a "Trace[" not yet whole
  if (end === b.length && end - at < 128) return null;
  return false;
}

/** true when the line [start, end) of `b` is the first part of a line a runtime split (it goes on in the next
 * line): a cut between them would hand the two parts to different threads. */
export function continuesInNextLine(b: Uint8Array, start: number, end: number): boolean {
  if (end - start > MAX_PART_BYTES + 512) return false;
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (CRI_PARTIAL.test(buf.toString('latin1', start, Math.min(end, start + 64)))) return true;
  const tail = DOCKER_TAIL.exec(buf.toString('latin1', Math.max(start, end - 160), end));
  return tail !== null && tail[1] === undefined;
}

/** The latest event time in the LOOK_BEHIND_BYTES of a file before `at` (read into `buf`), as a range that starts
 * at `at` is handed it (ScanState.beginSegment): a lane's range, a cut (`readParallel`), a `partial` piece. */
export function latestTimeBefore(fd: number, at: number, buf: Buffer = Buffer.alloc(LOOK_BEHIND_BYTES)): number | null {
  const from = Math.max(0, at - LOOK_BEHIND_BYTES);
  const bytesRead = readSync(fd, buf, 0, at - from, from);
  return latestTimeIn(buf.subarray(0, bytesRead));
}

/** Byte offsets that cut a file into about `parts` ranges, each boundary just after a newline. */
export function splitPoints(fd: number, size: number, parts: number): number[] {
  const out = [0];
  for (let i = 1; i < parts; i++) out.push(lineEndAfter(fd, Math.max(Math.floor((size * i) / parts), out[out.length - 1]!), size));
  out.push(size);
  return out;
}

/** The offset just after the first newline at or after `pos` (`size` when there is none) that does not end the
 * first part of a line a container runtime split: a cut there hands both parts of no line to different lanes (or
 * to different `partial` pieces: src/parallel/partial.ts). */
export function lineEndAfter(fd: number, pos: number, size: number): number {
  const buf = Buffer.alloc(1 << 16);
  const start = pos;
  for (;;) {
    const bytesRead = readSync(fd, buf, 0, buf.length, pos);
    if (bytesRead === 0) return size;
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    if (nl >= 0) {
      pos += nl + 1;
      // Never between the parts of a line a container runtime split: look at the line that ends here.
      if (endsInPart(fd, pos - 1)) continue;
      // Nor inside a klog record of several lines (a trace block): look at the line that starts here.
      // (at most MAX_KLOG_SKIP past the cut asked for: a log of traces alone is still cut)
      if (pos < size && pos - start < MAX_KLOG_SKIP && nextLineContinuesKlog(fd, pos)) continue;
      return Math.min(pos, size);
    }
    pos += bytesRead;
  }
}

/** true when the line at `pos` of a file goes on the klog record before it (continuesKlogRecord). */
function nextLineContinuesKlog(fd: number, pos: number): boolean {
  const w = Buffer.alloc(128);
  const n = readSync(fd, w, 0, 128, pos);
  return continuesKlogRecord(w.subarray(0, n), 0) === true;
}

/** true when the line that ends at the newline at `nl` is the first part of a split line. */
export function endsInPart(fd: number, nl: number): boolean {
  const from = Math.max(0, nl - MAX_PART_BYTES - 512);
  const w = Buffer.alloc(nl - from);
  const bytesRead = readSync(fd, w, 0, w.length, from);
  const start = w.subarray(0, bytesRead).lastIndexOf(10) + 1;
  if (start === 0 && from > 0) return false; // a line longer than any part
  return continuesInNextLine(w, start, bytesRead);
}
