/*! The loop over a batch of lines: each line's end, its record reset, an Event or an httplog line read, or
 * the line declined to the host. */

import { readEvent } from './event';
import { klogNowMs, readHttplog } from './httplog';
import { lineEnd, pos, rec, setI } from './json';
import { BLK_END } from './objects';
import { IN, OUT, OUT_CAP, O_RECEIVED, O_REMAINING, REC_BYTES, R_CODE, R_END, R_FSEL, R_GROUP, R_ID_P, R_LEVEL, R_LSEL, R_NAME_P, R_NL, R_NODE, R_NS, R_RESOURCE, R_RETURNED, R_RVM, R_START, R_STATUS, R_SUB, R_UA, R_USER, SCRATCH_CAP, newsCount, scratchPos } from './setup';
import { R_MARK } from './slots';

export function resetRecord(): void {
  memory.fill(rec, 0, REC_BYTES);
  setI(R_LEVEL, -1);
  setI(R_USER, -1);
  setI(R_UA, -1);
  setI(R_NODE, -1);
  setI(R_RESOURCE, -1);
  setI(R_GROUP, -1);
  setI(R_NS, -1);
  setI(R_SUB, -1);
  setI(R_NAME_P, -1);
  setI(R_ID_P, -1);
  setI(R_CODE, -1);
  setI(R_RVM, -1);
  setI(R_FSEL, -1);
  setI(R_LSEL, -1);
  setI(R_RETURNED, -1);
  store<f64>(rec, NaN, O_RECEIVED);
  store<f64>(rec, NaN, O_REMAINING);
}

/** Finds the next \n at or after p (SIMD when enabled); returns `end` when there is none before it. */
export function findNewline(p: usize, end: usize): usize {
  if (ASC_FEATURE_SIMD) {
    const nl = i8x16.splat(0x0a);
    // 64 bytes a turn (lines of bodies run to hundreds of KB), then 16
    while (p + 64 <= end) {
      const a = i8x16.eq(v128.load(p), nl);
      const b = i8x16.eq(v128.load(p + 16), nl);
      const c = i8x16.eq(v128.load(p + 32), nl);
      const d = i8x16.eq(v128.load(p + 48), nl);
      if (v128.any_true(v128.or(v128.or(a, b), v128.or(c, d)))) {
        const bits = <u64>i8x16.bitmask(a) | (<u64>i8x16.bitmask(b) << 16) | (<u64>i8x16.bitmask(c) << 32) | (<u64>i8x16.bitmask(d) << 48);
        return p + <usize>ctz(bits);
      }
      p += 64;
    }
    while (p + 16 <= end) {
      const bits = i8x16.bitmask(i8x16.eq(v128.load(p), nl));
      if (bits != 0) return p + <usize>ctz(bits);
      p += 16;
    }
  }
  while (p < end) {
    if (load<u8>(p) == 0x0a) return p;
    p++;
  }
  return end;
}

/** Reads the lines of input [0, len): each must end with \n (the host holds a partial last line). Lines longer
 * than `maxLine` bytes, and the first `declineFirst` lines, are declined unread. Writes one record per line,
 * up to the record capacity; returns the number of input bytes consumed (whole lines). Records: outPtr(),
 * count = the result of lineCount() after the call. */
export let lines: u32 = 0;
export function lineCount(): u32 {
  return lines;
}
export function scan(len: u32, maxLine: u32, declineFirst: u32): u32 {
  scratchPos = 0;
  newsCount = 0;
  lines = 0;
  let p = IN;
  const end = IN + <usize>len;
  while (p < end && lines < OUT_CAP) {
    // the unescaped strings of one line are at most the line's length: keep room for a whole line
    const nl = findNewline(p, end);
    if (nl >= end) break;
    let e = nl;
    if (e > p && load<u8>(e - 1) == 0x0d) e--;
    rec = OUT + (<usize>lines) * REC_BYTES;
    resetRecord();
    setI(R_START, <i32>(p - IN));
    setI(R_END, <i32>(e - IN));
    setI(R_NL, <i32>(nl - IN));
    const n = <u32>(e - p);
    let ok = false;
    let status = 1;
    if (lines >= declineFirst && n <= maxLine && n > 1 && scratchPos + n * 2 + 64 <= SCRATCH_CAP) {
      pos = p;
      lineEnd = e;
      BLK_END = 0;
      // strings interned for a line that is then declined stay (the table only grows); the host learns them too
      const c0 = load<u8>(p);
      if (c0 == 0x7b) ok = readEvent();
      else if (c0 == 0x49 && !isNaN(klogNowMs)) {
        ok = readHttplog();
        status = 2;
      }
    }
    setI(R_STATUS, ok ? status : 0);
    setI(R_MARK, 0);
    lines++;
    p = nl + 1;
  }
  return <u32>(p - IN);
}
