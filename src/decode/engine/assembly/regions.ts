/*! The module's memory regions as init() lays them out for the host (input, records, scratch, the body stack),
 * and the intern table in three of them: each string a record names made an id, new ones listed for the host. */

import { grow, heapReset, hashBytes, bytesEqual } from './mem';
import { REC_BYTES } from './record';

// ---- regions (set by init) ----------------------------------------------------------------------------

export let IN: usize = 0; // input bytes, IN_CAP + 16 of padding for SIMD loads
let IN_CAP: u32 = 0;
export let OUT: usize = 0; // line records, REC_BYTES each
export let OUT_CAP: u32 = 0; // records
export let SCRATCH: usize = 0; // unescaped one-off strings, per call
export let SCRATCH_CAP: u32 = 0;
export let NEWS: usize = 0; // new interned strings of this call: (id, ptr, len) u32 triples
let NEWS_CAP: u32 = 0;
let TABLE: usize = 0; // intern hash table: slots of (hash u32, id i32, ptr u32, len u32)
let TABLE_MASK: u32 = 0;
let ARENA: usize = 0; // interned bytes
let ARENA_END: usize = 0;
let ARENA_CAP_END: usize = 0;
export let STACK: usize = 0; // the open containers of skipBody(), a byte each
export const BODY_DEPTH: i32 = 1024; // deeper bodies are declined
export let STRINGS: u32 = 0; // interned so far
let MAX_STRINGS: u32 = 1 << 20;
let MAX_INTERN_LEN: u32 = 4096;

export let newsCount: u32 = 0;

@inline export function setNewsCount(n: u32): void {
  newsCount = n;
}

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

const FIXED: string[] = ['list', 'get', 'watch', 'create', 'nodes', 'leases', 'token', 'serviceaccounts', 'kube-system', '', 'Metadata'];
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

// ---- interning -----------------------------------------------------------------------------------------

/** Re-hashes into a table twice the size. */
function growTable(): void {
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
