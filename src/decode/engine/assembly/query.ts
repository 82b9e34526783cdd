/*! A request URI's query, as parseRequestQuery (src/decode/request-uri.ts) reads it: the selectors and
 * resourceVersionMatch interned, resourceVersion classed and kept, limit, continue, watch and sendInitialEvents;
 * what the JavaScript path must read (a legacy /watch/ path, %-escapes in the path, odd limits) declines the line. */

import { SCRATCH, intern } from './regions';
import { R_RV_CLASS, R_RV_P, R_RV_L, R_RVM, R_LIMIT, R_FLAGS, R_FSEL, R_LSEL, setI } from './record';
import { valPtr, valLen, decodeComponent, findByte, hasQueryEscape, bytesAre } from './bytes';

/** "false" in any case, or "0": a false boolean parameter (apimachinery's Convert_Slice_string_To_bool). */
function isFalseParam(p: usize, n: u32): bool {
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
