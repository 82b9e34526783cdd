/*! kube-apiserver's own log: httplog's "HTTP" line (-v>=3) read into a record of status 2, to the fields
 * src/decode/apiserver-log.ts reads from it (klog header and time, verb, path and query, latency, APF). */

import { SCRATCH, SCRATCH_CAP, ID_EMPTY, intern } from './regions';
import { R_STAGE, R_VERB, R_UA, R_RESOURCE, R_GROUP, R_NS, R_SUB, R_NAME_P, R_NAME_L, R_ID_P, R_ID_L, R_URI_P, R_URI_L, R_CODE, O_RECEIVED, O_STAGE_T, rec, setI } from './record';
import { pos, lineEnd, scratchPos, setScratchPos, asciiIs, digits, findByte, bytesAre } from './bytes';
import { parseQuery } from './query';
import { civilMs } from './members';

// ---- kube-apiserver's own log: httplog's line (-v>=3) -------------------------------------------------
//
// `I1130 10:00:00.002001       1 httplog.go:132] "HTTP" verb="LIST" URI="/api/v1/pods?limit=500" latency="3ms"
// userAgent="…" audit-ID="…" srcIP="10.0.1.0:30001" apf_pl="…" apf_fs="…" … resp=200` becomes a record of status
// 2, read as src/decode/apiserver-log.ts (parseKlogHeader, parseKlogMessage, requestOfHttplog, kubeVerbOf) and
// src/decode/request-uri.ts (parsePath) read it, to the same fields. What those read differently from a plain form
// (an escape or a byte past ASCII in a value they keep, a key that changes their answer, a header of another
// caller, an odd path) is declined, and the host's JavaScript path reads the line (and, while the apiserver log's
// reader holds a trace block or a value of several lines, the host gives it this record's line: ScanState).

const R_SRCIP = 40; // srcIP without its port, -1: none
const R_APF_PL = 41;
const R_APF_FS = 42;
const R_CALLER = 43; // "httplog.go:132"
export const O_APF_WAIT = 152; // f64, apf_init_latency in ms, NaN: none

// klogTimeMs' clock (src/decode/apiserver-log.ts): klog writes no year
export let klogNowMs: f64 = NaN;
let klogNowYear: i32 = 0;
let klogYear: f64 = NaN; // --syslog-year, NaN: inferred
export function setKlogClock(nowMs: f64, nowYear: i32, year: f64): void {
  klogNowMs = nowMs;
  klogNowYear = nowYear;
  klogYear = year;
}

// Exact powers of ten (a decimal of at most 15 digits over one of them is the double JavaScript's Number() reads)
const POW10 = memory.data<f64>([1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]);
let durBad = false; // a duration the module cannot read to the same double: the line is declined

/** parseGoDurationMs (src/decode/time.ts) of [p, p+n): ms, NaN for null; durBad for a form it leaves to JavaScript. */
function goDurationMs(p: usize, n: u32): f64 {
  durBad = false;
  if (n == 0) return NaN;
  if ((n == 1 && load<u8>(p) == 0x30) || (n == 2 && load<u16>(p) == 0x7330)) return 0;
  let total: f64 = 0;
  let i: u32 = 0;
  while (i < n) {
    let mant: u64 = 0;
    let digitsN: u32 = 0;
    let frac: u32 = 0;
    let c = load<u8>(p + i);
    if (c < 0x30 || c > 0x39) return NaN;
    while (i < n && (c = load<u8>(p + i)) >= 0x30 && c <= 0x39) {
      mant = mant * 10 + <u64>(c - 0x30);
      if (mant != 0) digitsN++;
      i++;
    }
    if (i < n && load<u8>(p + i) == 0x2e && i + 1 < n && (c = load<u8>(p + i + 1)) >= 0x30 && c <= 0x39) {
      i++;
      while (i < n && (c = load<u8>(p + i)) >= 0x30 && c <= 0x39) {
        mant = mant * 10 + <u64>(c - 0x30);
        if (mant != 0) digitsN++;
        frac++;
        i++;
      }
    }
    if (digitsN > 15 || frac > 22) {
      durBad = true;
      return NaN;
    }
    let unit: f64 = 0;
    const a: u32 = i < n ? <u32>load<u8>(p + i) : 0;
    const b: u32 = i + 1 < n ? <u32>load<u8>(p + i + 1) : 0;
    const c2: u32 = i + 2 < n ? <u32>load<u8>(p + i + 2) : 0;
    if (a == 0x6e && b == 0x73) { unit = 1e-6; i += 2; }
    else if (a == 0x75 && b == 0x73) { unit = 1e-3; i += 2; }
    else if (a == 0xc2 && b == 0xb5 && c2 == 0x73) { unit = 1e-3; i += 3; } // µs
    else if (a == 0xce && b == 0xbc && c2 == 0x73) { unit = 1e-3; i += 3; } // μs
    else if (a == 0x6d && b == 0x73) { unit = 1; i += 2; }
    else if (a == 0x73) { unit = 1000; i += 1; }
    else if (a == 0x6d) { unit = 60000; i += 1; }
    else if (a == 0x68) { unit = 3600000; i += 1; }
    else return NaN;
    total += (<f64>mant / load<f64>(POW10 + (<usize>frac << 3))) * unit;
  }
  return total;
}

/** JavaScript's Math.round. */
@inline function jsRound(x: f64): f64 {
  const f = floor(x);
  return x - f >= 0.5 ? f + 1 : f;
}

// the keys of an httplog line the JavaScript path reads (requestOfHttplog), and those that change what it reads
const H_VERB = 0;
const H_URI = 1;
const H_LATENCY = 2;
const H_UA = 3;
const H_ID = 4;
const H_SRCIP = 5;
const H_PL = 6;
const H_FS = 7;
const H_INIT = 8;
const H_RESP = 9;
const H_OTHER = 10; // read by nothing: skipped
const H_DECLINE = 11; // UserAgent, auditID (read when the usual key is absent), hijacked: left to JavaScript

function httplogKey(p: usize, n: u32): i32 {
  switch (n) {
    case 3:
      return bytesAre(p, n, "URI") ? H_URI : H_OTHER;
    case 4:
      return bytesAre(p, n, "verb") ? H_VERB : bytesAre(p, n, "resp") ? H_RESP : H_OTHER;
    case 5:
      return bytesAre(p, n, "srcIP") ? H_SRCIP : H_OTHER;
    case 6:
      return bytesAre(p, n, "apf_pl") ? H_PL : bytesAre(p, n, "apf_fs") ? H_FS : H_OTHER;
    case 7:
      return bytesAre(p, n, "latency") ? H_LATENCY : bytesAre(p, n, "auditID") ? H_DECLINE : H_OTHER;
    case 8:
      return bytesAre(p, n, "audit-ID") ? H_ID : bytesAre(p, n, "hijacked") ? H_DECLINE : H_OTHER;
    case 9:
      return bytesAre(p, n, "userAgent") ? H_UA : bytesAre(p, n, "UserAgent") ? H_DECLINE : H_OTHER;
    case 16:
      return bytesAre(p, n, "apf_init_latency") ? H_INIT : H_OTHER;
  }
  return H_OTHER;
}

// httplog's keys in the order it writes them (pkg/server/httplog, 1.22 on), '=' after each: in a plain line the key
// expected next is tried first, as readEvent tries member names in the apiserver's order. None holds '=', ' ' or
// '"', so bytes equal to one are the key findKeyEnd and httplogKey would find.
const ORDER_KEYS: string[] = ['verb=', 'URI=', 'latency=', 'userAgent=', 'audit-ID=', 'srcIP=', 'apf_pl=', 'apf_fs=', 'apf_iseats=', 'apf_fseats=', 'apf_additionalLatency=', 'apf_execution_time=', 'resp='];
const ORDER_IDS = memory.data<i32>([H_VERB, H_URI, H_LATENCY, H_UA, H_ID, H_SRCIP, H_PL, H_FS, H_OTHER, H_OTHER, H_OTHER, H_OTHER, H_RESP]);
const ORDER_N: i32 = 13;
// where each key read (H_*, below H_OTHER) stands in that order, to go on from after it: -1 none
const ORDER_AT = memory.data<i32>([0, 1, 2, 3, 4, 5, 6, 7, -1, 12]);

/** In a plain line (plainAscii): the offset of the first '=', ' ' or '"' in [p, p+n), or n: where a key ends. */
@inline function findKeyEnd(p: usize, n: u32): u32 {
  let i: u32 = 0;
  if (ASC_FEATURE_SIMD) {
    const eq = i8x16.splat(0x3d);
    const sp = i8x16.splat(0x20);
    const qt = i8x16.splat(0x22);
    while (i + 16 <= n) {
      const v = v128.load(p + i);
      const bits = i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, eq), i8x16.eq(v, sp)), i8x16.eq(v, qt)));
      if (bits != 0) return i + <u32>ctz(bits);
      i += 16;
    }
    if (i < n && p + i + 16 <= (<usize>memory.size()) << 16) {
      const v = v128.load(p + i);
      const bits = i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, eq), i8x16.eq(v, sp)), i8x16.eq(v, qt))) & ((1 << (n - i)) - 1);
      return bits != 0 ? i + <u32>ctz(bits) : n;
    }
  }
  for (; i < n; i++) {
    const c = load<u8>(p + i);
    if (c == 0x3d || c == 0x20 || c == 0x22) return i;
  }
  return n;
}

/** Whether [p, p+n) holds a byte below 0x20, above 0x7e, or a backslash: a line without one is read quote to quote. */
function plainAscii(p: usize, n: u32): bool {
  let i: u32 = 0;
  if (ASC_FEATURE_SIMD) {
    const lo = i8x16.splat(0x20);
    const hi = i8x16.splat(0x7e);
    const bs = i8x16.splat(0x5c);
    while (i + 16 <= n) {
      const v = v128.load(p + i);
      if (v128.any_true(v128.or(v128.or(i8x16.lt_u(v, lo), i8x16.gt_u(v, hi)), i8x16.eq(v, bs)))) return false;
      i += 16;
    }
  }
  for (; i < n; i++) {
    const c = load<u8>(p + i);
    if (c < 0x20 || c > 0x7e || c == 0x5c) return false;
  }
  return true;
}

// the values read, [start, length) in the input
const HV_P = memory.data(40);
const HV_L = memory.data(40);
// path segments: start and length, at most 8 (more: declined)
const SEG_P = memory.data(32);
const SEG_L = memory.data(32);
const VERB_NAMES: string[] = ['list', 'get', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'connect'];
const VERB_IDS = memory.data(36);
let verbIdsReady = false;

/** The id of a fixed ASCII string (a verb), interned once. */
function verbId(k: i32): i32 {
  if (!verbIdsReady) {
    for (let i = 0; i < VERB_NAMES.length; i++) {
      const f = unchecked(VERB_NAMES[i]);
      const at = SCRATCH + <usize>scratchPos; // (scan() keeps room past the line's strings)
      for (let j = 0; j < f.length; j++) store<u8>(at + <usize>j, <u8>f.charCodeAt(j));
      const id = intern(at, <u32>f.length);
      if (id < 0) return -2;
      store<i32>(VERB_IDS + (<usize>i << 2), id);
    }
    verbIdsReady = true;
  }
  return load<i32>(VERB_IDS + (<usize>k << 2));
}

/** Whether bytes [p, p+n) equal ASCII `s` ignoring case (s in upper case). */
function upperIs(p: usize, n: u32, s: string): bool {
  if (<u32>s.length != n) return false;
  for (let i: u32 = 0; i < n; i++) {
    let c = <u32>load<u8>(p + i);
    if (c >= 0x61 && c <= 0x7a) c -= 0x20;
    if (c != <u32>s.charCodeAt(<i32>i)) return false;
  }
  return true;
}

/** kubeVerbOf's `watch=true` or `watch=1` (any case) among the query's raw parameters [p, p+n). */
function rawWatchParam(p: usize, n: u32): bool {
  let s: u32 = 0;
  while (s <= n) {
    let e = s;
    while (e < n && load<u8>(p + e) != 0x26) e++;
    const k = e - s;
    if ((k == 10 && upperIs(p + s, 10, "WATCH=TRUE")) || (k == 7 && upperIs(p + s, 7, "WATCH=1"))) return true;
    s = e + 1;
  }
  return false;
}

/** The id of key `key`'s value (HV_P, HV_L) when the line has the key (`seen`): -1 when it has not, -2 when intern()
 * cannot take it (the line is declined). */
@inline function internSeen(seen: u32, key: i32): i32 {
  if (!(seen & (1 << key))) return -1;
  return intern(load<u32>(HV_P + (<usize>key << 2)), load<u32>(HV_L + (<usize>key << 2)));
}

/** Reads one klog line at [pos, lineEnd) as httplog's "HTTP" line into the record; false: declined. */
export function readHttplog(): bool {
  const p = pos;
  const e = lineEnd;
  if (e - p < 40 || load<u8>(p) != 0x49 /* I */) return false;
  const mo = digits(p + 1, 2);
  const dd = digits(p + 3, 2);
  const hh = digits(p + 6, 2);
  const mi = digits(p + 9, 2);
  const ss = digits(p + 12, 2);
  const us = digits(p + 15, 6);
  if (load<u8>(p + 5) != 0x20 || load<u8>(p + 8) != 0x3a || load<u8>(p + 11) != 0x3a || load<u8>(p + 14) != 0x2e) return false;
  if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh < 0 || hh > 23 || mi < 0 || mi > 59 || ss < 0 || ss > 60 || us < 0) return false;
  let q = p + 21;
  // the thread id between spaces, then the caller
  if (load<u8>(q) != 0x20) return false;
  while (q < e && load<u8>(q) == 0x20) q++;
  const t0 = q;
  while (q < e && load<u8>(q) >= 0x30 && load<u8>(q) <= 0x39) q++;
  if (q == t0 || q >= e || load<u8>(q) != 0x20) return false;
  while (q < e && load<u8>(q) == 0x20) q++;
  const cp = q;
  if (e - q < 12 || !asciiIs(q, 11, "httplog.go:")) return false;
  q += 11;
  const d0 = q;
  while (q < e && load<u8>(q) >= 0x30 && load<u8>(q) <= 0x39) q++;
  if (q == d0 || q + 2 > e || load<u8>(q) != 0x5d || load<u8>(q + 1) != 0x20) return false;
  const caller = intern(cp, <u32>(q - cp));
  if (caller < 0) return false;
  q += 2;
  // the message, then its pairs
  if (e - q < 7 || !asciiIs(q, 6, "\"HTTP\"")) return false;
  q += 6;
  const plain = plainAscii(q, <u32>(e - q));
  let seen: u32 = 0;
  let next: i32 = 0; // the key expected next (ORDER_KEYS)
  while (q < e) {
    if (load<u8>(q) != 0x20) return false;
    q++;
    let key: i32;
    const ek = next < ORDER_N ? unchecked(ORDER_KEYS[next]) : '';
    const en = <u32>ek.length;
    if (plain && en > 0 && <u32>(e - q) > en && asciiIs(q, en, ek)) {
      key = load<i32>(ORDER_IDS + (<usize>next << 2));
      next++;
      q += <usize>en;
    } else {
      const k0 = q;
      if (plain) q += <usize>findKeyEnd(q, <u32>(e - q));
      else
        while (q < e) {
          const c = load<u8>(q);
          if (c == 0x3d || c <= 0x20 || c >= 0x7f || c == 0x22) break;
          q++;
        }
      if (q >= e || load<u8>(q) != 0x3d || q == k0) return false;
      key = httplogKey(k0, <u32>(q - k0));
      if (key == H_DECLINE) return false;
      if (key < H_OTHER) {
        const at = load<i32>(ORDER_AT + (<usize>key << 2));
        if (at >= 0) next = at + 1;
      }
      q++;
    }
    let vp = q;
    let vl: u32 = 0;
    if (q < e && load<u8>(q) == 0x22) {
      q++;
      vp = q;
      if (plain) {
        // (no escape, no control byte and nothing past ASCII in the line: the next quote closes the value)
        const k = findByte(q, <u32>(e - q), 0x22);
        if (<usize>k >= e - q) return false;
        q += <usize>k;
      } else for (;;) {
        if (q >= e) return false;
        const c = load<u8>(q);
        if (c == 0x22) break;
        if (c == 0x5c) {
          if (key != H_OTHER) return false; // an escape in a value read: JavaScript unquotes it
          // (skipped as readQuoted skips it: \xHH, \uHHHH and \UHHHHHHHH take their digits along)
          const x = q + 1 < e ? load<u8>(q + 1) : 0;
          q += x == 0x78 ? 4 : x == 0x75 ? 6 : x == 0x55 ? 10 : 2;
          continue;
        }
        // bytes past ASCII in a value read (but a latency's µ): left to JavaScript, which decodes them
        if (key != H_OTHER && (c < 0x20 || (c >= 0x7f && key != H_LATENCY && key != H_INIT))) return false;
        q++;
      }
      vl = <u32>(q - vp);
      q++;
      if (q < e && load<u8>(q) != 0x20) return false;
    } else {
      if (q < e && load<u8>(q) == 0x3c && q + 1 == e) return false; // `key=<`: a value of several lines follows
      if (plain) {
        q += <usize>findByte(q, <u32>(e - q), 0x20);
      } else {
        while (q < e && load<u8>(q) != 0x20) {
          const c = load<u8>(q);
          if (key != H_OTHER && (c < 0x20 || c >= 0x7f)) return false;
          q++;
        }
      }
      vl = <u32>(q - vp);
    }
    if (key < H_OTHER) {
      if (seen & (1 << key)) return false; // a key twice: the Map keeps the last, left to JavaScript
      seen |= 1 << key;
      store<u32>(HV_P + (<usize>key << 2), <u32>vp);
      store<u32>(HV_L + (<usize>key << 2), vl);
    }
  }
  if ((seen & 3) != 3) return false; // verb and URI
  // the URI: kept, its path read as parsePath, its query by parseQuery
  const up = load<u32>(HV_P + (<usize>H_URI << 2));
  const un = load<u32>(HV_L + (<usize>H_URI << 2));
  if (un == 0 || load<u8>(up) != 0x2f || scratchPos + un > SCRATCH_CAP) return false;
  const uriP = scratchPos;
  memory.copy(SCRATCH + uriP, up, un);
  setScratchPos(scratchPos + un);
  const qm = findByte(<usize>up, un, 0x3f);
  // the path's segments, empty ones left out (as parsePath and isCollectionPath split it)
  let segs: i32 = 0;
  let s: u32 = 0;
  // (a %-escape in the path is declined by parseQuery; a '#' in it stays in parsePath's last segment: JavaScript's)
  if (findByte(<usize>up, qm, 0x23) < qm) return false;
  while (s < qm) {
    while (s < qm && load<u8>(up + s) == 0x2f) s++;
    if (s >= qm) break;
    const s0 = s;
    s += findByte(<usize>up + s, qm - s, 0x2f);
    if (segs >= 8) return false;
    store<u32>(SEG_P + (<usize>segs << 2), <u32>up + s0);
    store<u32>(SEG_L + (<usize>segs << 2), s - s0);
    segs++;
  }
  let res: i32 = -1;
  let grp: i32 = -1;
  let ns: i32 = -1;
  let sub: i32 = -1;
  let nameP: usize = 0;
  let nameL: u32 = 0;
  let collection = false;
  let first: i32 = -1;
  if (segs > 0 && bytesAre(<usize>load<u32>(SEG_P + (<usize>(0) << 2)), load<u32>(SEG_L + (<usize>(0) << 2)), "api")) first = 2;
  else if (segs > 0 && bytesAre(<usize>load<u32>(SEG_P + (<usize>(0) << 2)), load<u32>(SEG_L + (<usize>(0) << 2)), "apis")) first = 3;
  else if (segs > 0 && bytesAre(<usize>load<u32>(SEG_P + (<usize>(0) << 2)), load<u32>(SEG_L + (<usize>(0) << 2)), "core")) return false;
  if (first > 0 && segs > first) {
    const r0 = first;
    const n = segs - r0;
    if (bytesAre(<usize>load<u32>(SEG_P + (<usize>(r0) << 2)), load<u32>(SEG_L + (<usize>(r0) << 2)), "watch") || bytesAre(<usize>load<u32>(SEG_P + (<usize>(r0) << 2)), load<u32>(SEG_L + (<usize>(r0) << 2)), "proxy")) return false;
    if (first == 3) {
      grp = intern(<usize>load<u32>(SEG_P + (<usize>(1) << 2)), load<u32>(SEG_L + (<usize>(1) << 2)));
      if (grp < 0) return false;
    }
    let at = r0; // the resource's segment
    if (bytesAre(<usize>load<u32>(SEG_P + (<usize>(r0) << 2)), load<u32>(SEG_L + (<usize>(r0) << 2)), "namespaces") && n >= 2) {
      if (n == 2 || (n == 3 && (bytesAre(<usize>load<u32>(SEG_P + (<usize>(r0 + 2) << 2)), load<u32>(SEG_L + (<usize>(r0 + 2) << 2)), "status") || bytesAre(<usize>load<u32>(SEG_P + (<usize>(r0 + 2) << 2)), load<u32>(SEG_L + (<usize>(r0 + 2) << 2)), "finalize")))) {
        // the namespace object itself
        res = intern(<usize>load<u32>(SEG_P + (<usize>(r0) << 2)), load<u32>(SEG_L + (<usize>(r0) << 2)));
        nameP = <usize>load<u32>(SEG_P + (<usize>(r0 + 1) << 2));
        nameL = load<u32>(SEG_L + (<usize>(r0 + 1) << 2));
        if (n == 3) sub = intern(<usize>load<u32>(SEG_P + (<usize>(r0 + 2) << 2)), load<u32>(SEG_L + (<usize>(r0 + 2) << 2)));
        at = -1;
      } else {
        ns = intern(<usize>load<u32>(SEG_P + (<usize>(r0 + 1) << 2)), load<u32>(SEG_L + (<usize>(r0 + 1) << 2)));
        if (ns < 0) return false;
        at = r0 + 2;
      }
      collection = n == 3; // isCollectionPath: /namespaces/NS/pods (and /namespaces alone: n == 1, below)
    } else collection = n == 1;
    if (at >= 0) {
      const left = segs - at;
      if (left > 3) return false; // a subresource of several segments: joined by JavaScript
      res = intern(<usize>load<u32>(SEG_P + (<usize>(at) << 2)), load<u32>(SEG_L + (<usize>(at) << 2)));
      if (left >= 2) {
        nameP = <usize>load<u32>(SEG_P + (<usize>(at + 1) << 2));
        nameL = load<u32>(SEG_L + (<usize>(at + 1) << 2));
      }
      if (left == 3) sub = intern(<usize>load<u32>(SEG_P + (<usize>(at + 2) << 2)), load<u32>(SEG_L + (<usize>(at + 2) << 2)));
    }
  }
  // (discovery, /api/v1 or /apis/apps/v1, and paths outside the API: parsePath's EMPTY_PATH, no group either)
  if (res == -2 || sub == -2) return false;
  // the verb, as kubeVerbOf works it out from httplog's verb and the URI
  const vp = load<u32>(HV_P + (<usize>H_VERB << 2));
  const vn = load<u32>(HV_L + (<usize>H_VERB << 2));
  const watch = qm < un && rawWatchParam(up + qm + 1, un - qm - 1);
  let vk: i32 = -1;
  const get = collection ? 0 : 1;
  switch (vn) {
    case 3:
      if (upperIs(vp, vn, "GET")) vk = watch ? 2 : get;
      else if (upperIs(vp, vn, "PUT")) vk = 4;
      break;
    case 4:
      if (upperIs(vp, vn, "LIST")) vk = watch ? 2 : get;
      else if (upperIs(vp, vn, "POST")) vk = 3;
      break;
    case 5:
      if (upperIs(vp, vn, "WATCH")) vk = 2;
      else if (upperIs(vp, vn, "PATCH") || upperIs(vp, vn, "APPLY")) vk = 5;
      break;
    case 6:
      if (upperIs(vp, vn, "CREATE")) vk = 3;
      else if (upperIs(vp, vn, "UPDATE")) vk = 4;
      else if (upperIs(vp, vn, "DELETE")) vk = collection ? 7 : 6;
      break;
    case 7:
      if (upperIs(vp, vn, "CONNECT")) vk = 8;
      break;
    case 9:
      if (upperIs(vp, vn, "WATCHLIST")) vk = 2;
      break;
    case 16:
      if (upperIs(vp, vn, "DELETECOLLECTION")) vk = 7;
      break;
  }
  if (vk < 0) return false;
  const verb = verbId(vk);
  if (verb < 0) return false;
  // the time: klogTimeMs
  const dayMs = <f64>(((hh * 60 + mi) * 60 + ss) * 1000 + us / 1000);
  let endMs: f64;
  if (!isNaN(klogYear)) endMs = civilMs(<i32>klogYear, mo, dd) + dayMs;
  else {
    endMs = civilMs(klogNowYear, mo, dd) + dayMs;
    if (endMs > klogNowMs + 86400000) endMs = civilMs(klogNowYear - 1, mo, dd) + dayMs;
  }
  let latency: f64 = NaN;
  if (seen & (1 << H_LATENCY)) {
    latency = goDurationMs(load<u32>(HV_P + (<usize>H_LATENCY << 2)), load<u32>(HV_L + (<usize>H_LATENCY << 2)));
    if (durBad) return false;
  }
  let wait: f64 = NaN;
  if (seen & (1 << H_INIT)) {
    wait = goDurationMs(load<u32>(HV_P + (<usize>H_INIT << 2)), load<u32>(HV_L + (<usize>H_INIT << 2)));
    if (durBad) return false;
  }
  let code: i32 = -1;
  if (seen & (1 << H_RESP)) {
    const rl = load<u32>(HV_L + (<usize>H_RESP << 2));
    if (rl > 0) {
      if (rl > 4) return false;
      code = digits(load<u32>(HV_P + (<usize>H_RESP << 2)), rl);
      if (code < 0) return false;
    }
  }
  let ua: i32 = internSeen(seen, H_UA);
  if (ua < -1) return false;
  let src: i32 = -1;
  if (seen & (1 << H_SRCIP)) {
    // hostOf: "[fd00::1]:443" → "fd00::1"; "10.0.0.5:43210" → "10.0.0.5"; more than one ':' (IPv6 bare): as it is
    let ap = load<u32>(HV_P + (<usize>H_SRCIP << 2));
    let al = load<u32>(HV_L + (<usize>H_SRCIP << 2));
    if (al > 0 && load<u8>(ap) == 0x5b) {
      const close = findByte(ap, al, 0x5d);
      if (close < al) {
        ap += 1;
        al = close - 1;
      }
    } else {
      let colons: u32 = 0;
      let last: u32 = 0;
      for (let i: u32 = 0; i < al; i++) {
        if (load<u8>(ap + i) == 0x3a) {
          colons++;
          last = i;
        }
      }
      if (colons == 1 && last > 0) al = last;
    }
    if (al > 0) {
      src = intern(ap, al);
      if (src < 0) return false;
    }
  }
  let pl: i32 = internSeen(seen, H_PL);
  if (pl < -1) return false;
  let fs: i32 = internSeen(seen, H_FS);
  if (fs < -1) return false;
  // (the reader keeps the priority level only beside a flow schema: `apfFlowSchema, apfPriorityLevel` or neither)
  if (fs == ID_EMPTY) fs = -1;
  if (fs < 0) pl = -1;
  setI(R_STAGE, 2);
  setI(R_VERB, verb);
  setI(R_UA, ua);
  setI(R_RESOURCE, res);
  setI(R_GROUP, grp);
  setI(R_NS, ns);
  setI(R_SUB, sub);
  if (nameL > 0) {
    const at = scratchPos;
    memory.copy(SCRATCH + at, nameP, nameL);
    setScratchPos(scratchPos + nameL);
    setI(R_NAME_P, <i32>at);
    setI(R_NAME_L, <i32>nameL);
  }
  if ((seen & (1 << H_ID)) && load<u32>(HV_L + (<usize>H_ID << 2)) > 0) {
    const il = load<u32>(HV_L + (<usize>H_ID << 2));
    const at = scratchPos;
    memory.copy(SCRATCH + at, load<u32>(HV_P + (<usize>H_ID << 2)), il);
    setScratchPos(scratchPos + il);
    setI(R_ID_P, <i32>at);
    setI(R_ID_L, <i32>il);
  }
  setI(R_CODE, code);
  setI(R_SRCIP, src);
  setI(R_APF_PL, pl);
  setI(R_APF_FS, fs);
  setI(R_CALLER, caller);
  store<f64>(rec, isNaN(latency) ? endMs : endMs - jsRound(latency), O_RECEIVED);
  store<f64>(rec, endMs, O_STAGE_T);
  store<f64>(rec, wait, O_APF_WAIT);
  setI(R_URI_P, <i32>uriP);
  setI(R_URI_L, <i32>un);
  return parseQuery(SCRATCH + <usize>uriP, un);
}
