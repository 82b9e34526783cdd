/*! A line's bytes and JSON tokens: the cursor the readers share (pos, the last string read, the scratch arena's
 * fill), strings read and unescaped, values skipped and validated (bodies 64 bytes a step), query components
 * decoded, and the SIMD scans for a byte, a literal or the next line. */

import { SCRATCH, SCRATCH_CAP, STACK, BODY_DEPTH } from './regions';

// ---- the cursor ----------------------------------------------------------------------------------------

export let pos: usize = 0;
export let lineEnd: usize = 0;
// The last string read: its raw content [strStart, strEnd) and, when it had escapes, its unescaped copy.
export let strStart: usize = 0;
export let strEnd: usize = 0;
export let strEsc: bool = false;
export let valPtr: usize = 0; // the string's bytes (raw or unescaped)
export let valLen: u32 = 0;

// the scratch arena's fill in this call (scan() empties it)
export let scratchPos: u32 = 0;

// Setters for the stages that move the cursor (a module's globals are assigned in their own module only).
@inline export function setPos(p: usize): void {
  pos = p;
}

/** The cursor at the start of the line [p, e), the block of stringFrom() emptied. */
@inline export function setLine(p: usize, e: usize): void {
  pos = p;
  lineEnd = e;
  BLK_END = 0;
}

/** The last string read: [start, end), with escapes or not. */
@inline export function setStr(start: usize, end: usize, esc: bool): void {
  strStart = start;
  strEnd = end;
  strEsc = esc;
}

@inline export function setScratchPos(n: u32): void {
  scratchPos = n;
}

// ---- the JSON reader -----------------------------------------------------------------------------------

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
function utf8Seq(): bool {
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

@inline function hexVal(c: u32): i32 {
  if (c >= 0x30 && c <= 0x39) return <i32>(c - 0x30);
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return <i32>(l - 0x61 + 10);
  return -1;
}

function hex4(p: usize): i32 {
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
function putUtf8(d: usize, cp: u32): u32 {
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
function skipNumber(): bool {
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

// ---- query components ----------------------------------------------------------------------------------

/** Decodes a query component [p, p+n) like Go's url.QueryUnescape into the scratch arena when it has '%' or
 * '+'; returns false (the line is declined) for a malformed escape or bytes that are not UTF-8. */
export function decodeComponent(p: usize, n: u32): bool {
  if (!hasQueryEscape(p, n)) {
    valPtr = p;
    valLen = n;
    return true;
  }
  const d0 = SCRATCH + scratchPos;
  let d = d0;
  for (let k: u32 = 0; k < n; k++) {
    const c = <u32>load<u8>(p + k);
    if (c == 0x2b) {
      store<u8>(d++, 0x20);
      continue;
    }
    if (c == 0x25) {
      if (k + 2 >= n) return false;
      const h = hexVal(<u32>load<u8>(p + k + 1));
      const l = hexVal(<u32>load<u8>(p + k + 2));
      if (h < 0 || l < 0) return false;
      store<u8>(d++, <u8>((h << 4) | l));
      k += 2;
      continue;
    }
    store<u8>(d++, <u8>c);
  }
  // decodeURIComponent throws on bytes that are not UTF-8: the host's fallback then differs; declined.
  const saveP = pos;
  const saveE = lineEnd;
  pos = d0;
  lineEnd = d;
  let ok = true;
  while (pos < lineEnd) {
    if (load<u8>(pos) >= 0x80) {
      if (!utf8Seq()) {
        ok = false;
        break;
      }
    } else pos++;
  }
  pos = saveP;
  lineEnd = saveE;
  if (!ok) return false;
  valPtr = d0;
  valLen = <u32>(d - d0);
  scratchPos += valLen;
  return true;
}

/** The index of the first byte c in [p, p+n), or n. */
@inline export function findByte(p: usize, n: u32, c: u8): u32 {
  let i: u32 = 0;
  if (ASC_FEATURE_SIMD) {
    const v = i8x16.splat(c);
    while (i + 16 <= n) {
      const bits = i8x16.bitmask(i8x16.eq(v128.load(p + i), v));
      if (bits != 0) return i + <u32>ctz(bits);
      i += 16;
    }
    // the last 0-15 bytes in one load, the bits past n masked off (when memory goes 16 bytes on)
    if (i < n && p + i + 16 <= (<usize>memory.size()) << 16) {
      const bits = i8x16.bitmask(i8x16.eq(v128.load(p + i), v)) & ((1 << (n - i)) - 1);
      return bits != 0 ? i + <u32>ctz(bits) : n;
    }
  }
  while (i < n && load<u8>(p + i) != c) i++;
  return i;
}

/** Whether [p, p+n) holds a '%' or a '+' (a query component that needs decoding), 16 bytes a compare. */
@inline export function hasQueryEscape(p: usize, n: u32): bool {
  let i: u32 = 0;
  if (ASC_FEATURE_SIMD) {
    const pc = i8x16.splat(0x25);
    const pl = i8x16.splat(0x2b);
    while (i + 16 <= n) {
      const v = v128.load(p + i);
      if (v128.any_true(v128.or(i8x16.eq(v, pc), i8x16.eq(v, pl)))) return true;
      i += 16;
    }
    if (i < n && p + i + 16 <= (<usize>memory.size()) << 16) {
      const v = v128.load(p + i);
      return (i8x16.bitmask(v128.or(i8x16.eq(v, pc), i8x16.eq(v, pl))) & ((1 << (n - i)) - 1)) != 0;
    }
  }
  for (; i < n; i++) {
    const c = load<u8>(p + i);
    if (c == 0x25 || c == 0x2b) return true;
  }
  return false;
}

@inline export function bytesAre(p: usize, n: u32, s: string): bool {
  if (<u32>s.length != n) return false;
  return asciiIs(p, n, s);
}

// ---- skipping bodies -----------------------------------------------------------------------------------

@inline export function startsWith(p: usize, n: u32, s: string): bool {
  const k = <u32>s.length;
  return n >= k && bytesAre(p, k, s);
}

/** Skips the JSON string at pos ('"') where nothing of it is kept (members no rule reads; bodies: stringFrom()). */
@inline function skipString(): bool {
  const p = stringFrom(pos);
  if (p == 0) return false;
  pos = p;
  return true;
}

// The 64 bytes from BLK_BASE to BLK_END (within the line): their quotes (BLK_Q) and the bytes a string cannot hold
// as they are, or must be looked at (BLK_X: '\\', control bytes, bytes of 0x80 and above), a bit each. The line's
// bytes do not change while it is read; scan() empties it for each line.
let BLK_BASE: usize = 0;
let BLK_END: usize = 0;
let BLK_Q: u64 = 0;
let BLK_X: u64 = 0;

function blockAt(s: usize): void {
  const q = i8x16.splat(0x22);
  const b = i8x16.splat(0x5c);
  const c = i8x16.splat(0x20);
  const v0 = v128.load(s);
  const v1 = v128.load(s + 16);
  const v2 = v128.load(s + 32);
  const v3 = v128.load(s + 48);
  BLK_Q = <u64>i8x16.bitmask(i8x16.eq(v0, q)) | (<u64>i8x16.bitmask(i8x16.eq(v1, q)) << 16) | (<u64>i8x16.bitmask(i8x16.eq(v2, q)) << 32) | (<u64>i8x16.bitmask(i8x16.eq(v3, q)) << 48);
  BLK_X =
    <u64>i8x16.bitmask(v128.or(i8x16.eq(v0, b), i8x16.lt_s(v0, c))) |
    (<u64>i8x16.bitmask(v128.or(i8x16.eq(v1, b), i8x16.lt_s(v1, c))) << 16) |
    (<u64>i8x16.bitmask(v128.or(i8x16.eq(v2, b), i8x16.lt_s(v2, c))) << 32) |
    (<u64>i8x16.bitmask(v128.or(i8x16.eq(v3, b), i8x16.lt_s(v3, c))) << 48);
  BLK_BASE = s;
  BLK_END = s + 64;
}

/** A member name in a body, then its ':'; false when the JSON is not valid there. */
@inline export function bodyKey(): bool {
  skipWs();
  if (peek() != 0x22 || !readString(false)) return false;
  skipWs();
  if (peek() != 0x3a) return false;
  pos++;
  return true;
}

/** Skips the JSON value at pos, validating it (strings as readString does: escapes, UTF-8, no control bytes),
 * without recursion: the open containers are a byte each at STACK (1 object, 2 array). The position is a local
 * here, written back to pos only around the readers that take it there (numbers, literals, strings that need a
 * look): pos is a wasm global, which V8 keeps in memory, and its store and reload were on every token's path. */
export function skipBody(): bool {
  let p = pos;
  let depth: i32 = 0;
  let top: u32 = 0;
  for (;;) {
    // a value
    p = wsFrom(p);
    const c = <u32>load<u8>(p);
    if (c == 0x22) {
      p = stringFrom(p);
      if (p == 0) return false;
    } else if (c == 0x7b || c == 0x5b) {
      if (depth >= BODY_DEPTH) return false;
      store<u8>(STACK + <usize>depth, <u8>top);
      depth++;
      top = c == 0x7b ? 1 : 2;
      p = wsFrom(p + 1);
      if (<u32>load<u8>(p) == c + 2) {
        // {} or []
        p++;
        depth--;
        top = <u32>load<u8>(STACK + <usize>depth);
      } else {
        if (top == 1) {
          p = keyFrom(p);
          if (p == 0) return false;
        }
        continue;
      }
    } else {
      pos = p;
      let ok = false;
      if (c == 0x74) ok = skipLiteral(0x65757274, 4); // true
      else if (c == 0x66) ok = skipLiteral(0x65736c6166, 5); // false
      else if (c == 0x6e) ok = skipLiteral(0x6c6c756e, 4); // null
      else ok = skipNumber();
      if (!ok) return false;
      p = pos;
    }
    // after a value: close what ends here, then the next member or element
    for (;;) {
      if (depth == 0) {
        pos = p;
        return true;
      }
      p = wsFrom(p);
      const d = <u32>load<u8>(p);
      p++;
      if (d == 0x2c) {
        if (top == 1) {
          p = keyFrom(p);
          if (p == 0) return false;
        }
        break;
      }
      if (d != (top == 1 ? 0x7d : 0x5d)) return false;
      depth--;
      top = <u32>load<u8>(STACK + <usize>depth);
    }
  }
  return false; // not reached
}

/** skipWs() from p: the first byte at or after p that is not JSON's white space (the line's end at the most). */
@inline function wsFrom(p: usize): usize {
  if (<u32>load<u8>(p) > 0x20) return p;
  while (p < lineEnd) {
    const c = load<u8>(p);
    if (c != 0x20 && c != 0x09 && c != 0x0d) return p;
    p++;
  }
  return p;
}

/** Skips the JSON string at p (a '"') where nothing of it is kept: its closing quote is the next quote bit of the
 * 64-byte blocks from its start (blockAt()), when no byte before it needs a look (an escape, a control byte, a byte
 * that is not ASCII); else, and within 64 bytes of the line's end, readString() reads it from its start and
 * validates it. Returns the position after it, 0 when it is not valid. Each string used to take its own 16-byte
 * loads, compares and a reload of the byte found, one after the other; a block's bits serve every string that
 * starts in it (git log -- bench/README.md: the engine 3.6% faster a line on the bench log). */
@inline function stringFrom(p: usize): usize {
  if (ASC_FEATURE_SIMD) {
    let s = p + 1;
    for (;;) {
      // (behind the block's base: never today, as no reader moves back past a skipped string; kept so none can)
      if (s >= BLK_END || s < BLK_BASE) {
        if (s + 64 > lineEnd) break;
        blockAt(s);
      }
      const sh = <u64>(s - BLK_BASE);
      const qq = BLK_Q >> sh;
      const xx = BLK_X >> sh;
      if (qq != 0) {
        // a byte to look at before the first quote: the quote may be escaped, or the string invalid
        if ((xx & ((qq & (0 - qq)) - 1)) != 0) break;
        return s + <usize>ctz(qq) + 1;
      }
      if (xx != 0) break;
      s = BLK_END;
    }
  }
  pos = p;
  return readString(false) ? pos : 0;
}

/** A member name in a body whose name is not looked at, from p, then its ':': the position after the ':', 0 when
 * the JSON is not valid there. */
@inline function keyFrom(p: usize): usize {
  p = wsFrom(p);
  if (<u32>load<u8>(p) != 0x22) return 0;
  p = stringFrom(p);
  if (p == 0) return 0;
  p = wsFrom(p);
  if (<u32>load<u8>(p) != 0x3a) return 0;
  return p + 1;
}

// ---- lines ---------------------------------------------------------------------------------------------

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
