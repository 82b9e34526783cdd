/*! A requestURI's query, read as the JavaScript path's parseQuery reads it: resourceVersion, its match,
 * limit, continue, watch, the selectors, with %-escapes decoded where it can say so exactly. */

import { asciiIs, hexVal, lineEnd, pos, setI, utf8Seq, valLen, valPtr } from './json';
import { R_FLAGS, R_FSEL, R_LIMIT, R_LSEL, R_RVM, R_RV_CLASS, R_RV_L, R_RV_P, SCRATCH, intern, scratchPos } from './setup';

// ---- the query -----------------------------------------------------------------------------------------

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

/** "false" in any case, or "0": a false boolean parameter (apimachinery's Convert_Slice_string_To_bool). */
export function isFalseParam(p: usize, n: u32): bool {
  if (n == 1 && load<u8>(p) == 0x30) return true;
  if (n != 5) return false;
  const w = "false";
  for (let i: u32 = 0; i < 5; i++) if ((<u32>load<u8>(p + i) | 0x20) != <u32>w.charCodeAt(<i32>i)) return false;
  return true;
}

/** Parses the requestURI kept at scratch [u, u+n): fails the line for what the JavaScript path must read (a
 * legacy /watch/ path, %-escapes in the path, a relative path, odd limits). */
export function parseQuery(u: usize, n: u32): bool {
  const q = findByte(u, n, 0x3f);
  if (n == 0 || load<u8>(u) != 0x2f) return false;
  // the path: no '%' and no "/watch" (parseRequestQuery parses those in full)
  if (ASC_FEATURE_SIMD) {
    // one pass, 16 bytes a step: each '%', and each '/' followed by 'w' (reading up to 17 bytes past the path
    // stays inside the scratch arena, where the kept request URI is)
    for (let i: u32 = 0; i < q; i += 16) {
      const v = v128.load(u + i);
      const w = v128.load(u + i + 1);
      let pct = <u32>i8x16.bitmask(i8x16.eq(v, i8x16.splat(0x25)));
      let sw = <u32>i8x16.bitmask(v128.and(i8x16.eq(v, i8x16.splat(0x2f)), i8x16.eq(w, i8x16.splat(0x77))));
      if (q - i < 16) {
        const m: u32 = ((<u32>1) << (q - i)) - 1;
        pct &= m;
        sw &= m;
      }
      if (pct != 0) return false;
      while (sw != 0) {
        const k = i + <u32>ctz(sw);
        if (k + 6 <= q && bytesAre(u + k, 6, "/watch")) return false;
        sw &= sw - 1;
      }
    }
  } else {
    if (findByte(u, q, 0x25) < q) return false;
    for (let k = findByte(u, q, 0x2f); k < q; k += 1 + findByte(u + k + 1, q - k - 1, 0x2f)) {
      if (k + 6 <= q && bytesAre(u + k, 6, "/watch")) return false;
    }
  }
  let rvSeen = false;
  let rvmSeen = false;
  let fsSeen = false;
  let lsSeen = false;
  let watchSeen = false;
  let sieSeen = false;
  let flags: i32 = 0;
  let limit: i32 = 0;
  setI(R_RVM, -1);
  setI(R_FSEL, -1);
  setI(R_LSEL, -1);
  setI(R_RV_CLASS, 0);
  setI(R_RV_P, -1);
  setI(R_RV_L, 0);
  if (q >= n) {
    setI(R_LIMIT, 0);
    setI(R_FLAGS, 0);
    return true;
  }
  const end = q + 1 + findByte(u + q + 1, n - q - 1, 0x23);
  let start = q + 1;
  while (start < end) {
    const amp = start + findByte(u + start, end - start, 0x26);
    if (amp > start) {
      const eq = start + findByte(u + start, amp - start, 0x3d);
      const kp = u + start;
      const kn = eq - start;
      // keys with '%' or '+' are rare: the JavaScript path reads them
      if (hasQueryEscape(kp, kn)) return false;
      const vp0 = eq < amp ? u + eq + 1 : u + amp;
      const vn0 = eq < amp ? amp - eq - 1 : 0;
      if (bytesAre(kp, kn, "fieldSelector")) {
        if (!fsSeen) {
          if (!decodeComponent(vp0, vn0)) return false;
          const id = intern(valPtr, valLen);
          if (id < 0) return false;
          setI(R_FSEL, id);
          fsSeen = true;
        }
      } else if (bytesAre(kp, kn, "labelSelector")) {
        if (!lsSeen) {
          if (!decodeComponent(vp0, vn0)) return false;
          const id = intern(valPtr, valLen);
          if (id < 0) return false;
          setI(R_LSEL, id);
          lsSeen = true;
        }
      } else if (bytesAre(kp, kn, "resourceVersion")) {
        if (!rvSeen) {
          if (!decodeComponent(vp0, vn0)) return false;
          rvSeen = true;
          if (valLen == 0) setI(R_RV_CLASS, 3);
          else if (valLen == 1 && load<u8>(valPtr) == 0x30) setI(R_RV_CLASS, 1);
          else setI(R_RV_CLASS, 2);
          // in the scratch arena: decoded there, or inside the kept requestURI
          setI(R_RV_P, <i32>(valPtr - SCRATCH));
          setI(R_RV_L, <i32>valLen);
        }
      } else if (bytesAre(kp, kn, "resourceVersionMatch")) {
        if (!rvmSeen) {
          if (!decodeComponent(vp0, vn0)) return false;
          const id = intern(valPtr, valLen);
          if (id < 0) return false;
          setI(R_RVM, id);
          rvmSeen = true;
        }
      } else if (bytesAre(kp, kn, "limit")) {
        if (!decodeComponent(vp0, vn0)) return false;
        // Number.parseInt: only plain digits here (signs, spaces and the rest go to the JavaScript path)
        if (valLen > 0) {
          if (valLen > 9) return false;
          let x = 0;
          for (let k: u32 = 0; k < valLen; k++) {
            const d = <i32>load<u8>(valPtr + k) - 0x30;
            if (d < 0 || d > 9) return false;
            x = x * 10 + d;
          }
          if (limit == 0 && x > 0) limit = x;
        }
      } else if (bytesAre(kp, kn, "continue")) {
        if (!decodeComponent(vp0, vn0)) return false;
        if (valLen > 0) flags |= 1;
      } else if (bytesAre(kp, kn, "watch")) {
        if (!watchSeen) {
          if (!decodeComponent(vp0, vn0)) return false;
          if (!isFalseParam(valPtr, valLen)) flags |= 2;
          watchSeen = true;
        }
      } else if (bytesAre(kp, kn, "shardSelector")) {
        // a 1.36 sharded list (KEP-5866): its shard is part of the selector shape, read by the JavaScript path
        return false;
      } else if (bytesAre(kp, kn, "sendInitialEvents")) {
        if (!sieSeen) {
          if (!decodeComponent(vp0, vn0)) return false;
          if (!isFalseParam(valPtr, valLen)) flags |= 4;
          sieSeen = true;
        }
      }
    }
    start = amp + 1;
  }
  setI(R_LIMIT, limit);
  setI(R_FLAGS, flags);
  return true;
}
