/*! The audit Event's members that are objects (user, its extra, objectRef, responseStatus, annotations) and
 * the string and time values of members, read into the record; and `bad`, the verdict of the line they read. */

import { intern } from './regions';
import { R_USER, R_NODE, R_RESOURCE, R_GROUP, R_NS, R_SUB, R_NAME_P, R_NAME_L, R_CODE, setI } from './record';
import { pos, strStart, strEnd, strEsc, valPtr, valLen, setPos, peek, skipWs, readString, keepString, skipLiteral, skipValue, keyIs, bytesAhead, digits, bytesAre, startsWith } from './bytes';

// ---- the line's verdict --------------------------------------------------------------------------------

export let bad: bool = false; // set when the line leaves the fast path
export let leaseRef: u32 = 0; // objectRef: 1 resource "leases", 2 namespace "kube-system", 4 name "apiserver-…"/"kube-apiserver-…"

@inline export function setBad(b: bool): void {
  bad = b;
}

@inline export function setLeaseRef(v: u32): void {
  leaseRef = v;
}

// ---- member values -----------------------------------------------------------------------------------

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
function keepValue(fp: i32, fl: i32): void {
  skipWs();
  if (peek() != 0x22 || !readString(true)) {
    bad = true;
    return;
  }
  setI(fp, <i32>keepString());
  setI(fl, <i32>valLen);
}

/** An RFC 3339 time in the form the apiserver writes (UTC, "Z", optional fraction): epoch ms, NaN otherwise.
 * Matches parseTimestampMs (src/decode/time.ts) on what it accepts; the rest is declined. */
// The second parseTime() read last ("2026-11-30T10:00:00", its 19 bytes as three words) and its epoch ms: a line's
// two times, and the lines around it, mostly fall in the same second (parseTimestampMs keeps it too).
let lastSecA: u64 = 0;
let lastSecB: u64 = 0;
let lastSecC: u32 = 0;
let lastSecMs: f64 = NaN;

function parseTime(p: usize, n: u32): f64 {
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
function fraction(p: usize, n: u32): f64 {
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
function parseSecond(p: usize): f64 {
  if (load<u8>(p + 4) != 0x2d || load<u8>(p + 7) != 0x2d || load<u8>(p + 13) != 0x3a || load<u8>(p + 16) != 0x3a) return NaN;
  const y = digits(p, 4);
  const mo = digits(p + 5, 2);
  const dd = digits(p + 8, 2);
  const hh = digits(p + 11, 2);
  const mi = digits(p + 14, 2);
  const ss = digits(p + 17, 2);
  if (y < 0 || mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh < 0 || hh > 23 || mi < 0 || mi > 59 || ss < 0 || ss > 59) return NaN;
  // (a day past the month's end rolls over, as Date.parse does)
  return civilMs(y, mo, dd) + <f64>(hh * 3600000 + mi * 60000 + ss * 1000);
}

/** Date.UTC(y, mo - 1, dd) for a month 1-12 and a day 1-31, days from civil (H. Hinnant): a day past the month's
 * end rolls over, as Date.UTC and Date.parse do. The audit Event's times and the klog header's (httplog.ts). */
export function civilMs(y: i32, mo: i32, dd: i32): f64 {
  const yy = mo <= 2 ? y - 1 : y;
  const era = (yy >= 0 ? yy : yy - 399) / 400;
  const yoe = yy - era * 400;
  const mp = mo > 2 ? mo - 3 : mo + 9;
  const doy = (153 * mp + 2) / 5;
  const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return (<f64>(era * 146097 + doe - 719468) + <f64>(dd - 1)) * 86400000;
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

// ---- objects -------------------------------------------------------------------------------------------

/** Calls `member` for each member of the object at pos; the name is the last string read. */
export function readUser(): void {
  skipWs();
  if (peek() != 0x7b) {
    bad = true;
    return;
  }
  setPos(pos + 1);
  skipWs();
  if (peek() == 0x7d) {
    setPos(pos + 1);
    return;
  }
  let seen: u32 = 0;
  for (;;) {
    skipWs();
    if (peek() != 0x22 || !readString(false) || strEsc) {
      bad = true;
      return;
    }
    skipWs();
    if (peek() != 0x3a) {
      bad = true;
      return;
    }
    setPos(pos + 1);
    if (keyIs("username")) {
      if (seen & 1) {
        bad = true;
        return;
      }
      seen |= 1;
      setI(R_USER, internValue());
    } else if (keyIs("extra")) {
      if (seen & 2) {
        bad = true;
        return;
      }
      seen |= 2;
      readExtra();
    } else if (!skipValue(0)) {
      bad = true;
      return;
    }
    if (bad) return;
    skipWs();
    const d = peek();
    setPos(pos + 1);
    if (d == 0x2c) continue;
    if (d != 0x7d) bad = true;
    return;
  }
}

/** user.extra: the first value of "authentication.kubernetes.io/node-name". */
function readExtra(): void {
  skipWs();
  const c = peek();
  if (c != 0x7b) {
    // null or another type: the JavaScript path ignores it; so do we, but only for null
    if (c == 0x6e && skipLiteral(0x6c6c756e, 4)) return;
    bad = true;
    return;
  }
  setPos(pos + 1);
  skipWs();
  if (peek() == 0x7d) {
    setPos(pos + 1);
    return;
  }
  let seen = false;
  for (;;) {
    skipWs();
    if (peek() != 0x22 || !readString(false) || strEsc) {
      bad = true;
      return;
    }
    const isNode = keyIs("authentication.kubernetes.io/node-name");
    skipWs();
    if (peek() != 0x3a) {
      bad = true;
      return;
    }
    setPos(pos + 1);
    if (isNode) {
      if (seen) {
        bad = true;
        return;
      }
      seen = true;
      skipWs();
      if (peek() != 0x5b) {
        bad = true;
        return;
      }
      setPos(pos + 1);
      skipWs();
      if (peek() == 0x5d) setPos(pos + 1);
      else {
        setI(R_NODE, internValue());
        if (bad) return;
        for (;;) {
          skipWs();
          const d = peek();
          setPos(pos + 1);
          if (d == 0x5d) break;
          if (d != 0x2c || !skipValue(0)) {
            bad = true;
            return;
          }
        }
      }
    } else if (!skipValue(0)) {
      bad = true;
      return;
    }
    skipWs();
    const d = peek();
    setPos(pos + 1);
    if (d == 0x2c) continue;
    if (d != 0x7d) bad = true;
    return;
  }
}

export function readObjectRef(): void {
  skipWs();
  const c = peek();
  if (c == 0x6e) {
    if (!skipLiteral(0x6c6c756e, 4)) bad = true;
    return;
  }
  if (c != 0x7b) {
    bad = true;
    return;
  }
  setPos(pos + 1);
  skipWs();
  if (peek() == 0x7d) {
    setPos(pos + 1);
    return;
  }
  let seen: u32 = 0;
  for (;;) {
    skipWs();
    if (peek() != 0x22 || !readString(false) || strEsc) {
      bad = true;
      return;
    }
    skipWs();
    if (peek() != 0x3a) {
      bad = true;
      return;
    }
    setPos(pos + 1);
    let bit: u32 = 0;
    if (keyIs("resource")) {
      bit = 1;
      if (!(seen & bit)) {
        setI(R_RESOURCE, internValue());
        if (!bad && bytesAre(valPtr, valLen, "leases")) leaseRef |= 1;
      }
    } else if (keyIs("namespace")) {
      bit = 2;
      if (!(seen & bit)) {
        setI(R_NS, internValue());
        if (!bad && bytesAre(valPtr, valLen, "kube-system")) leaseRef |= 2;
      }
    } else if (keyIs("name")) {
      bit = 4;
      if (!(seen & bit)) {
        keepValue(R_NAME_P, R_NAME_L);
        if (!bad && (startsWith(valPtr, valLen, "apiserver-") || startsWith(valPtr, valLen, "kube-apiserver-"))) leaseRef |= 4;
      }
    } else if (keyIs("apiGroup")) {
      bit = 8;
      if (!(seen & bit)) setI(R_GROUP, internValue());
    } else if (keyIs("subresource")) {
      bit = 16;
      if (!(seen & bit)) setI(R_SUB, internValue());
    } else if (!skipValue(0)) {
      bad = true;
      return;
    }
    if (bit != 0) {
      if (seen & bit) {
        bad = true;
        return;
      }
      seen |= bit;
    }
    if (bad) return;
    skipWs();
    const d = peek();
    setPos(pos + 1);
    if (d == 0x2c) continue;
    if (d != 0x7d) bad = true;
    return;
  }
}

export function readStatus(): void {
  skipWs();
  // the status of most successful requests, as the apiserver writes it
  if (bytesAhead('{"metadata":{},"code":200}')) {
    setI(R_CODE, 200);
    return;
  }
  const c = peek();
  if (c != 0x7b) {
    if (!skipValue(0)) bad = true;
    return;
  }
  setPos(pos + 1);
  skipWs();
  if (peek() == 0x7d) {
    setPos(pos + 1);
    return;
  }
  let seen = false;
  for (;;) {
    skipWs();
    if (peek() != 0x22 || !readString(false) || strEsc) {
      bad = true;
      return;
    }
    const isCode = keyIs("code");
    skipWs();
    if (peek() != 0x3a) {
      bad = true;
      return;
    }
    setPos(pos + 1);
    if (isCode) {
      if (seen) {
        bad = true;
        return;
      }
      seen = true;
      skipWs();
      const d = peek();
      if (d >= 0x30 && d <= 0x39) {
        // a plain integer only
        let x = 0;
        let digits = 0;
        while (peek() >= 0x30 && peek() <= 0x39) {
          x = x * 10 + <i32>(peek() - 0x30);
          setPos(pos + 1);
          if (++digits > 6) {
            bad = true;
            return;
          }
        }
        const e = peek();
        if (e == 0x2e || e == 0x65 || e == 0x45 || (digits > 1 && load<u8>(pos - <usize>digits) == 0x30)) {
          bad = true;
          return;
        }
        setI(R_CODE, x);
      } else if (d == 0x2d) {
        bad = true;
        return;
      } else if (!skipValue(0)) {
        bad = true;
        return;
      }
    } else if (!skipValue(0)) {
      bad = true;
      return;
    }
    skipWs();
    const d = peek();
    setPos(pos + 1);
    if (d == 0x2c) continue;
    if (d != 0x7d) bad = true;
    return;
  }
}

/** annotations: skipped, but a latency annotation (apiserver.latency.k8s.io/…, on requests over 500 ms) sends
 * the line to the JavaScript path, which reads them. */
export function readAnnotations(): void {
  skipWs();
  if (peek() != 0x7b) {
    if (!skipValue(0)) bad = true;
    return;
  }
  setPos(pos + 1);
  skipWs();
  if (peek() == 0x7d) {
    setPos(pos + 1);
    return;
  }
  for (;;) {
    skipWs();
    if (peek() != 0x22 || !readString(false) || strEsc) {
      bad = true;
      return;
    }
    if (strEnd - strStart > 25 && bytesAre(strStart, 25, "apiserver.latency.k8s.io/")) {
      bad = true;
      return;
    }
    skipWs();
    if (peek() != 0x3a) {
      bad = true;
      return;
    }
    setPos(pos + 1);
    if (!skipValue(0)) {
      bad = true;
      return;
    }
    skipWs();
    const d = peek();
    setPos(pos + 1);
    if (d == 0x2c) continue;
    if (d != 0x7d) bad = true;
    return;
  }
}
