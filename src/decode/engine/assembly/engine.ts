// audit-scan's line engine, in AssemblyScript (compiled to dist/decode/engine/*.wasm by `npm run build`).
//
// It reads newline-terminated lines from the input region and, for each audit Event line on its fast path,
// writes a record of the fields the scan counts: strings interned to ids (new ones listed for the host to
// decode once), one-off strings (auditID, object name, requestURI, resourceVersion) unescaped into a scratch
// arena, times in epoch ms, the list query already parsed, and from a responseObject its item counts (the
// bodies are skipped otherwise: see "bodies"). It decides nothing about what a line means: any line it is not
// sure of (other kinds, wrappers, bodies with a token's or a lease's fields, odd JSON, escapes it does not take,
// invalid UTF-8) is declined and the host reads it with the JavaScript path. It never counts: the host does, once.
//
// Memory is laid out by the host through init(); everything is raw loads and stores (runtime stub, no GC).

import { slotsLayout, slotsInit, latencyEdgesPtr, latencyMax, R_MARK, fingerprintOn } from './slots';
import { grow, heapReset, hashBytes, bytesEqual } from './mem';
import { IN, OUT, OUT_CAP, SCRATCH, SCRATCH_CAP, NEWS, STACK, BODY_DEPTH, STRINGS, newsCount, setNewsCount, ID_LIST, ID_GET, ID_WATCH, ID_CREATE, ID_NODES, ID_LEASES, ID_TOKEN, ID_SERVICEACCOUNTS, ID_KUBE_SYSTEM, ID_EMPTY, ID_METADATA, intern } from './regions';
import { pos, lineEnd, strStart, strEnd, strEsc, valPtr, valLen, scratchPos, setPos, setLine, setStr, setScratchPos, peek, skipWs, readString, keepString, skipLiteral, skipValue, keyIs, asciiIs, bytesAhead, digits, decodeComponent, findByte, hasQueryEscape, bytesAre, startsWith, bodyKey, skipBody, findNewline } from './bytes';
import { parseQuery } from './query';
import { readEvent } from './event';
import { bad, leaseRef, setBad, setLeaseRef, internValue, timeValue, readUser, readObjectRef, readStatus, readAnnotations } from './members';
import { REC_BYTES, R_STATUS, R_START, R_END, R_STAGE, R_VERB, R_LEVEL, R_USER, R_UA, R_NODE, R_RESOURCE, R_GROUP, R_NS, R_SUB, R_NAME_P, R_NAME_L, R_ID_P, R_ID_L, R_URI_P, R_URI_L, R_CODE, R_RV_CLASS, R_RV_P, R_RV_L, R_RVM, R_LIMIT, R_FLAGS, R_FSEL, R_LSEL, R_NL, R_RETURNED, O_RECEIVED, O_STAGE_T, O_REMAINING, rec, setI, setRec } from './record';
import { dedupAdmit, lastHoldNew, lastHoldRun, lastHoldSlot, setLastHold, V_DROP, V_HOLD, V_NEW, V_WAS_PENDING } from './dedup';
export { dedupOpen, dedupClose, dedupAdmit, dedupForget, dedupTail, dedupTailPtr, dedupKey, dedupLive } from './dedup';
export { REC_BYTES } from './record';
export { init } from './regions';
export { SLOT_BYTES, slotsReset, slotsPtr, slotsLen, clientsPtr, clientsLen, pairsPtr, samplesPtr, pairsCompact, countRecords, slotsFingerprint, fpHash, fpHash1, fpHash2 } from './slots';

// ---- setup ---------------------------------------------------------------------------------------------

/** Lays out the aggregator's tables (slots.ts) after the engine's; returns where the host writes the latency
 * edges. */
export function slotsSetup(maxSlots: u32, pairCap: u32, sampleCap: u32, latN: u32, bucketMs: f64, clientMs: f64): usize {
  const base = grow(slotsLayout(maxSlots, pairCap, sampleCap, latN));
  slotsInit(base, maxSlots, pairCap, sampleCap, latN, bucketMs, clientMs);
  return latencyEdgesPtr();
}

export function outPtr(): usize {
  return OUT;
}
export function scratchPtr(): usize {
  return SCRATCH;
}
export function newsPtr(): usize {
  return NEWS;
}
export function newsLen(): u32 {
  return newsCount;
}
export function internedCount(): u32 {
  return STRINGS;
}

// ---- kube-apiserver's own log: httplog's line (-v>=3) -------------------------------------------------
//
// `I1130 10:00:00.002001       1 httplog.go:132] "HTTP" verb="LIST" URI="/api/v1/pods?limit=500" latency="3ms"
// userAgent="…" audit-ID="…" srcIP="10.0.1.0:30001" apf_pl="…" apf_fs="…" … resp=200` becomes a record of status
// 2, read as src/decode/apiserver-log.ts (parseKlogHeader, parseKlogMessage, requestOfHttplog, kubeVerbOf) and
// src/model/request-uri.ts (parsePath) read it, to the same fields. What those read differently from a plain form
// (an escape or a byte past ASCII in a value they keep, a key that changes their answer, a header of another
// caller, an odd path) is declined, and the host's JavaScript path reads the line (and, while the apiserver log's
// reader holds a trace block or a value of several lines, the host gives it this record's line: ScanState).

const R_SRCIP = 40; // srcIP without its port, -1: none
const R_APF_PL = 41;
const R_APF_FS = 42;
const R_CALLER = 43; // "httplog.go:132"
const O_APF_WAIT = 152; // f64, apf_init_latency in ms, NaN: none

// klogTimeMs' clock (src/decode/apiserver-log.ts): klog writes no year
let klogNowMs: f64 = NaN;
let klogNowYear: i32 = 0;
let klogYear: f64 = NaN; // --syslog-year, NaN: inferred
export function setKlogClock(nowMs: f64, nowYear: i32, year: f64): void {
  klogNowMs = nowMs;
  klogNowYear = nowYear;
  klogYear = year;
}

/** Date.UTC(y, mo - 1, dd) for a month 1-12 and a day 1-31 (a day past the month's end rolls over, as Date.UTC). */
function civilMs(y: i32, mo: i32, dd: i32): f64 {
  const yy = mo <= 2 ? y - 1 : y;
  const era = (yy >= 0 ? yy : yy - 399) / 400;
  const yoe = yy - era * 400;
  const mp = mo > 2 ? mo - 3 : mo + 9;
  const doy = (153 * mp + 2) / 5;
  const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return (<f64>(era * 146097 + doe - 719468) + <f64>(dd - 1)) * 86400000;
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

/** Reads one klog line at [pos, lineEnd) as httplog's "HTTP" line into the record; false: declined. */
function readHttplog(): bool {
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
  while (q < e) {
    if (load<u8>(q) != 0x20) return false;
    q++;
    const k0 = q;
    while (q < e) {
      const c = load<u8>(q);
      if (c == 0x3d || c <= 0x20 || c >= 0x7f || c == 0x22) break;
      q++;
    }
    if (q >= e || load<u8>(q) != 0x3d || q == k0) return false;
    const key = httplogKey(k0, <u32>(q - k0));
    if (key == H_DECLINE) return false;
    q++;
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
        while (q < e && load<u8>(q) != 0x20) q++;
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
  let ua: i32 = -1;
  if (seen & (1 << H_UA)) {
    ua = intern(load<u32>(HV_P + (<usize>H_UA << 2)), load<u32>(HV_L + (<usize>H_UA << 2)));
    if (ua < 0) return false;
  }
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
  let pl: i32 = -1;
  if (seen & (1 << H_PL)) {
    pl = intern(load<u32>(HV_P + (<usize>H_PL << 2)), load<u32>(HV_L + (<usize>H_PL << 2)));
    if (pl < 0) return false;
  }
  let fs: i32 = -1;
  if (seen & (1 << H_FS)) {
    fs = intern(load<u32>(HV_P + (<usize>H_FS << 2)), load<u32>(HV_L + (<usize>H_FS << 2)));
    if (fs < 0) return false;
  }
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

function resetRecord(): void {
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

/** Reads the lines of input [0, len): each must end with \n (the host holds a partial last line). Lines longer
 * than `maxLine` bytes, and the first `declineFirst` lines, are declined unread. Writes one record per line,
 * up to the record capacity; returns the number of input bytes consumed (whole lines). Records: outPtr(),
 * count = the result of lineCount() after the call. */
let lines: u32 = 0;
export function lineCount(): u32 {
  return lines;
}
export function scan(len: u32, maxLine: u32, declineFirst: u32): u32 {
  setScratchPos(0);
  setNewsCount(0);
  lines = 0;
  let p = IN;
  const end = IN + <usize>len;
  while (p < end && lines < OUT_CAP) {
    // the unescaped strings of one line are at most the line's length: keep room for a whole line
    const nl = findNewline(p, end);
    if (nl >= end) break;
    let e = nl;
    if (e > p && load<u8>(e - 1) == 0x0d) e--;
    setRec(OUT + (<usize>lines) * REC_BYTES);
    resetRecord();
    setI(R_START, <i32>(p - IN));
    setI(R_END, <i32>(e - IN));
    setI(R_NL, <i32>(nl - IN));
    const n = <u32>(e - p);
    let ok = false;
    let status = 1;
    if (lines >= declineFirst && n <= maxLine && n > 1 && scratchPos + n * 2 + 64 <= SCRATCH_CAP) {
      setLine(p, e);
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

// ---- the requests the aggregator counts (ScanState.countEngine) and the lines it admits here -----------------

/** How the aggregator (slots.ts) counts the final-stage request whose record is at r: its mark bits (slots.ts M_*:
 * 1 counted, 2 a plain read, 4 a listing, 8 a watch's end), or 0 when the host counts it as an event (countRequest):
 * no objectRef resource (the URI names it), a node read by name (a cluster fact), a TokenRequest (its account), a
 * latency past the last latency edge. */
function classify(r: usize): i32 {
  // the copy fingerprint hashes an ID's UTF-16 code units: the module hashes ASCII IDs only (the same numbers)
  if (fingerprintOn() && !asciiId(r)) return 0;
  const verb = load<i32>(r + (<usize>R_VERB << 2));
  const res = load<i32>(r + (<usize>R_RESOURCE << 2));
  const sub = load<i32>(r + (<usize>R_SUB << 2));
  const isRead = verb == ID_LIST || verb == ID_GET || verb == ID_WATCH;
  if (res < 0 || res == ID_EMPTY) return 0;
  if (isRead && res == ID_NODES && load<i32>(r + (<usize>R_NAME_P << 2)) >= 0 && load<i32>(r + (<usize>R_NAME_L << 2)) > 0) return 0;
  if (verb == ID_CREATE && sub == ID_TOKEN && res == ID_SERVICEACCOUNTS) return 0;
  if (load<f64>(r, O_STAGE_T) - load<f64>(r, O_RECEIVED) >= latencyMax()) return 0;
  const code = load<i32>(r + (<usize>R_CODE << 2));
  const sie = (load<i32>(r + (<usize>R_FLAGS << 2)) & 4) != 0;
  const listing = verb == ID_LIST || (verb == ID_WATCH && sie && code != 400 && code != 422);
  // a watch answered with an error (a refused watch-list's 422, a 429) never streamed: no watch ended (scan-state.ts)
  return 1 | (isRead && (sub < 0 || sub == ID_EMPTY) ? 2 : 0) | (listing ? 4 : 0) | (verb == ID_WATCH && code < 400 ? 8 : 0);
}

/** true when the record's auditID is ASCII, or absent. */
function asciiId(r: usize): bool {
  const p = load<i32>(r + (<usize>R_ID_P << 2));
  if (p < 0) return true;
  const a = SCRATCH + <usize>p;
  const n = <usize>load<i32>(r + (<usize>R_ID_L << 2));
  for (let i: usize = 0; i < n; i++) if (load<u8>(a + i) >= 0x80) return false;
  return true;
}

export function classifyAt(r: usize): i32 {
  return classify(r);
}

let fastVerdict: i32 = -1;
let fastDups: u32 = 0;
let OPENS: usize = 0; // admitFast: what changed in the requests the host holds open, in record order
let openCount: u32 = 0;
let runSeq: u32 = 0; // admitFast's calls, numbered from 1 (dedup.ts keeps, per open request, the run that listed it)
const OPEN_NONE: i32 = i32.MIN_VALUE;

/** What admitFast() changed in the open requests the host holds (ScanState's pending), in record order, at
 * fastOpensPtr(), fastOpensLen() of them, an i32 each: a record index r, a final event that completed an open
 * request (the host drops the held one); ~r, an earlier stage the host holds (its event, under its auditID);
 * i32.MIN_VALUE, nothing. A request held and completed in one run is not the host's business: its hold is
 * struck out (nothing) and its completion not listed. Holding it would put it last in the host's open requests,
 * and dropping it take it out again, with no eviction between (a run holds no more than there is room for): the
 * other open requests keep their order. A hold listed again in the run (a later earlier stage: the host moves it
 * last) strikes out the one before. */
export function fastOpensPtr(): usize {
  return OPENS;
}
export function fastOpensLen(): u32 {
  return openCount;
}

/** The dedup verdict (dedup.ts V_*) of the record admitFast() stopped at, or -1 when it stopped before its dedup. */
export function fastVerdictOf(): i32 {
  return fastVerdict;
}
/** Copies of final events admitFast() dropped in the records it admitted. */
export function fastDupsOf(): u32 {
  return fastDups;
}

/** Admits the records [from, n) at `out`, as ScanState.addEngineLine does, for as long as nothing needs the host:
 * an event with an auditID, both times plausible ([earliest, latest]), not an apiserver identity lease, goes
 * through the segment's dedup (`state`). A final event counted now and outside the segment's head is marked for
 * the aggregator (classify); an earlier stage is held open (listed for the host, at most `room` of them: the host's
 * pending requests are not to pass their cap in a run, where it would count the oldest); a copy is dropped.
 * Returns the first record it did not finish: declined, a time, an ID or a lease the host reads, the (room + 1)th
 * earlier stage, or (fastVerdictOf() then gives the dedup's verdict) a request that may be in the head (received
 * by `began` + slack: the host decides), one the host counts itself. A final event that completes an open request
 * the host holds is admitted too, and listed (fastOpensPtr) for the host to drop the held one.
 * The host then does, for each admitted record in order, what does not depend on its verdict (counts, timing).
 * beforeMs, startMs: ScanState's (NaN: none); before the segment's first event (startMs NaN) it admits nothing. */
export function admitFast(out: usize, from: u32, n: u32, state: u32, beforeMs: f64, startMs: f64, slack: f64, earliest: f64, latest: f64, room: u32, logOk: u32): u32 {
  fastVerdict = -1;
  fastDups = 0;
  openCount = 0;
  runSeq++;
  if (OPENS == 0) OPENS = grow(<usize>OUT_CAP << 2);
  // the segment's first event is the host's: timeOf() sets when the segment began from it
  if (isNaN(startMs)) return from;
  const began = isNaN(beforeMs) ? startMs : max(startMs, beforeMs);
  let held: u32 = 0;
  for (let i = from; i < n; i++) {
    const r = out + (<usize>i) * REC_BYTES;
    // an httplog line (status 2) when the host says none may complete what it holds (logOk), without an APF wait
    const status = load<i32>(r + (<usize>R_STATUS << 2));
    const log = status == 2;
    if ((status != 1 && !(log && logOk != 0)) || load<i32>(r + (<usize>R_CODE << 2)) == 429) return i;
    if (log && !isNaN(load<f64>(r, O_APF_WAIT))) return i;
    const recv = load<f64>(r, O_RECEIVED);
    const st = load<f64>(r, O_STAGE_T);
    // (a NaN fails every comparison: it is not admitted)
    if (!(recv >= earliest && recv <= latest && st >= earliest && st <= latest)) return i;
    if (load<i32>(r + (<usize>R_RESOURCE << 2)) == ID_LEASES && load<i32>(r + (<usize>R_NS << 2)) == ID_KUBE_SYSTEM) return i;
    const idp = load<i32>(r + (<usize>R_ID_P << 2));
    if (idp < 0) return i;
    const idAt = SCRATCH + <usize>idp;
    const idLen = <u32>load<i32>(r + (<usize>R_ID_L << 2));
    if (load<i32>(r + (<usize>R_STAGE << 2)) < 2) {
      // an earlier stage: held open (V_HOLD), or dropped when its final stage came first (V_DROP)
      if (held >= room) return i;
      if (dedupAdmit(state, idAt, idLen, false) == V_HOLD) {
        // A new open request, or one this run listed already (its place struck out), is remembered at this place;
        // one held before this run (by the host, or an earlier run) is listed and no more: the host holds it.
        const again = lastHoldRun() == runSeq; // (a new entry's run is 0)
        if (again) store<i32>(OPENS + (<usize>lastHoldSlot() << 2), OPEN_NONE);
        if (again || lastHoldNew()) setLastHold(runSeq, openCount);
        store<i32>(OPENS + (<usize>(openCount++) << 2), ~(<i32>i));
        held++;
      }
      continue;
    }
    const v = dedupAdmit(state, idAt, idLen, true);
    if (v == V_DROP) {
      fastDups++;
      continue;
    }
    // (the apiserver log's request is judged by when its line was written, as ScanState.addAuditEvent judges it;
    // one that completes an open request may take what a trace of it said: the host's)
    if ((v != V_NEW && v != V_WAS_PENDING) || (log ? st : recv) <= began + slack || (log && v == V_WAS_PENDING)) {
      fastVerdict = <i32>v;
      return i;
    }
    const bits = classify(r);
    if (bits == 0) {
      fastVerdict = <i32>v;
      return i;
    }
    store<i32>(r + (<usize>R_MARK << 2), bits);
    if (v == V_WAS_PENDING) {
      // held in this run: its hold struck out, nothing for the host; held before: the host drops it
      if (lastHoldRun() == runSeq) store<i32>(OPENS + (<usize>lastHoldSlot() << 2), OPEN_NONE);
      else store<i32>(OPENS + (<usize>(openCount++) << 2), <i32>i);
    }
  }
  return n;
}

// Tests only (test/engine-mem.test.ts): the byte hash and compare the intern and dedup tables share, on bytes the
// host wrote into the module's memory.
export function memHash(p: usize, n: u32): u32 {
  return hashBytes(p, n);
}
export function memEqual(a: usize, b: usize, n: u32): bool {
  return bytesEqual(a, b, n);
}
