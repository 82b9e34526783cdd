/*! The module's memory regions, laid out once by the host (init), and the string table every
 * stage interns into (intern: bytes to an id, new ids listed for the host to decode). */

import { bytesEqual, grow, hashBytes, heapReset } from './mem';
import { BODY_DEPTH } from './objects';
import { latencyEdgesPtr, slotsInit, slotsLayout } from './slots';

// ---- regions (set by init) ----------------------------------------------------------------------------

export let IN: usize = 0; // input bytes, IN_CAP + 16 of padding for SIMD loads
export let IN_CAP: u32 = 0;
export let OUT: usize = 0; // line records, REC_BYTES each
export let OUT_CAP: u32 = 0; // records
export let SCRATCH: usize = 0; // unescaped one-off strings, per call
export let SCRATCH_CAP: u32 = 0;
export let NEWS: usize = 0; // new interned strings of this call: (id, ptr, len) u32 triples
export let NEWS_CAP: u32 = 0;
export let TABLE: usize = 0; // intern hash table: slots of (hash u32, id i32, ptr u32, len u32)
export let TABLE_MASK: u32 = 0;
export let ARENA: usize = 0; // interned bytes
export let ARENA_END: usize = 0;
export let ARENA_CAP_END: usize = 0;
export let STACK: usize = 0; // the open containers of skipBody(), a byte each
export let STRINGS: u32 = 0; // interned so far
export let MAX_STRINGS: u32 = 1 << 20;
export let MAX_INTERN_LEN: u32 = 4096;

export let scratchPos: u32 = 0;
export let newsCount: u32 = 0;

export const REC_BYTES: u32 = 176;

// Record fields (i32 slots; times are f64 at byte offsets 128 and 136, remainingItemCount an f64 at 144).
export const R_STATUS = 0; // 0 declined, 1 audit event, 2 the apiserver log's httplog line (readHttplog)
export const R_START = 1; // line start (byte offset in the input region)
export const R_END = 2; // line end, without \r
export const R_STAGE = 3; // 0 RequestReceived 1 ResponseStarted 2 ResponseComplete 3 Panic
export const R_VERB = 4;
export const R_LEVEL = 5; // -1: absent
export const R_USER = 6; // -1: absent
export const R_UA = 7; // -1: absent
export const R_NODE = 8; // user.extra node-name, -1: none
export const R_RESOURCE = 9; // -1: absent (objectRef, or its field, missing)
export const R_GROUP = 10;
export const R_NS = 11;
export const R_SUB = 12;
export const R_NAME_P = 13; // scratch offset, -1: absent
export const R_NAME_L = 14;
export const R_ID_P = 15; // -1: no auditID (the host names it)
export const R_ID_L = 16;
export const R_URI_P = 17;
export const R_URI_L = 18;
export const R_CODE = 19; // -1: none
export const R_RV_CLASS = 20; // 0 absent, 1 "0", 2 another value, 3 present and empty
export const R_RV_P = 21;
export const R_RV_L = 22;
export const R_RVM = 23; // -1: absent
export const R_LIMIT = 24; // 0: absent or not positive
export const R_FLAGS = 25; // 1 continue, 2 watch, 4 sendInitialEvents
export const R_FSEL = 26; // -1: absent
export const R_LSEL = 27; // -1: absent
export const R_NL = 28; // the line's \n (its raw end)
export const R_RETURNED = 29; // len(responseObject.items), -1: none (no body, or items is not an array)
export const O_RECEIVED = 128; // f64, NaN: absent
export const O_STAGE_T = 136; // f64
export const O_REMAINING = 144; // f64, responseObject.metadata.remainingItemCount, NaN: none

// ---- setup ---------------------------------------------------------------------------------------------


/** Lays out memory: `inCap` input bytes per call. Returns the input region's address. */
export function init(inCap: u32, maxStrings: u32, maxInternLen: u32): usize {
  heapReset();
  IN_CAP = inCap;
  IN = grow(<usize>inCap + 64);
  OUT_CAP = inCap / 32 + 64;
  OUT = grow(<usize>OUT_CAP * REC_BYTES);
  // A line's unescaped strings and decoded query take at most twice its length (scan() keeps that room): twice
  // the input, so that room is always there, for a line of the whole input too.
  SCRATCH_CAP = 2 * inCap + 64;
  SCRATCH = grow(SCRATCH_CAP);
  MAX_STRINGS = maxStrings;
  MAX_INTERN_LEN = maxInternLen;
  NEWS_CAP = 65536;
  NEWS = grow(<usize>NEWS_CAP * 12);
  TABLE_MASK = (1 << 12) - 1;
  TABLE = grow(<usize>(TABLE_MASK + 1) * 16);
  memory.fill(TABLE, 0xff, <usize>(TABLE_MASK + 1) * 16);
  STACK = grow(BODY_DEPTH);
  ARENA = grow(1 << 20);
  ARENA_END = ARENA;
  ARENA_CAP_END = ARENA + (1 << 20);
  STRINGS = 0;
  newsCount = 0;
  // the strings a record is classified by (classify), with fixed ids; the host learns them from the news
  for (let i = 0; i < FIXED.length; i++) {
    const f = unchecked(FIXED[i]);
    for (let k = 0; k < f.length; k++) store<u8>(SCRATCH + <usize>k, <u8>f.charCodeAt(k));
    intern(SCRATCH, <u32>f.length);
  }
  return IN;
}

export const FIXED: string[] = ['list', 'get', 'watch', 'create', 'nodes', 'leases', 'token', 'serviceaccounts', 'kube-system', '', 'Metadata'];
export const ID_LIST = 0;
export const ID_GET = 1;
export const ID_WATCH = 2;
export const ID_CREATE = 3;
export const ID_NODES = 4;
export const ID_LEASES = 5;
export const ID_TOKEN = 6;
export const ID_SERVICEACCOUNTS = 7;
export const ID_KUBE_SYSTEM = 8;
export const ID_EMPTY = 9;
export const ID_METADATA = 10;

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

// ---- interning -----------------------------------------------------------------------------------------



/** Re-hashes into a table twice the size. */
export function growTable(): void {
  const oldT = TABLE;
  const oldN = TABLE_MASK + 1;
  const n = oldN * 2;
  TABLE = grow(<usize>n * 16);
  memory.fill(TABLE, 0xff, <usize>n * 16);
  TABLE_MASK = n - 1;
  for (let i: u32 = 0; i < oldN; i++) {
    const s = oldT + (<usize>i) * 16;
    const id = load<i32>(s, 4);
    if (id < 0) continue;
    const h = load<u32>(s);
    let j = h & TABLE_MASK;
    for (;;) {
      const d = TABLE + (<usize>j) * 16;
      if (load<i32>(d, 4) < 0) {
        store<u32>(d, h);
        store<i32>(d, id, 4);
        store<u32>(d, load<u32>(s, 8), 8);
        store<u32>(d, load<u32>(s, 12), 12);
        break;
      }
      j = (j + 1) & TABLE_MASK;
    }
  }
}

/** The id of the bytes [p, p+n), interning them when new; -2 when the table is full (the line is declined). */
export function intern(p: usize, n: u32): i32 {
  if (n > MAX_INTERN_LEN) return -2;
  const h = hashBytes(p, n);
  let j = h & TABLE_MASK;
  for (;;) {
    const s = TABLE + (<usize>j) * 16;
    const id = load<i32>(s, 4);
    if (id < 0) break;
    if (load<u32>(s) == h && load<u32>(s, 12) == n && bytesEqual(<usize>load<u32>(s, 8), p, n)) return id;
    j = (j + 1) & TABLE_MASK;
  }
  if (STRINGS >= MAX_STRINGS || newsCount >= NEWS_CAP) return -2;
  if (ARENA_END + n > ARENA_CAP_END) {
    // A new arena block; the old one stays (its strings are still in the table).
    const size: usize = max<usize>(1 << 20, <usize>n);
    ARENA = grow(size);
    ARENA_END = ARENA;
    ARENA_CAP_END = ARENA + size;
  }
  memory.copy(ARENA_END, p, n);
  const id = <i32>STRINGS;
  STRINGS++;
  const s = TABLE + (<usize>j) * 16;
  store<u32>(s, h);
  store<i32>(s, id, 4);
  store<u32>(s, <u32>ARENA_END, 8);
  store<u32>(s, n, 12);
  const e = NEWS + (<usize>newsCount) * 12;
  store<u32>(e, <u32>id);
  store<u32>(e, <u32>ARENA_END, 4);
  store<u32>(e, n, 8);
  newsCount++;
  ARENA_END += n;
  if (STRINGS * 2 > TABLE_MASK) growTable();
  return id;
}
