/*! The Event's objects (user, objectRef, responseStatus, annotations) and its bodies: skipped, save a
 * list response's item counts and the fields that make a line the JavaScript path's (a token, a lease). */

import { bad, bytesAhead, digits, internValue, keepValue, keyIs, lineEnd, peek, pos, readString, rec, setI, skipLiteral, skipNumber, skipValue, skipWs, strEnd, strEsc, strStart, valLen, valPtr } from './json';
import { bytesAre } from './query';
import { O_REMAINING, R_CODE, R_GROUP, R_NAME_L, R_NAME_P, R_NODE, R_NS, R_RESOURCE, R_RETURNED, R_SUB, R_USER, STACK } from './setup';

// ---- objects -------------------------------------------------------------------------------------------

/** Calls `member` for each member of the object at pos; the name is the last string read. */
export function readUser(): void {
  skipWs();
  if (peek() != 0x7b) {
    bad = true;
    return;
  }
  pos++;
  skipWs();
  if (peek() == 0x7d) {
    pos++;
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
    pos++;
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
    pos++;
    if (d == 0x2c) continue;
    if (d != 0x7d) bad = true;
    return;
  }
}

/** user.extra: the first value of "authentication.kubernetes.io/node-name". */
export function readExtra(): void {
  skipWs();
  const c = peek();
  if (c != 0x7b) {
    // null or another type: the JavaScript path ignores it; so do we, but only for null
    if (c == 0x6e && skipLiteral(0x6c6c756e, 4)) return;
    bad = true;
    return;
  }
  pos++;
  skipWs();
  if (peek() == 0x7d) {
    pos++;
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
    pos++;
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
      pos++;
      skipWs();
      if (peek() == 0x5d) pos++;
      else {
        setI(R_NODE, internValue());
        if (bad) return;
        for (;;) {
          skipWs();
          const d = peek();
          pos++;
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
    pos++;
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
  pos++;
  skipWs();
  if (peek() == 0x7d) {
    pos++;
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
    pos++;
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
    pos++;
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
  pos++;
  skipWs();
  if (peek() == 0x7d) {
    pos++;
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
    pos++;
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
          pos++;
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
    pos++;
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
  pos++;
  skipWs();
  if (peek() == 0x7d) {
    pos++;
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
    pos++;
    if (!skipValue(0)) {
      bad = true;
      return;
    }
    skipWs();
    const d = peek();
    pos++;
    if (d == 0x2c) continue;
    if (d != 0x7d) bad = true;
    return;
  }
}

// ---- bodies --------------------------------------------------------------------------------------------
//
// requestObject and responseObject (RequestResponse and Request levels) are most of the bytes of the lines that
// have them. They are skipped, validated as JSON.parse would take them (so a line the engine reads is one JSON.parse
// reads), and nothing in them is unescaped or interned; normalizeAuditEvent (src/decode/audit-event.ts) reads only
// this from them, and so does the engine:
//   responseObject.items, when an array: its length (returnedItems);
//   responseObject.metadata.remainingItemCount, when a number (remainingItems);
//   a top-level spec.expirationSeconds of either body (tokenExpirationSeconds: TokenRequests, CSRs): declined;
//   requestObject.spec.holderIdentity of an apiserver identity lease (leaseHolder): declined.
// The last of duplicate names wins, as in JSON.parse; an escaped name where one of these is looked for declines.

export const BODY_DEPTH: i32 = 1024; // deeper bodies are declined
export let leaseRef: u32 = 0; // objectRef: 1 resource "leases", 2 namespace "kube-system", 4 name "apiserver-…"/"kube-apiserver-…"
export let reqHolder = false; // a requestObject's top-level spec has a holderIdentity

@inline export function startsWith(p: usize, n: u32, s: string): bool {
  const k = <u32>s.length;
  return n >= k && bytesAre(p, k, s);
}

/** Skips the JSON string at pos ('"') where nothing of it is kept (members no rule reads; bodies: stringFrom()). */
@inline export function skipString(): bool {
  const p = stringFrom(pos);
  if (p == 0) return false;
  pos = p;
  return true;
}

// The 64 bytes from BLK_BASE to BLK_END (within the line): their quotes (BLK_Q) and the bytes a string cannot hold
// as they are, or must be looked at (BLK_X: '\\', control bytes, bytes of 0x80 and above), a bit each. The line's
// bytes do not change while it is read; scan() empties it for each line.
export let BLK_BASE: usize = 0;
export let BLK_END: usize = 0;
export let BLK_Q: u64 = 0;
export let BLK_X: u64 = 0;

export function blockAt(s: usize): void {
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
@inline export function wsFrom(p: usize): usize {
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
@inline export function stringFrom(p: usize): usize {
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
@inline export function keyFrom(p: usize): usize {
  p = wsFrom(p);
  if (<u32>load<u8>(p) != 0x22) return 0;
  p = stringFrom(p);
  if (p == 0) return 0;
  p = wsFrom(p);
  if (<u32>load<u8>(p) != 0x3a) return 0;
  return p + 1;
}

export const M_RESPONSE: u32 = 0;
export const M_REQUEST: u32 = 1;
export const M_SPEC: u32 = 2;
export const M_METADATA: u32 = 3;

/** Walks the members of the object at pos ('{'): after each name, the member function of `kind` reads or skips
 * the value (false: declined). False when the line leaves the fast path; a name with escapes declines. */
export function eachMember(kind: u32): bool {
  pos++;
  skipWs();
  if (peek() == 0x7d) {
    pos++;
    return true;
  }
  for (;;) {
    if (!bodyKey() || strEsc) return false;
    const kl = <u32>(strEnd - strStart);
    let ok = false;
    if (kind == M_RESPONSE) ok = responseMember(kl);
    else if (kind == M_REQUEST) ok = requestMember(kl);
    else if (kind == M_SPEC) ok = specMember(kl);
    else ok = remainingMember(kl);
    if (!ok) return false;
    skipWs();
    const d = peek();
    pos++;
    if (d == 0x2c) continue;
    return d == 0x7d;
  }
}

/** The value of a body member when it is an array: its length; -1 for any other value; -2: invalid. */
export function countItems(): i32 {
  skipWs();
  if (peek() != 0x5b) return skipBody() ? -1 : -2;
  pos++;
  skipWs();
  if (peek() == 0x5d) {
    pos++;
    return 0;
  }
  let n: i32 = 0;
  for (;;) {
    if (!skipBody()) return -2;
    n++;
    skipWs();
    const d = peek();
    pos++;
    if (d == 0x2c) continue;
    return d == 0x5d ? n : -2;
  }
}

/** metadata.remainingItemCount as a plain integer (what the apiserver writes); NaN for a value that is not a
 * number (null there); false for a number in another form (negative, a fraction, an exponent, 16 digits or more),
 * which JSON.parse reads and the JavaScript path takes. */
export let remaining: f64 = NaN;
export function remainingMember(kl: u32): bool {
  if (kl != 18 || !keyIs("remainingItemCount")) return skipBody();
  skipWs();
  const c = peek();
  if (c < 0x30 || c > 0x39) {
    if (c == 0x2d) return false;
    remaining = NaN;
    return skipBody();
  }
  if (c == 0x30 && pos + 1 < lineEnd && load<u8>(pos + 1) >= 0x30 && load<u8>(pos + 1) <= 0x39) return false; // 01
  let x: f64 = 0;
  let digits: u32 = 0;
  while (peek() >= 0x30 && peek() <= 0x39) {
    x = x * 10 + <f64>(peek() - 0x30);
    pos++;
    if (++digits > 15) return false;
  }
  const e = peek();
  if (e == 0x2e || e == 0x65 || e == 0x45) return false;
  remaining = x;
  return true;
}

/** spec at the top of a body: declines when it has expirationSeconds (tokenExpirationSeconds); notes holderIdentity
 * (an apiserver identity lease's leaseHolder, when this is the requestObject). */
export let inRequest = false;
export function specMember(kl: u32): bool {
  if (kl == 17 && keyIs("expirationSeconds")) return false;
  if (kl == 14 && keyIs("holderIdentity") && inRequest) reqHolder = true;
  return skipBody();
}

export function readSpec(): bool {
  skipWs();
  if (peek() != 0x7b) return skipBody();
  return eachMember(M_SPEC);
}

export function responseMember(kl: u32): bool {
  if (kl == 5 && keyIs("items")) {
    const n = countItems();
    if (n == -2) return false;
    setI(R_RETURNED, n);
    return true;
  }
  if (kl == 8 && keyIs("metadata")) {
    // a later metadata replaces an earlier one, and a metadata that is not an object (or has no count) gives none
    remaining = NaN;
    skipWs();
    if (peek() == 0x7b) {
      if (!eachMember(M_METADATA)) return false;
    } else if (!skipBody()) return false;
    store<f64>(rec, remaining, O_REMAINING);
    return true;
  }
  if (kl == 4 && keyIs("spec")) return readSpec();
  return skipBody();
}

export function requestMember(kl: u32): bool {
  if (kl == 4 && keyIs("spec")) return readSpec();
  return skipBody();
}

/** responseObject: a later one replaces an earlier one (JSON.parse), so the counts start over. */
export function readResponseObject(): void {
  setI(R_RETURNED, -1);
  store<f64>(rec, NaN, O_REMAINING);
  inRequest = false;
  skipWs();
  if (!(peek() == 0x7b ? eachMember(M_RESPONSE) : skipBody())) bad = true;
}

export function readRequestObject(): void {
  inRequest = true;
  skipWs();
  if (!(peek() == 0x7b ? eachMember(M_REQUEST) : skipBody())) bad = true;
}
