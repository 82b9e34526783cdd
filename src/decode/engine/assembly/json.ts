/*! JSON, byte by byte: strings, numbers and values read or skipped as JSON.parse reads them, the member
 * names an audit Event's readers match, and the record's fields (setI, the one-off strings' scratch). */

import { skipString } from './objects';
import { SCRATCH, SCRATCH_CAP, intern, scratchPos } from './setup';

// ---- the JSON reader -----------------------------------------------------------------------------------

export let pos: usize = 0;
export let lineEnd: usize = 0;
export let bad: bool = false; // set when the line leaves the fast path
// The last string read: its raw content [strStart, strEnd) and, when it had escapes, its unescaped copy.
export let strStart: usize = 0;
export let strEnd: usize = 0;
export let strEsc: bool = false;
export let valPtr: usize = 0; // the string's bytes (raw or unescaped)
export let valLen: u32 = 0;

// A line's byte at lineEnd is its \r or \n (scan() cuts lines there), neither of which any test of peek() accepts,
// so peek() reads without a bound check and skipWs() stops at once on a byte above space (the common case).
@inline export function peek(): u32 {
  return <u32>load<u8>(pos);
}

@inline export function skipWs(): void {
  if (<u32>load<u8>(pos) > 0x20) return;
  while (pos < lineEnd) {
    const c = load<u8>(pos);
    if (c != 0x20 && c != 0x09 && c != 0x0d) return;
    pos++;
  }
}

/** Validates one UTF-8 sequence starting at pos (a byte ≥ 0x80); advances past it. */
export function utf8Seq(): bool {
  const c = <u32>load<u8>(pos);
  let need: u32 = 0;
  let min: u32 = 0;
  let cp: u32 = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    need = 1;
    cp = c & 0x1f;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    cp = c & 0x0f;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    cp = c & 0x07;
    min = 0x10000;
  } else return false;
  if (pos + need >= lineEnd) return false;
  for (let k: u32 = 1; k <= need; k++) {
    const d = <u32>load<u8>(pos + k);
    if ((d & 0xc0) != 0x80) return false;
    cp = (cp << 6) | (d & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  pos += need + 1;
  return true;
}

@inline export function hexVal(c: u32): i32 {
  if (c >= 0x30 && c <= 0x39) return <i32>(c - 0x30);
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return <i32>(l - 0x61 + 10);
  return -1;
}

export function hex4(p: usize): i32 {
  if (p + 4 > lineEnd) return -1;
  let v: i32 = 0;
  for (let k: u32 = 0; k < 4; k++) {
    const h = hexVal(<u32>load<u8>(p + k));
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

/** Writes code point `cp` as UTF-8 at `d`; returns the bytes written. */
export function putUtf8(d: usize, cp: u32): u32 {
  if (cp < 0x80) {
    store<u8>(d, <u8>cp);
    return 1;
  }
  if (cp < 0x800) {
    store<u8>(d, <u8>(0xc0 | (cp >> 6)));
    store<u8>(d + 1, <u8>(0x80 | (cp & 0x3f)));
    return 2;
  }
  if (cp < 0x10000) {
    store<u8>(d, <u8>(0xe0 | (cp >> 12)));
    store<u8>(d + 1, <u8>(0x80 | ((cp >> 6) & 0x3f)));
    store<u8>(d + 2, <u8>(0x80 | (cp & 0x3f)));
    return 3;
  }
  store<u8>(d, <u8>(0xf0 | (cp >> 18)));
  store<u8>(d + 1, <u8>(0x80 | ((cp >> 12) & 0x3f)));
  store<u8>(d + 2, <u8>(0x80 | ((cp >> 6) & 0x3f)));
  store<u8>(d + 3, <u8>(0x80 | (cp & 0x3f)));
  return 4;
}

/** Reads a JSON string at pos (which holds '"'). Sets strStart/strEnd/strEsc; unescapes into the scratch arena
 * when `want` and it has escapes (valPtr/valLen then point there, else at the raw bytes). */
export function readString(want: bool): bool {
  // The position is a local until the string ends: pos, like every wasm global, lives in memory in V8, and its
  // store and reload were on each 16 bytes' path.
  let p = pos + 1; // after the opening quote
  const end = lineEnd;
  strStart = p;
  let esc = false;
  for (;;) {
    if (ASC_FEATURE_SIMD) {
      // 16 bytes at a time: stop at '"', '\', a control byte or a non-ASCII byte.
      while (p + 16 <= end) {
        const v = v128.load(p);
        // a signed compare below 0x20 takes both the control bytes and those of 0x80 and above
        const m = v128.or(v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))), i8x16.lt_s(v, i8x16.splat(0x20)));
        const bits = i8x16.bitmask(m);
        if (bits == 0) {
          p += 16;
          continue;
        }
        p += <usize>ctz(bits);
        break;
      }
    }
    if (p >= end) return false;
    const c = <u32>load<u8>(p);
    if (c == 0x22) break;
    if (c < 0x20) return false;
    if (c == 0x5c) {
      esc = true;
      if (p + 1 >= end) return false;
      const e = <u32>load<u8>(p + 1);
      if (e == 0x75) {
        const u = hex4(p + 2);
        if (u < 0) return false;
        if (u >= 0xd800 && u <= 0xdbff) {
          // a surrogate pair, or a lone surrogate (JavaScript keeps it; UTF-8 cannot): declined
          if (load<u8>(p + 6) != 0x5c || load<u8>(p + 7) != 0x75) return false;
          const lo = hex4(p + 8);
          if (lo < 0xdc00 || lo > 0xdfff) return false;
          p += 12;
        } else if (u >= 0xdc00 && u <= 0xdfff) return false;
        else p += 6;
        continue;
      }
      if (e == 0x22 || e == 0x5c || e == 0x2f || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) {
        p += 2;
        continue;
      }
      return false;
    }
    if (c >= 0x80) {
      pos = p;
      if (!utf8Seq()) return false;
      p = pos;
      continue;
    }
    p++;
  }
  strEsc = esc;
  strEnd = p;
  pos = p + 1; // the closing quote
  if (!want) return true;
  if (!esc) {
    valPtr = strStart;
    valLen = <u32>(strEnd - strStart);
    return true;
  }
  // Unescape (the content was validated above).
  const d0 = SCRATCH + scratchPos;
  let d = d0;
  const q = p; // the closing quote
  p = strStart;
  while (p < q) {
    if (ASC_FEATURE_SIMD) {
      // 16 bytes at a time up to the next escape or the closing quote: a request URI's query has a \u0026 for
      // each '&'. The store may write past what is kept; scan() leaves the line twice its length and 64 bytes of
      // room, and the next string is written over it.
      const v = v128.load(p);
      const left = <u32>(q - p);
      let bits = <u32>i8x16.bitmask(i8x16.eq(v, i8x16.splat(0x5c)));
      if (left < 16) bits |= (<u32>1) << left;
      v128.store(d, v);
      if (bits == 0) {
        p += 16;
        d += 16;
        continue;
      }
      const k = <usize>ctz(bits);
      p += k;
      d += k;
      if (p >= q) break;
    }
    const c = <u32>load<u8>(p);
    if (c != 0x5c) {
      store<u8>(d, <u8>c);
      d++;
      p++;
      continue;
    }
    const e = <u32>load<u8>(p + 1);
    if (e == 0x75) {
      let cp = <u32>hex4(p + 2);
      p += 6;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        const lo = <u32>hex4(p + 2);
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        p += 6;
      }
      d += putUtf8(d, cp);
      continue;
    }
    let b: u32 = e;
    if (e == 0x62) b = 0x08;
    else if (e == 0x66) b = 0x0c;
    else if (e == 0x6e) b = 0x0a;
    else if (e == 0x72) b = 0x0d;
    else if (e == 0x74) b = 0x09;
    store<u8>(d, <u8>b);
    d++;
    p += 2;
  }
  valPtr = d0;
  valLen = <u32>(d - d0);
  scratchPos += valLen;
  return true;
}

/** Copies the last string into the scratch arena (when it is still in the input), returning its offset. */
export function keepString(): u32 {
  if (valPtr >= SCRATCH && valPtr < SCRATCH + SCRATCH_CAP) return <u32>(valPtr - SCRATCH);
  const at = scratchPos;
  memory.copy(SCRATCH + at, valPtr, valLen);
  scratchPos += valLen;
  return at;
}

/** Skips a JSON number, validating its grammar. */
export function skipNumber(): bool {
  if (peek() == 0x2d) pos++;
  const c = peek();
  if (c == 0x30) pos++;
  else if (c >= 0x31 && c <= 0x39) {
    while (peek() >= 0x30 && peek() <= 0x39) pos++;
  } else return false;
  if (peek() == 0x2e) {
    pos++;
    if (!(peek() >= 0x30 && peek() <= 0x39)) return false;
    while (peek() >= 0x30 && peek() <= 0x39) pos++;
  }
  const e = peek();
  if (e == 0x65 || e == 0x45) {
    pos++;
    if (peek() == 0x2b || peek() == 0x2d) pos++;
    if (!(peek() >= 0x30 && peek() <= 0x39)) return false;
    while (peek() >= 0x30 && peek() <= 0x39) pos++;
  }
  return true;
}

export function skipLiteral(word: u64, n: u32): bool {
  if (pos + n > lineEnd) return false;
  for (let k: u32 = 0; k < n; k++) if (<u64>load<u8>(pos + k) != ((word >> (8 * k)) & 0xff)) return false;
  pos += n;
  return true;
}

/** Skips any JSON value, validating it. Nesting deeper than 256 leaves the fast path. */
export function skipValue(depth: i32): bool {
  if (depth > 256) return false;
  skipWs();
  const c = peek();
  if (c == 0x22) return skipString();
  if (c == 0x7b) {
    pos++;
    skipWs();
    if (peek() == 0x7d) {
      pos++;
      return true;
    }
    for (;;) {
      skipWs();
      if (peek() != 0x22 || !skipString()) return false;
      skipWs();
      if (peek() != 0x3a) return false;
      pos++;
      if (!skipValue(depth + 1)) return false;
      skipWs();
      const d = peek();
      pos++;
      if (d == 0x2c) continue;
      return d == 0x7d;
    }
  }
  if (c == 0x5b) {
    pos++;
    skipWs();
    if (peek() == 0x5d) {
      pos++;
      return true;
    }
    for (;;) {
      if (!skipValue(depth + 1)) return false;
      skipWs();
      const d = peek();
      pos++;
      if (d == 0x2c) continue;
      return d == 0x5d;
    }
  }
  if (c == 0x74) return skipLiteral(0x65757274, 4); // true
  if (c == 0x66) return skipLiteral(0x65736c6166, 5); // false
  if (c == 0x6e) return skipLiteral(0x6c6c756e, 4); // null
  return skipNumber();
}

// ---- member names --------------------------------------------------------------------------------------

// Names are compared as (length, first 8 bytes, rest): all are ASCII without escapes.
@inline export function keyIs(s: string): bool {
  const n = <usize>s.length;
  if (strEsc || strEnd - strStart != n) return false;
  return asciiIs(strStart, <u32>n, s);
}

/** Whether the n bytes at p are the ASCII string s (n = s.length). With SIMD, 8 bytes at a time widened to
 * UTF-16 and compared with the literal's own code units (reading past either end stays inside the memory). */
@inline export function asciiIs(p: usize, n: u32, s: string): bool {
  if (ASC_FEATURE_SIMD) {
    const q = changetype<usize>(s);
    let i: u32 = 0;
    while (i + 8 <= n) {
      if (!i16x8.all_true(i16x8.eq(v128.load_ext<u8>(p + i), v128.load(q + (<usize>i << 1))))) return false;
      i += 8;
    }
    if (i < n) {
      const m = <u32>i16x8.bitmask(i16x8.eq(v128.load_ext<u8>(p + i), v128.load(q + (<usize>i << 1))));
      const want: u32 = (1 << (n - i)) - 1;
      if ((m & want) != want) return false;
    }
    return true;
  }
  for (let i: u32 = 0; i < n; i++) if (<u32>load<u8>(p + i) != <u32>s.charCodeAt(<i32>i)) return false;
  return true;
}

/** What the apiserver writes on most lines, at pos: a member's `"name":` (readEvent's ORDER) or a value, quotes
 * included (`"Event"`, a 200 status). When the bytes there are exactly `v`, moves past them: no escape can be
 * inside (the bytes are the literal's, and the one before a closing quote is not a backslash). Saves reading the
 * string and comparing it after. */
@inline export function bytesAhead(v: string): bool {
  const n = <u32>v.length;
  if (!ASC_FEATURE_SIMD || pos + n > lineEnd || !asciiIs(pos, n, v)) return false;
  pos += n;
  return true;
}

// ---- the record ----------------------------------------------------------------------------------------

export let rec: usize = 0;
@inline export function setI(f: i32, v: i32): void {
  store<i32>(rec + (<usize>f << 2), v);
}

/** A string member value to intern: -1 when absent; fails the line when it is not a string or is too long. */
export function internValue(): i32 {
  skipWs();
  if (peek() != 0x22 || !readString(true)) {
    bad = true;
    return -1;
  }
  const id = intern(valPtr, valLen);
  if (id < 0) bad = true;
  return id;
}

/** A string member value kept as a one-off string in the scratch arena. */
export function keepValue(fp: i32, fl: i32): void {
  skipWs();
  if (peek() != 0x22 || !readString(true)) {
    bad = true;
    return;
  }
  setI(fp, <i32>keepString());
  setI(fl, <i32>valLen);
}

/** `k` decimal digits at p, or -1. */
export function digits(p: usize, k: u32): i32 {
  let x = 0;
  for (let i: u32 = 0; i < k; i++) {
    const d = <i32>load<u8>(p + i) - 0x30;
    if (d < 0 || d > 9) return -1;
    x = x * 10 + d;
  }
  return x;
}

/** An RFC 3339 time in the form the apiserver writes (UTC, "Z", optional fraction): epoch ms, NaN otherwise.
 * Matches parseTimestampMs (src/decode/time.ts) on what it accepts; the rest is declined. */
// The second parseTime() read last ("2026-11-30T10:00:00", its 19 bytes as three words) and its epoch ms: a line's
// two times, and the lines around it, mostly fall in the same second (parseTimestampMs keeps it too).
export let lastSecA: u64 = 0;
export let lastSecB: u64 = 0;
export let lastSecC: u32 = 0;
export let lastSecMs: f64 = NaN;

export function parseTime(p: usize, n: u32): f64 {
  if (n < 20 || load<u8>(p + n - 1) != 0x5a || load<u8>(p + 10) != 0x54) return NaN;
  if (load<u64>(p) == lastSecA && load<u64>(p, 8) == lastSecB && load<u32>(p, 15) == lastSecC && !isNaN(lastSecMs)) return lastSecMs + fraction(p, n);
  const base = parseSecond(p);
  if (isNaN(base)) return NaN;
  const f = fraction(p, n);
  if (isNaN(f)) return NaN;
  lastSecA = load<u64>(p);
  lastSecB = load<u64>(p, 8);
  lastSecC = load<u32>(p, 15);
  lastSecMs = base;
  return base + f;
}

/** The milliseconds of ".fff…" before the closing Z at p + n - 1 (none: 0); NaN when it is not that form. */
export function fraction(p: usize, n: u32): f64 {
  // the first three digits are the milliseconds, the rest only checked to be digits (as an integer: the same
  // number as the doubles d * 100 + d * 10 + d it summed, without a division a digit)
  let ms: i32 = 0;
  if (n > 20) {
    if (load<u8>(p + 19) != 0x2e || n < 22) return NaN;
    for (let k: u32 = 20; k < n - 1; k++) {
      const d = <i32>load<u8>(p + k) - 0x30;
      if (d < 0 || d > 9) return NaN;
      if (k < 23) ms = ms * 10 + d;
    }
    // fewer than three digits: ".1" is 100 ms, ".12" 120
    if (n - 1 < 23) ms *= n - 1 == 21 ? 100 : 10;
  }
  return <f64>ms;
}

/** "YYYY-MM-DDTHH:MM:SS" at p as epoch ms; NaN when it is not that form. */
export function parseSecond(p: usize): f64 {
  if (load<u8>(p + 4) != 0x2d || load<u8>(p + 7) != 0x2d || load<u8>(p + 13) != 0x3a || load<u8>(p + 16) != 0x3a) return NaN;
  const y = digits(p, 4);
  const mo = digits(p + 5, 2);
  const dd = digits(p + 8, 2);
  const hh = digits(p + 11, 2);
  const mi = digits(p + 14, 2);
  const ss = digits(p + 17, 2);
  if (y < 0 || mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh < 0 || hh > 23 || mi < 0 || mi > 59 || ss < 0 || ss > 59) return NaN;
  // days from civil (H. Hinnant); a day past the month's end rolls over, as Date.parse does
  const yy = mo <= 2 ? y - 1 : y;
  const era = (yy >= 0 ? yy : yy - 399) / 400;
  const yoe = yy - era * 400;
  const mp = mo > 2 ? mo - 3 : mo + 9;
  const doy = (153 * mp + 2) / 5;
  const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const days = <f64>(era * 146097 + doe - 719468) + <f64>(dd - 1);
  return days * 86400000 + <f64>(hh * 3600000 + mi * 60000 + ss * 1000);
}

/** A time member value: NaN when absent; fails the line when it is not a string in the fast form. */
export function timeValue(): f64 {
  skipWs();
  if (peek() != 0x22 || !readString(true)) {
    bad = true;
    return NaN;
  }
  const t = parseTime(valPtr, valLen);
  if (isNaN(t)) bad = true;
  return t;
}
