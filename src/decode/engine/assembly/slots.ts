// The aggregator's per-line counting (issue 26, step 2), in the engine's module so that it reads the records
// where the engine wrote them.
//
// The host (ScanState) decides per record, in line order, whether a request is counted now (dedup, the segment's
// timing and the head window stay in TypeScript for now) and marks the record (R_MARK). countRecords() then folds
// each marked record into
//   a slot: the request's key of interned ids (what every per-request rule of the aggregator reads), with its
//     count, first and last received time, returned items, the largest complete list, latency count and extremes,
//     and its sample URI (the earliest received; on a tie the smallest in UTF-16 order, as JavaScript compares);
//   a client: (user agent, user);
//   pair counts (id, kind, key): per-bucket counts of the segment's requests, lists and watch ends, of each
//     client's requests and lists (at the client series' width), of each read slot's requests, and each read slot's
//     latency buckets (the bucket found in a table of edges the host computed with its own Math.log, so that both
//     sides bucket alike to the last bit).
// The host folds slots, clients and pairs into its aggregates once per slot (src/aggregate/slot-fold.ts,
// through ScanState.foldSlots), when a segment ends or a table fills, and resets them.
//
// Memory comes from the engine's allocator (passed in as `alloc` results by init); raw loads and stores only.

// Record fields read here (keep in step with record.ts and src/decode/engine/engine.ts).
const R_STATUS = 0; // 2: kube-apiserver's httplog line (its own log): evidence of its kind, keyed by flow schema
const R_VERB = 4;
const R_USER = 6;
const R_UA = 7;
const R_NODE = 8;
const R_RESOURCE = 9;
const R_GROUP = 10;
const R_NS = 11;
const R_URI_P = 17;
const R_URI_L = 18;
const R_CODE = 19;
const R_RV_CLASS = 20;
const R_RVM = 23;
const R_LIMIT = 24;
const R_FLAGS = 25;
const R_FSEL = 26;
const R_LSEL = 27;
const R_RETURNED = 29;
const R_ID_P = 15; // scratch offset of the auditID, -1: none (the host names the request)
const R_ID_L = 16;
export const R_MARK = 30; // set by the host: 0 not counted here, else M_* bits
const R_SRCIP = 40;
const R_APF_PL = 41;
const R_APF_FS = 42;
const O_RECEIVED = 128;
const O_STAGE_T = 136;
const O_REMAINING = 144;

// Mark bits.
const M_COUNT: i32 = 1;
const M_READ: i32 = 2; // a read of a resource (list, get, watch; no subresource): a read group's request
const M_LISTING: i32 = 4; // a list or a watch-list
const M_WATCH_END: i32 = 8; // the final stage of a watch

// Pair kinds.
const P_ALL: u32 = 0;
const P_LISTS: u32 = 1;
const P_WATCH_END: u32 = 2;
const P_CLIENT: u32 = 3;
const P_CLIENT_LISTS: u32 = 4;
const P_READ: u32 = 5;
const P_LATENCY: u32 = 6;
// The copy fingerprint's cells (src/aggregate/fingerprint.ts), per second of the received time: requests, and the
// sums mod 2^32 of their auditIDs' two hashes (a pair's count adds any u32, wrapping as the host's >>> 0 does).
const P_FP_N: u32 = 7;
const P_FP_H1: u32 = 8;
const P_FP_H2: u32 = 9;
// The apiserver log's reads: a read slot's source addresses (key: the address's id), a pair each
const P_SRCIP: u32 = 10;

const KEY_FIELDS: u32 = 18;
export const SLOT_BYTES: u32 = 176;
const S_COUNT = 72;
const S_RET_N = 76;
const S_FIRST = 80;
const S_LAST = 88;
const S_RET_SUM = 96;
const S_RET_MAX = 104;
const S_FULL = 112;
const S_LAT_N = 120;
const S_CLIENT = 124;
const S_LAT_MIN = 128;
const S_LAT_MAX = 136;
const S_SAMPLE_MS = 144;
const S_SAMPLE_P = 152;
const S_SAMPLE_L = 156;
const S_SAMPLE_CAP = 160;
const S_HASH = 164;

const PAIR_BYTES: u32 = 24;

let SLOTS: usize = 0;
let SLOT_CAP: u32 = 0;
let slotCount: u32 = 0;
let SLOT_INDEX: usize = 0; // u32 slot ids, 0xffffffff empty; 2 × SLOT_CAP entries
let SLOT_INDEX_MASK: u32 = 0;
let CLIENTS: usize = 0; // (ua, user) i32 pairs
let clientCount: u32 = 0;
let CLIENT_INDEX: usize = 0;
let PAIRS: usize = 0;
let PAIR_MASK: u32 = 0;
let pairCount: u32 = 0;
let PAIR_LIMIT: u32 = 0;
let SAMPLES: usize = 0; // sample URIs
let SAMPLE_CAP: u32 = 0;
let samplePos: u32 = 0;
let LAT: usize = 0; // f64 edges: LAT[j] = the least latency (ms) in bucket 100 + j, j ≥ 0
let LAT_N: u32 = 0;
let bucketMs: f64 = 1000;
let clientMs: f64 = 60000;

/** Lays out the tables in [base, base + bytes) as slotsBytes() sized them. */
export function slotsLayout(maxSlots: u32, pairCap: u32, sampleCap: u32, latN: u32): usize {
  // sizes: slots, slot index (2×), clients (8 B), client index (2×), pairs, samples, latency edges
  return <usize>maxSlots * SLOT_BYTES + <usize>maxSlots * 8 + <usize>maxSlots * 8 + <usize>maxSlots * 8 + <usize>pairCap * PAIR_BYTES + <usize>sampleCap + <usize>latN * 8 + 64;
}

export function slotsInit(base: usize, maxSlots: u32, pairCap: u32, sampleCap: u32, latN: u32, bucket: f64, client: f64): void {
  let p = (base + 15) & ~(<usize>15);
  SLOTS = p;
  SLOT_CAP = maxSlots;
  p += <usize>maxSlots * SLOT_BYTES;
  SLOT_INDEX = p;
  SLOT_INDEX_MASK = maxSlots * 2 - 1;
  p += <usize>maxSlots * 8;
  CLIENTS = p;
  p += <usize>maxSlots * 8;
  CLIENT_INDEX = p;
  p += <usize>maxSlots * 8;
  PAIRS = p;
  PAIR_MASK = pairCap - 1;
  PAIR_LIMIT = (pairCap >> 1) + (pairCap >> 2); // 75% full: the host folds
  p += <usize>pairCap * PAIR_BYTES;
  SAMPLES = p;
  SAMPLE_CAP = sampleCap;
  p += <usize>sampleCap;
  LAT = (p + 7) & ~(<usize>7);
  LAT_N = latN;
  bucketMs = bucket;
  clientMs = client;
  slotsReset();
}

let FP_ON = false;

/** Whether counted requests go into the copy fingerprint too (a scan of two inputs or more). */
export function slotsFingerprint(on: bool): void {
  FP_ON = on;
}
export function fingerprintOn(): bool {
  return FP_ON;
}

let FP_H1: u32 = 0;
let FP_H2: u32 = 0;
/** fingerprint.ts hash2() of the ID bytes [p, p+n), into FP_H1 and FP_H2: for ASCII IDs only (hash2 reads
 * UTF-16 code units, which are then the bytes; classify() leaves a record with another ID to the host). */
function hash2(p: usize, n: u32): void {
  let a: u32 = 0x9e3779b9;
  let b: u32 = 0x85ebca6b;
  for (let i: u32 = 0; i < n; i++) {
    const c = <u32>load<u8>(p + <usize>i);
    a = (a ^ c) * 0x9e3779b1;
    b = (b ^ c) * 0x5bd1e995;
  }
  a = ((a ^ (a >>> 16)) * 0x85ebca6b) ^ ((b ^ (b >>> 13)) * 0xc2b2ae35);
  b = ((b ^ (b >>> 16)) * 0x85ebca6b) ^ ((a ^ (a >>> 13)) * 0xc2b2ae35);
  FP_H1 = a;
  FP_H2 = b;
}

/** true when an ID reads as the names the host gives requests without one (aggregate/state-types.ts NO_ID, "(no auditID "),
 * which countRequest() does not fingerprint. */
function namedByHost(p: usize, n: u32): bool {
  const NO_ID = '(no auditID ';
  if (n < <u32>NO_ID.length) return false;
  for (let i = 0; i < NO_ID.length; i++) if (<i32>load<u8>(p + <usize>i) != NO_ID.charCodeAt(i)) return false;
  return true;
}

/** The hashes of an ID, for the tests to hold them to fingerprint.ts (fpHash1, fpHash2 after it). */
export function fpHash(p: usize, n: u32): void {
  hash2(p, n);
}
export function fpHash1(): u32 {
  return FP_H1;
}
export function fpHash2(): u32 {
  return FP_H2;
}

/** The last latency edge: a latency at or past it is counted by the host. */
export function latencyMax(): f64 {
  return LAT_N == 0 ? -Infinity : load<f64>(LAT + (<usize>(LAT_N - 1)) * 8);
}

export function latencyEdgesPtr(): usize {
  return LAT;
}

/** Forgets every slot, client and pair (after the host folded them). */
export function slotsReset(): void {
  slotCount = 0;
  clientCount = 0;
  pairCount = 0;
  samplePos = 0;
  memory.fill(SLOT_INDEX, 0xff, <usize>(SLOT_INDEX_MASK + 1) * 4);
  memory.fill(CLIENT_INDEX, 0xff, <usize>(SLOT_INDEX_MASK + 1) * 4);
  for (let i: u32 = 0; i <= PAIR_MASK; i++) store<u32>(PAIRS + (<usize>i) * PAIR_BYTES, 0xffffffff, 4);
}

export function slotsPtr(): usize {
  return SLOTS;
}
export function slotsLen(): u32 {
  return slotCount;
}
export function clientsPtr(): usize {
  return CLIENTS;
}
export function clientsLen(): u32 {
  return clientCount;
}
export function pairsPtr(): usize {
  return PAIRS;
}
export function samplesPtr(): usize {
  return SAMPLES;
}

/** Moves the pairs to the front of their table (id, kind, key f64, count) and returns how many: the host reads
 * them, then calls slotsReset(). */
export function pairsCompact(): u32 {
  let n: u32 = 0;
  for (let i: u32 = 0; i <= PAIR_MASK; i++) {
    const s = PAIRS + (<usize>i) * PAIR_BYTES;
    if (load<u32>(s, 4) == 0xffffffff) continue;
    if (n != i) memory.copy(PAIRS + (<usize>n) * PAIR_BYTES, s, PAIR_BYTES);
    n++;
  }
  return n;
}

@inline function mix(h: u64, v: i32): u64 {
  h = (h ^ <u64>(<u32>v)) * 0xff51afd7ed558ccd;
  return h ^ (h >> 29);
}

/** The slot of the key in KEY (KEY_FIELDS i32), created when new; 0xffffffff when the table is full. */
const KEY = memory.data(80);
function slotOf(): u32 {
  let h: u64 = 0x9e3779b97f4a7c15;
  for (let i: u32 = 0; i < KEY_FIELDS; i++) h = mix(h, load<i32>(KEY + (<usize>i) * 4));
  const h32 = <u32>(h ^ (h >> 32));
  let j = h32 & SLOT_INDEX_MASK;
  for (;;) {
    const id = load<u32>(SLOT_INDEX + (<usize>j) * 4);
    if (id == 0xffffffff) break;
    const s = SLOTS + (<usize>id) * SLOT_BYTES;
    if (load<u32>(s, S_HASH) == h32 && memory.compare(s, KEY, KEY_FIELDS * 4) == 0) return id;
    j = (j + 1) & SLOT_INDEX_MASK;
  }
  if (slotCount >= SLOT_CAP) return 0xffffffff;
  const id = slotCount++;
  store<u32>(SLOT_INDEX + (<usize>j) * 4, id);
  const s = SLOTS + (<usize>id) * SLOT_BYTES;
  memory.copy(s, KEY, KEY_FIELDS * 4);
  store<u32>(s, 0, S_COUNT);
  store<u32>(s, 0, S_RET_N);
  store<f64>(s, Infinity, S_FIRST);
  store<f64>(s, -Infinity, S_LAST);
  store<f64>(s, 0, S_RET_SUM);
  store<f64>(s, 0, S_RET_MAX);
  store<f64>(s, -1, S_FULL);
  store<u32>(s, 0, S_LAT_N);
  store<u32>(s, 0xffffffff, S_CLIENT);
  store<f64>(s, Infinity, S_LAT_MIN);
  store<f64>(s, 0, S_LAT_MAX);
  store<f64>(s, Infinity, S_SAMPLE_MS);
  store<u32>(s, 0, S_SAMPLE_P);
  store<u32>(s, 0, S_SAMPLE_L);
  store<u32>(s, 0, S_SAMPLE_CAP);
  store<u32>(s, h32, S_HASH);
  return id;
}

/** The client (user agent, user) id; 0xffffffff when full (cannot happen: clients ≤ slots). */
function clientOf(ua: i32, user: i32): u32 {
  const h32 = <u32>mix(mix(0x9e3779b97f4a7c15, ua), user);
  let j = h32 & SLOT_INDEX_MASK;
  for (;;) {
    const id = load<u32>(CLIENT_INDEX + (<usize>j) * 4);
    if (id == 0xffffffff) break;
    const c = CLIENTS + (<usize>id) * 8;
    if (load<i32>(c) == ua && load<i32>(c, 4) == user) return id;
    j = (j + 1) & SLOT_INDEX_MASK;
  }
  const id = clientCount++;
  store<u32>(CLIENT_INDEX + (<usize>j) * 4, id);
  const c = CLIENTS + (<usize>id) * 8;
  store<i32>(c, ua);
  store<i32>(c, user, 4);
  return id;
}

/** Adds n to the pair (id, kind, key). */
function pairAddN(id: u32, kind: u32, key: f64, n: u32): void {
  const kb = reinterpret<u64>(key);
  let h: u64 = (kb ^ ((<u64>id << 3) | <u64>kind)) * 0x9e3779b97f4a7c15;
  h ^= h >> 31;
  let j = <u32>h & PAIR_MASK;
  for (;;) {
    const s = PAIRS + (<usize>j) * PAIR_BYTES;
    const k = load<u32>(s, 4);
    if (k == 0xffffffff) {
      store<u32>(s, id);
      store<u32>(s, kind, 4);
      store<f64>(s, key, 8);
      store<u32>(s, n, 16);
      pairCount++;
      return;
    }
    if (k == kind && load<u32>(s) == id && reinterpret<u64>(load<f64>(s, 8)) == kb) {
      store<u32>(s, load<u32>(s, 16) + n, 16);
      return;
    }
    j = (j + 1) & PAIR_MASK;
  }
}

/** Adds one to the pair (id, kind, key). */
@inline function pairAdd(id: u32, kind: u32, key: f64): void {
  pairAddN(id, kind, key, 1);
}

/** The latency bucket of `v` ≥ 0 ms (src/aggregate/latency.ts latencyBucket): 0.1 ms wide below 10 ms, then
 * found among the host's edges. */
function latencyBucket(v: f64): f64 {
  if (!(v > 0)) return 0;
  if (v < 10) return Math.floor(v * 10 + 1e-9);
  // the largest j with LAT[j] <= v (LAT[0] = 10)
  let lo: u32 = 0;
  let hi: u32 = LAT_N;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (load<f64>(LAT + (<usize>mid) * 8) <= v) lo = mid;
    else hi = mid;
  }
  return <f64>(100 + lo);
}

/** The next code point of the UTF-8 at [p, e), as a key that orders as JavaScript's UTF-16 comparison does:
 * below U+D800 itself, then the supplementary planes (their surrogates), then U+E000..U+FFFF. Writes the
 * sequence's length to SEQ. */
let seqLen: u32 = 0;
function utf16Key(p: usize, e: usize): u32 {
  const c = <u32>load<u8>(p);
  if (c < 0x80 || p + 1 >= e) {
    seqLen = 1;
    return c;
  }
  let cp: u32;
  if (c < 0xe0) {
    cp = ((c & 0x1f) << 6) | (<u32>load<u8>(p + 1) & 0x3f);
    seqLen = 2;
  } else if (c < 0xf0) {
    cp = ((c & 0x0f) << 12) | ((<u32>load<u8>(p + 1) & 0x3f) << 6) | (<u32>load<u8>(p + 2) & 0x3f);
    seqLen = 3;
  } else {
    cp = ((c & 0x07) << 18) | ((<u32>load<u8>(p + 1) & 0x3f) << 12) | ((<u32>load<u8>(p + 2) & 0x3f) << 6) | (<u32>load<u8>(p + 3) & 0x3f);
    seqLen = 4;
  }
  if (cp < 0xd800) return cp;
  if (cp >= 0x10000) return 0xd800 + (cp - 0x10000);
  return cp + 0x100000;
}

/** a < b in UTF-16 code unit order (JavaScript's <), for valid UTF-8 a and b. */
function lessUtf16(a: usize, an: u32, b: usize, bn: u32): bool {
  const ae = a + an;
  const be = b + bn;
  while (a < ae && b < be) {
    const ca = load<u8>(a);
    const cb = load<u8>(b);
    if (ca < 0x80 && cb < 0x80) {
      if (ca != cb) return ca < cb;
      a++;
      b++;
      continue;
    }
    const ka = utf16Key(a, ae);
    a += seqLen;
    const kb = utf16Key(b, be);
    b += seqLen;
    if (ka != kb) return ka < kb;
  }
  return a >= ae && b < be;
}

/** Copies the record's URI into the slot's sample, growing it in the sample area; false when the area is full
 * (the host folds and counts the record again). */
function setSample(s: usize, at: f64, u: usize, n: u32): bool {
  if (n > load<u32>(s, S_SAMPLE_CAP)) {
    if (samplePos + n > SAMPLE_CAP) return false;
    store<u32>(s, samplePos, S_SAMPLE_P);
    store<u32>(s, n, S_SAMPLE_CAP);
    samplePos += n;
  }
  memory.copy(SAMPLES + <usize>load<u32>(s, S_SAMPLE_P), u, n);
  store<u32>(s, n, S_SAMPLE_L);
  store<f64>(s, at, S_SAMPLE_MS);
  return true;
}

/** Counts the marked records among records [from, n) of the engine's output (`recBytes` each, strings in
 * `scratch`). Returns the index of the first record not counted: n when all were, less when a table filled (the
 * host folds, resets, and calls again from there). */
export function countRecords(out: usize, n: u32, recBytes: u32, scratch: usize, from: u32): u32 {
  for (let i = from; i < n; i++) {
    const r = out + (<usize>i) * recBytes;
    const mark = load<i32>(r + R_MARK * 4);
    if (mark == 0) continue;
    if (pairCount >= PAIR_LIMIT) return i;
    const read = (mark & M_READ) != 0;
    store<i32>(KEY, mark & (M_READ | M_LISTING | M_WATCH_END));
    store<i32>(KEY + 4, load<i32>(r + R_VERB * 4));
    store<i32>(KEY + 8, load<i32>(r + R_UA * 4));
    store<i32>(KEY + 12, load<i32>(r + R_USER * 4));
    store<i32>(KEY + 16, load<i32>(r + R_NODE * 4));
    if (read) {
      store<i32>(KEY + 20, load<i32>(r + R_RESOURCE * 4));
      store<i32>(KEY + 24, load<i32>(r + R_GROUP * 4));
      store<i32>(KEY + 28, load<i32>(r + R_NS * 4));
      store<i32>(KEY + 32, load<i32>(r + R_FSEL * 4));
      store<i32>(KEY + 36, load<i32>(r + R_LSEL * 4));
      const rvc = load<i32>(r + R_RV_CLASS * 4);
      store<i32>(KEY + 40, rvc == 3 ? 0 : rvc); // present and empty classifies as absent (signatureOf)
      store<i32>(KEY + 44, load<i32>(r + R_RVM * 4));
      store<i32>(KEY + 48, (load<i32>(r + R_LIMIT * 4) > 0 ? 8 : 0) | (load<i32>(r + R_FLAGS * 4) & 7));
      store<i32>(KEY + 52, load<i32>(r + R_CODE * 4));
      // the apiserver log's read: its group is keyed by flow schema too (read-groups.ts groupFor); its priority
      // level and source address are what its group learns of it (LogEvidence)
      if (load<i32>(r) == 2) {
        store<i32>(KEY + 56, 1);
        store<i32>(KEY + 60, load<i32>(r + R_APF_FS * 4));
        store<i32>(KEY + 64, load<i32>(r + R_APF_PL * 4));
        store<i32>(KEY + 68, 0);
      } else {
        store<i32>(KEY + 56, 0);
        store<i32>(KEY + 60, -1);
        store<i32>(KEY + 64, -1);
        store<i32>(KEY + 68, -1);
      }
    } else {
      memory.fill(KEY + 20, 0, 52);
    }
    const id = slotOf();
    if (id == 0xffffffff) return i;
    const s = SLOTS + (<usize>id) * SLOT_BYTES;
    const at = load<f64>(r, O_RECEIVED);
    const stageT = load<f64>(r, O_STAGE_T);
    if (read) {
      const u = scratch + <usize>load<i32>(r + R_URI_P * 4);
      const ul = <u32>load<i32>(r + R_URI_L * 4);
      const sm = load<f64>(s, S_SAMPLE_MS);
      if (at < sm || (at == sm && lessUtf16(u, ul, SAMPLES + <usize>load<u32>(s, S_SAMPLE_P), load<u32>(s, S_SAMPLE_L)))) {
        if (!setSample(s, at, u, ul)) return i;
      }
    }
    let client = load<u32>(s, S_CLIENT);
    if (client == 0xffffffff) {
      client = clientOf(load<i32>(KEY + 8), load<i32>(KEY + 12));
      store<u32>(s, client, S_CLIENT);
    }
    store<u32>(s, load<u32>(s, S_COUNT) + 1, S_COUNT);
    if (at < load<f64>(s, S_FIRST)) store<f64>(s, at, S_FIRST);
    if (at > load<f64>(s, S_LAST)) store<f64>(s, at, S_LAST);
    const b = Math.floor(at / bucketMs);
    const cb = Math.floor(at / clientMs);
    pairAdd(0, P_ALL, b);
    pairAdd(client, P_CLIENT, cb);
    if ((mark & M_LISTING) != 0) {
      pairAdd(0, P_LISTS, b);
      pairAdd(client, P_CLIENT_LISTS, cb);
    }
    if ((mark & M_WATCH_END) != 0) pairAdd(0, P_WATCH_END, Math.floor(stageT / bucketMs));
    if (FP_ON) {
      // (the host names a request without an auditID: not fingerprinted, as countRequest() leaves it out)
      const idp = load<i32>(r + R_ID_P * 4);
      const idl = <u32>load<i32>(r + R_ID_L * 4);
      if (idp >= 0 && !namedByHost(scratch + <usize>idp, idl)) {
        hash2(scratch + <usize>idp, idl);
        const sec = Math.floor(at / 1000);
        pairAddN(0, P_FP_N, sec, 1);
        pairAddN(0, P_FP_H1, sec, FP_H1);
        pairAddN(0, P_FP_H2, sec, FP_H2);
      }
    }
    if (!read) continue;
    pairAdd(id, P_READ, b);
    if (load<i32>(r) == 2) {
      const src = load<i32>(r + R_SRCIP * 4);
      if (src >= 0) pairAdd(id, P_SRCIP, <f64>src);
    }
    const returned = load<i32>(r + R_RETURNED * 4);
    if (returned >= 0) {
      const rf = <f64>returned;
      store<u32>(s, load<u32>(s, S_RET_N) + 1, S_RET_N);
      store<f64>(s, load<f64>(s, S_RET_SUM) + rf, S_RET_SUM);
      if (rf > load<f64>(s, S_RET_MAX)) store<f64>(s, rf, S_RET_MAX);
      // a complete list says how many objects there are (ScanState noteFullList; the host checks what the
      // slot's key decides: a list, no selector, cluster scope, no continue)
      const remaining = load<f64>(r, O_REMAINING);
      const limit = load<i32>(r + R_LIMIT * 4);
      if (limit == 0 || !isNaN(remaining) || returned < limit) {
        const total = rf + (isNaN(remaining) ? 0 : remaining);
        if (total > load<f64>(s, S_FULL)) store<f64>(s, total, S_FULL);
      }
    }
    const d = stageT - at;
    const v = d > 0 ? d : 0;
    pairAdd(id, P_LATENCY, latencyBucket(v));
    store<u32>(s, load<u32>(s, S_LAT_N) + 1, S_LAT_N);
    if (v < load<f64>(s, S_LAT_MIN)) store<f64>(s, v, S_LAT_MIN);
    if (v > load<f64>(s, S_LAT_MAX)) store<f64>(s, v, S_LAT_MAX);
  }
  return n;
}
