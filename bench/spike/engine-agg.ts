// Issue 26 spike, variant A: the per-line aggregator in WebAssembly, beside the engine in the same module.
//
// The whole engine is re-exported unchanged; this file adds aggReset(), aggRecords(n) (aggregates the n records
// the last scan() wrote: call it right after each scan()), aggFinish() and the result getters. Same semantics as
// bench/spike/ts-agg.mjs, bit for bit (same hashes, same table layouts, same growth): keep the two in step.
//
// What it counts, from the accepted records (status 1) only:
// - dedup by auditID: a request counts once, at its terminal stage (ResponseComplete 2, Panic 3); a terminal
//   stage whose auditID is among the last RING_N terminal IDs remembered is a duplicate. SPIKE SIMPLIFICATION:
//   non-terminal stages (RequestReceived, ResponseStarted) are ignored (only counted in `nonTerminal`), so a
//   request logged without a terminal stage is not counted (ScanState holds it as pending and counts it at the
//   end). A missing auditID (ScanState names it with a unique synthetic id) is never a duplicate but takes a ring
//   slot, as the synthetic id does in ScanState.
// - per request: per-verb counts (dense by verb id); a group key (verb, user agent, user, resource, API group,
//   namespace present, field selector, label selector, rv class, limit > 0, code class) → count, first and last
//   received time; (group, received second) → count; received second → count.
//
// Memory: the engine allocates with its own bump pointer (heapTop, not exported) from __heap_base upwards, so
// this aggregator takes its tables from AGG_BASE (1 GiB) upwards, growing memory itself. The engine's heap must
// stay below AGG_BASE (it does by far: ~10 MB of regions, its intern table, and the interned bytes); the harness
// checks that every interned string it learns lies below aggBase(). An engine export of its heap end (or an
// alloc()) would remove this assumption.

export * from "../../src/decode/engine/assembly/engine";
import { outPtr, scratchPtr, REC_BYTES } from "../../src/decode/engine/assembly/engine";

// Record fields (i32 slots), copied from src/decode/engine/assembly/engine.ts: keep in step.
const R_STATUS = 0;
const R_STAGE = 3;
const R_VERB = 4;
const R_USER = 6;
const R_UA = 7;
const R_RESOURCE = 9;
const R_GROUP = 10;
const R_NS = 11;
const R_ID_P = 15;
const R_ID_L = 16;
const R_CODE = 19;
const R_RV_CLASS = 20;
const R_LIMIT = 24;
const R_FSEL = 26;
const R_LSEL = 27;
const O_RECEIVED = 128;

// ---- memory --------------------------------------------------------------------------------------------

const AGG_BASE: usize = 1 << 30;
let top: usize = AGG_BASE;

function alloc(bytes: usize): usize {
  const at = (top + 15) & ~(<usize>15);
  const end = at + bytes;
  const have = (<usize>memory.size()) << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xffff) >> 16);
    if (memory.grow(pages) < 0) unreachable();
  }
  top = end;
  return at;
}

function allocZero(bytes: usize): usize {
  const p = alloc(bytes);
  memory.fill(p, 0, bytes);
  return p;
}

export function aggBase(): usize {
  return AGG_BASE;
}

// ---- hashing (identical in ts-agg.mjs) -----------------------------------------------------------------

@inline function fmix(h: u32): u32 {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

@inline function step1(a: u32, w: u32): u32 {
  return (rotl<u32>(a, 5) ^ w) * 0x9e3779b1;
}
@inline function step2(b: u32, w: u32): u32 {
  return (rotl<u32>(b, 7) ^ w) * 0x85ebca77;
}

// The auditID's 64-bit hash, as two 32-bit lanes over little-endian 4-byte words (the last zero-padded).
// idH2 is forced odd: 0 marks an empty slot (63 bits of hash).
let idH1: u32 = 0;
let idH2: u32 = 0;
@inline function hashId(p: usize, n: u32): void {
  let a: u32 = 0x9e3779b9 ^ n;
  let b: u32 = 0x7f4a7c15 ^ n;
  let i: u32 = 0;
  while (i + 4 <= n) {
    const w = load<u32>(p + i);
    a = step1(a, w);
    b = step2(b, w);
    i += 4;
  }
  if (i < n) {
    const w = load<u32>(p + i) & ((<u32>1 << ((n - i) << 3)) - 1);
    a = step1(a, w);
    b = step2(b, w);
  }
  idH1 = fmix(a ^ rotl<u32>(b, 16));
  idH2 = fmix(b + a) | 1;
}

// ---- dedup: a ring of the last RING_N terminal IDs, and a set of them (linear probing) -------------------

const RING_N: u32 = 65536;
const SET_N: u32 = 131072;
const SET_MASK: u32 = SET_N - 1;
let RING: usize = 0; // (h1, h2) per slot; h2 == 0: empty
let SET: usize = 0; // (h1, h2) per slot; h2 == 0: empty; home h1 & SET_MASK
let ringPos: u32 = 0;

/** Removes the set's slot i (backward-shift deletion). */
function setDelete(i: u32): void {
  let j = i;
  for (;;) {
    j = (j + 1) & SET_MASK;
    const s = SET + ((<usize>j) << 3);
    if (load<u32>(s, 4) == 0) break;
    const k = load<u32>(s) & SET_MASK;
    // the entry at j stays when its home k is cyclically in (i, j]
    if (i <= j ? i < k && k <= j : i < k || k <= j) continue;
    store<u64>(SET + ((<usize>i) << 3), load<u64>(s));
    i = j;
  }
  store<u64>(SET + ((<usize>i) << 3), 0);
}

/** Forgets the ring's oldest ID (when there is one) and puts (h1, h2) in its place (h2 0: no ID). Returns true
 * when an ID was forgotten. */
function ringPush(h1: u32, h2: u32): bool {
  const r = RING + ((<usize>ringPos) << 3);
  const o2 = load<u32>(r, 4);
  let evicted = false;
  if (o2 != 0) {
    const o1 = load<u32>(r);
    let j = o1 & SET_MASK;
    for (;;) {
      const s = SET + ((<usize>j) << 3);
      const b = load<u32>(s, 4);
      if (b == 0) break; // not reached: a ring ID is in the set
      if (b == o2 && load<u32>(s) == o1) {
        setDelete(j);
        evicted = true;
        break;
      }
      j = (j + 1) & SET_MASK;
    }
  }
  store<u32>(r, h1);
  store<u32>(r, h2, 4);
  ringPos = (ringPos + 1) & (RING_N - 1);
  return evicted;
}

// ---- groups ----------------------------------------------------------------------------------------------

const KEY_WORDS: u32 = 8;
let GT: usize = 0; // slots (hash u32, gi + 1 u32); GSLOTS = 2 * capG
let GMASK: u32 = 0;
let capG: u32 = 0;
let nGroups: u32 = 0;
let GK: usize = 0; // keys, 8 i32 each
let GC: usize = 0; // counts u32
let GH: usize = 0; // key hashes u32
let GF: usize = 0; // first received f64
let GL: usize = 0; // last received f64

function groupsAlloc(cap: u32): void {
  capG = cap;
  GMASK = cap * 2 - 1;
  GT = allocZero((<usize>cap) * 2 * 8);
  GK = alloc((<usize>cap) * KEY_WORDS * 4);
  GC = alloc((<usize>cap) * 4);
  GH = alloc((<usize>cap) * 4);
  GF = alloc((<usize>cap) * 8);
  GL = alloc((<usize>cap) * 8);
}

function groupsGrow(): void {
  const oK = GK;
  const oC = GC;
  const oH = GH;
  const oF = GF;
  const oL = GL;
  const n = nGroups;
  groupsAlloc(capG * 2);
  memory.copy(GK, oK, (<usize>n) * KEY_WORDS * 4);
  memory.copy(GC, oC, (<usize>n) * 4);
  memory.copy(GH, oH, (<usize>n) * 4);
  memory.copy(GF, oF, (<usize>n) * 8);
  memory.copy(GL, oL, (<usize>n) * 8);
  for (let g: u32 = 0; g < n; g++) {
    const h = load<u32>(GH + ((<usize>g) << 2));
    let j = h & GMASK;
    while (load<u32>(GT + ((<usize>j) << 3), 4) != 0) j = (j + 1) & GMASK;
    store<u32>(GT + ((<usize>j) << 3), h);
    store<u32>(GT + ((<usize>j) << 3), g + 1, 4);
  }
}

// ---- (group, second) buckets and per-second totals -------------------------------------------------------

let BT: usize = 0; // slots (gi + 1, sec, count, 0) u32; gi + 1 == 0: empty
let BMASK: u32 = 0;
let nBuckets: u32 = 0;
let ST: usize = 0; // slots (sec, count) u32; count == 0: empty
let SMASK: u32 = 0;
let nSeconds: u32 = 0;
let lastSec: u32 = 0;
let lastSecSlot: i32 = -1;

@inline function bucketHome(g: u32, sec: u32): u32 {
  return fmix((g * 0x9e3779b1) ^ sec);
}

function bucketsGrow(): void {
  const old = BT;
  const oldN = BMASK + 1;
  const n = oldN * 2;
  BT = allocZero((<usize>n) << 4);
  BMASK = n - 1;
  for (let i: u32 = 0; i < oldN; i++) {
    const s = old + ((<usize>i) << 4);
    const g1 = load<u32>(s);
    if (g1 == 0) continue;
    let j = bucketHome(g1 - 1, load<u32>(s, 4)) & BMASK;
    while (load<u32>(BT + ((<usize>j) << 4)) != 0) j = (j + 1) & BMASK;
    memory.copy(BT + ((<usize>j) << 4), s, 16);
  }
}

function secondsGrow(): void {
  const old = ST;
  const oldN = SMASK + 1;
  const n = oldN * 2;
  ST = allocZero((<usize>n) << 3);
  SMASK = n - 1;
  for (let i: u32 = 0; i < oldN; i++) {
    const s = old + ((<usize>i) << 3);
    if (load<u32>(s, 4) == 0) continue;
    let j = fmix(load<u32>(s)) & SMASK;
    while (load<u32>(ST + ((<usize>j) << 3), 4) != 0) j = (j + 1) & SMASK;
    store<u64>(ST + ((<usize>j) << 3), load<u64>(s));
  }
  lastSecSlot = -1;
}

// ---- verbs -----------------------------------------------------------------------------------------------

let VC: usize = 0; // counts u32 by verb id
let capV: u32 = 0;

function verbsGrow(id: u32): void {
  let n = capV;
  while (n <= id) n *= 2;
  const v = allocZero((<usize>n) << 2);
  memory.copy(v, VC, (<usize>capV) << 2);
  VC = v;
  capV = n;
}

// ---- counters --------------------------------------------------------------------------------------------

let requests: u32 = 0;
let duplicates: u32 = 0;
let nonTerminal: u32 = 0;
let missingId: u32 = 0;
let untimed: u32 = 0;
let declined: u32 = 0;

export function aggReset(): void {
  top = AGG_BASE;
  RING = allocZero((<usize>RING_N) << 3);
  SET = allocZero((<usize>SET_N) << 3);
  ringPos = 0;
  nGroups = 0;
  groupsAlloc(512);
  BT = allocZero((<usize>65536) << 4);
  BMASK = 65535;
  nBuckets = 0;
  ST = allocZero((<usize>4096) << 3);
  SMASK = 4095;
  nSeconds = 0;
  lastSecSlot = -1;
  capV = 64;
  VC = allocZero((<usize>capV) << 2);
  requests = 0;
  duplicates = 0;
  nonTerminal = 0;
  missingId = 0;
  untimed = 0;
  declined = 0;
}

// ---- per line --------------------------------------------------------------------------------------------

/** Aggregates the n records the last scan() wrote. */
export function aggRecords(n: u32): void {
  const out = outPtr();
  const scratch = scratchPtr();
  for (let i: u32 = 0; i < n; i++) {
    const rec = out + (<usize>i) * REC_BYTES;
    if (load<i32>(rec, R_STATUS << 2) != 1) {
      declined++;
      continue;
    }
    const stage = load<i32>(rec, R_STAGE << 2);
    if (stage < 2) {
      nonTerminal++; // the spike's simplification: see the top of the file
      continue;
    }
    // dedup
    const idp = load<i32>(rec, R_ID_P << 2);
    if (idp < 0) {
      missingId++;
      ringPush(0, 0);
    } else {
      hashId(scratch + <usize>idp, <u32>load<i32>(rec, R_ID_L << 2));
      const h1 = idH1;
      const h2 = idH2;
      let j = h1 & SET_MASK;
      let dup = false;
      for (;;) {
        const s = SET + ((<usize>j) << 3);
        const b = load<u32>(s, 4);
        if (b == 0) break;
        if (b == h2 && load<u32>(s) == h1) {
          dup = true;
          break;
        }
        j = (j + 1) & SET_MASK;
      }
      if (dup) {
        duplicates++;
        continue;
      }
      if (ringPush(h1, h2)) {
        // the deletion may have emptied a slot before j: probe again
        j = h1 & SET_MASK;
        while (load<u32>(SET + ((<usize>j) << 3), 4) != 0) j = (j + 1) & SET_MASK;
      }
      store<u32>(SET + ((<usize>j) << 3), h1);
      store<u32>(SET + ((<usize>j) << 3), h2, 4);
    }
    // the request
    requests++;
    const verb = load<i32>(rec, R_VERB << 2);
    if (verb >= 0) {
      if (<u32>verb >= capV) verbsGrow(<u32>verb);
      const vp = VC + ((<usize>verb) << 2);
      store<u32>(vp, load<u32>(vp) + 1);
    }
    const code = load<i32>(rec, R_CODE << 2);
    const cc: u32 = code < 0 ? 0 : code >= 200 && code < 300 ? 1 : code >= 400 && code < 500 ? 2 : code >= 500 && code < 600 ? 3 : 4;
    const k0 = <u32>verb;
    const k1 = <u32>load<i32>(rec, R_UA << 2);
    const k2 = <u32>load<i32>(rec, R_USER << 2);
    const k3 = <u32>load<i32>(rec, R_RESOURCE << 2);
    const k4 = <u32>load<i32>(rec, R_GROUP << 2);
    const k5 = <u32>load<i32>(rec, R_FSEL << 2);
    const k6 = <u32>load<i32>(rec, R_LSEL << 2);
    const k7: u32 =
      (load<i32>(rec, R_NS << 2) >= 0 ? 1 : 0) |
      ((<u32>load<i32>(rec, R_RV_CLASS << 2) & 3) << 1) |
      (load<i32>(rec, R_LIMIT << 2) > 0 ? 8 : 0) |
      (cc << 4);
    let h: u32 = 0x2545f491;
    h = step1(h, k0);
    h = step1(h, k1);
    h = step1(h, k2);
    h = step1(h, k3);
    h = step1(h, k4);
    h = step1(h, k5);
    h = step1(h, k6);
    h = step1(h, k7);
    h = fmix(h);
    let j = h & GMASK;
    let g: u32 = 0;
    for (;;) {
      const s = GT + ((<usize>j) << 3);
      const g1 = load<u32>(s, 4);
      if (g1 == 0) {
        g = nGroups++;
        const kp = GK + (<usize>g) * (KEY_WORDS * 4);
        store<u32>(kp, k0, 0);
        store<u32>(kp, k1, 4);
        store<u32>(kp, k2, 8);
        store<u32>(kp, k3, 12);
        store<u32>(kp, k4, 16);
        store<u32>(kp, k5, 20);
        store<u32>(kp, k6, 24);
        store<u32>(kp, k7, 28);
        store<u32>(GC + ((<usize>g) << 2), 0);
        store<u32>(GH + ((<usize>g) << 2), h);
        store<f64>(GF + ((<usize>g) << 3), Infinity);
        store<f64>(GL + ((<usize>g) << 3), -Infinity);
        store<u32>(s, h);
        store<u32>(s, g + 1, 4);
        if (nGroups == capG) groupsGrow();
        break;
      }
      if (load<u32>(s) == h) {
        const kp = GK + (<usize>(g1 - 1)) * (KEY_WORDS * 4);
        if (
          load<u32>(kp, 0) == k0 &&
          load<u32>(kp, 4) == k1 &&
          load<u32>(kp, 8) == k2 &&
          load<u32>(kp, 12) == k3 &&
          load<u32>(kp, 16) == k4 &&
          load<u32>(kp, 20) == k5 &&
          load<u32>(kp, 24) == k6 &&
          load<u32>(kp, 28) == k7
        ) {
          g = g1 - 1;
          break;
        }
      }
      j = (j + 1) & GMASK;
    }
    const cp = GC + ((<usize>g) << 2);
    store<u32>(cp, load<u32>(cp) + 1);
    // times
    const t = load<f64>(rec, O_RECEIVED);
    if (!(t >= 0 && t < 4294967296000.0)) {
      untimed++;
      continue;
    }
    const fp = GF + ((<usize>g) << 3);
    if (t < load<f64>(fp)) store<f64>(fp, t);
    const lp = GL + ((<usize>g) << 3);
    if (t > load<f64>(lp)) store<f64>(lp, t);
    const sec = <u32>Math.floor(t / 1000);
    // (group, second)
    let b = bucketHome(g, sec) & BMASK;
    for (;;) {
      const s = BT + ((<usize>b) << 4);
      const g1 = load<u32>(s);
      if (g1 == 0) {
        store<u32>(s, g + 1);
        store<u32>(s, sec, 4);
        store<u32>(s, 1, 8);
        nBuckets++;
        if (nBuckets * 2 > BMASK + 1) bucketsGrow();
        break;
      }
      if (g1 == g + 1 && load<u32>(s, 4) == sec) {
        store<u32>(s, load<u32>(s, 8) + 1, 8);
        break;
      }
      b = (b + 1) & BMASK;
    }
    // second
    if (lastSecSlot >= 0 && sec == lastSec) {
      const s = ST + ((<usize>lastSecSlot) << 3);
      store<u32>(s, load<u32>(s, 4) + 1, 4);
    } else {
      let q = fmix(sec) & SMASK;
      for (;;) {
        const s = ST + ((<usize>q) << 3);
        const c = load<u32>(s, 4);
        if (c == 0) {
          store<u32>(s, sec);
          store<u32>(s, 1, 4);
          nSeconds++;
          if (nSeconds * 2 > SMASK + 1) {
            secondsGrow();
            q = fmix(sec) & SMASK;
            while (load<u32>(ST + ((<usize>q) << 3)) != sec || load<u32>(ST + ((<usize>q) << 3), 4) == 0) q = (q + 1) & SMASK;
          }
          break;
        }
        if (load<u32>(s) == sec) {
          store<u32>(s, c + 1, 4);
          break;
        }
        q = (q + 1) & SMASK;
      }
      lastSec = sec;
      lastSecSlot = <i32>q;
    }
  }
}

// ---- results ---------------------------------------------------------------------------------------------

const CS_N = 10;
const cs = memory.data(CS_N * 4);

/** Adds e to the pair of checksum words k (sum), k + 1 (xor of a mix). */
@inline function csAdd(k: i32, e: u32): void {
  const p = cs + (<usize>k << 2);
  store<u32>(p, load<u32>(p) + e);
  store<u32>(p, load<u32>(p, 4) ^ fmix(e + 0x6b43a9b5), 4);
}

/** Fills the checksums (order-independent: a sum and a xor of per-entry mixes):
 * 0/1 groups (key hash, count), 2/3 group times (first and last received, whole µs), 4/5 (group, second, count),
 * 6/7 (second, count), 8/9 (verb id, count). */
export function aggFinish(): void {
  memory.fill(cs, 0, CS_N * 4);
  for (let g: u32 = 0; g < nGroups; g++) {
    const h = load<u32>(GH + ((<usize>g) << 2));
    const c = load<u32>(GC + ((<usize>g) << 2));
    csAdd(0, fmix(h ^ (c * 0x9e3779b1)));
    const f = load<f64>(GF + ((<usize>g) << 3));
    const l = load<f64>(GL + ((<usize>g) << 3));
    let f0: u32 = 0;
    let f1: u32 = 0;
    let l0: u32 = 0;
    let l1: u32 = 0;
    if (f <= l) {
      const fu = <u64>Math.floor(f * 1000);
      const lu = <u64>Math.floor(l * 1000);
      f0 = <u32>fu;
      f1 = <u32>(fu >> 32);
      l0 = <u32>lu;
      l1 = <u32>(lu >> 32);
    }
    csAdd(2, fmix(h ^ fmix(f0 ^ fmix(f1 ^ fmix(l0 ^ fmix(l1))))));
  }
  for (let i: u32 = 0; i <= BMASK; i++) {
    const s = BT + ((<usize>i) << 4);
    const g1 = load<u32>(s);
    if (g1 == 0) continue;
    const h = load<u32>(GH + ((<usize>(g1 - 1)) << 2));
    csAdd(4, fmix(fmix(h ^ load<u32>(s, 4)) ^ (load<u32>(s, 8) * 0x85ebca77)));
  }
  for (let i: u32 = 0; i <= SMASK; i++) {
    const s = ST + ((<usize>i) << 3);
    const c = load<u32>(s, 4);
    if (c == 0) continue;
    csAdd(6, fmix(fmix(load<u32>(s) ^ 0x27d4eb2f) ^ (c * 0x9e3779b1)));
  }
  for (let v: u32 = 0; v < capV; v++) {
    const c = load<u32>(VC + ((<usize>v) << 2));
    if (c == 0) continue;
    csAdd(8, fmix(fmix(v) ^ (c * 0x9e3779b1)));
  }
}

/** A checksum word aggFinish() filled (k in 0..9). */
export function aggChecksum(k: i32): u32 {
  return load<u32>(cs + (<usize>k << 2));
}

/** 0 groups, 1 requests, 2 duplicates, 3 non-terminal stages ignored, 4 missing auditIDs, 5 untimed requests,
 * 6 (group, second) buckets, 7 seconds, 8 declined records, 9 verb id capacity. */
export function aggCount(k: i32): f64 {
  if (k == 0) return <f64>nGroups;
  if (k == 1) return <f64>requests;
  if (k == 2) return <f64>duplicates;
  if (k == 3) return <f64>nonTerminal;
  if (k == 4) return <f64>missingId;
  if (k == 5) return <f64>untimed;
  if (k == 6) return <f64>nBuckets;
  if (k == 7) return <f64>nSeconds;
  if (k == 8) return <f64>declined;
  if (k == 9) return <f64>capV;
  return -1;
}

export function aggVerbCount(id: u32): u32 {
  return id < capV ? load<u32>(VC + ((<usize>id) << 2)) : 0;
}
