// The auditID dedup of a segment (src/aggregate/dedup.ts admit()), keyed by the ID's bytes, so that a line
// the engine read is admitted without an ID string, a Set or a ring in JavaScript.
//
// Per segment (a "state", opened by the host at beginSegment and closed at endSegment), an ID is either
//   RECENT:  one of the segment's last `recentCap` final-stage IDs (a ring, oldest first, is the segment's tail);
//   PENDING: an earlier stage the host holds open until its final one comes (the host keeps the event itself).
// The verdicts are those of admit(): a final stage whose ID is RECENT is a copy (DROP); else it becomes RECENT
// (the oldest RECENT ID of a full ring is forgotten), and the host learns whether it was PENDING. An earlier
// stage whose ID is RECENT comes after its final one (DROP); else it is PENDING (HOLD). The host forgets a
// PENDING ID it evicts (dedupForget).
//
// Memory: entries of 64 bytes (one cache line: hash, length, state and kind, the ID's bytes inline when they fit
// in INLINE, else a pointer to a block of their own, and the run and place where admitFast listed its hold) in a
// pool with a free list; a table of (hash, entry + 1) pairs, 0 for an empty slot
// (linear probing on the hash, deletion by backward shift, at most three quarters full), so that a probe reads no
// entry until a hash matches; blocks of 16 << k bytes with a free list per size for IDs too long to sit inline; a
// ring of u32 entry indices per state. The table is made at once for a full ring and the pool's first open
// requests, and needs no clearing: grow() hands out memory nothing has used, which is zero (a table grown and
// cleared from 2,048 slots wrote 4 MB a lane on the bench log, where a page's first touch costs 12-18 us:
// git log -- bench/README.md). All of it grows with the IDs a segment holds at once (at most recentCap + the host's
// open requests), never with the log. Per new final-stage ID of a full ring: the table's slot, the oldest entry
// and its slot, about three cache lines (the entries and their bytes apart, and probes reading entries, made six).

import { grow, hashBytes, bytesEqual } from './mem';

const NONE: u32 = 0xffffffff;
const RECENT: u32 = 1;
const PENDING: u32 = 2;
const INLINE: u32 = 40; // ID bytes kept in the entry itself (at 16; a UUID is 36)
const E_RUN: u32 = 56; // the admitFast run that listed the entry's hold (0: none), and its place in that run's list
const E_SLOT: u32 = 60;

// verdicts (aggregate/dedup.ts Admit, through LineEngine)
export const V_DROP: u32 = 0;
export const V_NEW: u32 = 1; // a final stage, counted now
export const V_WAS_PENDING: u32 = 2; // a final stage whose earlier stage the host holds: it drops that one
export const V_HOLD: u32 = 3; // an earlier stage: the host holds it

// entries: hash u32, length u32, state << 2 | kind u32 (0: free), block u32 (free: next free), bytes, run u32, slot u32
let ENT: usize = 0;
let ENT_CAP: u32 = 0;
let ENT_TOP: u32 = 0;
let ENT_FREE: u32 = NONE;
let TAB: usize = 0; // (hash u32, entry + 1 u32) pairs; 0: empty
let TMASK: u32 = 0;
let LIVE: u32 = 0;
let ST: usize = 0; // states: ring u32, position u32, count u32, open u32
let ST_CAP: u32 = 0;
let ST_TOP: u32 = 0;
let RING_CAP: u32 = 0;
let FREEL: usize = 0; // 32 free-list heads, one per block size 16 << k
let CHUNK: usize = 0;
let CHUNK_END: usize = 0;
let TAIL: usize = 0; // dedupTail's ends and bytes
let TAIL_CAP: usize = 0;
let KEY: usize = 0; // where the host writes an ID it admits as a string
let KEY_CAP: u32 = 0;

@inline function entry(e: u32): usize {
  return ENT + (<usize>e << 6);
}

@inline function slot(j: u32): usize {
  return TAB + (<usize>j << 3);
}

/** Where entry e's ID bytes are. */
@inline function bytesOf(a: usize): usize {
  return load<u32>(a, 4) <= INLINE ? a + 16 : <usize>load<u32>(a, 12);
}

/** The table's size for `live` IDs: a power of two they fill to three quarters at the most. */
function tableSlots(live: u32): u32 {
  const need = live + live / 3 + 1; // live / (3/4), rounded up
  return max<u32>(2048, <u32>1 << (32 - clz(need - 1)));
}

function setup(recentCap: u32): void {
  RING_CAP = recentCap;
  // room for a full ring and some open requests from the start: a grown pool's old copy is never given back, and
  // pages nothing has touched cost no memory
  ENT_CAP = recentCap + 4096;
  ENT = grow(<usize>ENT_CAP << 6);
  const slots = tableSlots(ENT_CAP);
  TMASK = slots - 1;
  TAB = grow(<usize>slots << 3); // zero: every slot empty
  ST_CAP = 16;
  ST = grow(<usize>ST_CAP << 4);
  memory.fill(ST, 0, <usize>ST_CAP << 4);
  FREEL = grow(32 * 4);
  memory.fill(FREEL, 0, 32 * 4);
}

@inline function sizeClass(n: u32): u32 {
  return n <= 16 ? 0 : 28 - clz(n - 1);
}

function allocBytes(n: u32): usize {
  const k = sizeClass(n);
  const head = load<u32>(FREEL + (<usize>k << 2));
  if (head != 0) {
    store<u32>(FREEL + (<usize>k << 2), load<u32>(<usize>head));
    return <usize>head;
  }
  const size = (<usize>16) << k;
  if (CHUNK + size > CHUNK_END) {
    const c = max<usize>(1 << 20, size);
    CHUNK = grow(c);
    CHUNK_END = CHUNK + c;
  }
  const at = CHUNK;
  CHUNK += size;
  return at;
}

function freeBytes(p: usize, n: u32): void {
  const k = sizeClass(n);
  store<u32>(p, load<u32>(FREEL + (<usize>k << 2)));
  store<u32>(FREEL + (<usize>k << 2), <u32>p);
}

function newEntry(h: u32, s: u32, p: usize, n: u32, kind: u32): u32 {
  let e = ENT_FREE;
  if (e != NONE) ENT_FREE = load<u32>(entry(e), 12);
  else {
    if (ENT_TOP == ENT_CAP) {
      const bigger = grow(<usize>ENT_CAP << 7);
      memory.copy(bigger, ENT, <usize>ENT_CAP << 6);
      ENT = bigger;
      ENT_CAP <<= 1;
    }
    e = ENT_TOP++;
  }
  const a = entry(e);
  store<u32>(a, h);
  store<u32>(a, n, 4);
  store<u32>(a, (s << 2) | kind, 8);
  store<u32>(a, 0, E_RUN);
  if (n <= INLINE) memory.copy(a + 16, p, n);
  else {
    const b = allocBytes(n);
    memory.copy(b, p, n);
    store<u32>(a, <u32>b, 12);
  }
  return e;
}

function freeEntry(e: u32): void {
  const a = entry(e);
  const n = load<u32>(a, 4);
  if (n > INLINE) freeBytes(<usize>load<u32>(a, 12), n);
  store<u32>(a, 0, 8);
  store<u32>(a, ENT_FREE, 12);
  ENT_FREE = e;
}

/** Deletes the table position j (Knuth's algorithm R: later entries of the run move back into the hole). */
function removeAt(j: u32): void {
  let i = j;
  let k = j;
  for (;;) {
    k = (k + 1) & TMASK;
    if (load<u32>(slot(k), 4) == 0) break;
    const home = load<u32>(slot(k)) & TMASK;
    // e stays when its home lies cyclically in (i, k]
    if (i <= k ? home > i && home <= k : home > i || home <= k) continue;
    store<u64>(slot(i), load<u64>(slot(k)));
    i = k;
  }
  store<u32>(slot(i), 0, 4);
  LIVE--;
}

/** Removes entry e from the table and frees it. */
function drop(e: u32): void {
  let j = load<u32>(entry(e)) & TMASK;
  while (load<u32>(slot(j), 4) != e + 1) j = (j + 1) & TMASK;
  removeAt(j);
  freeEntry(e);
}

/** Puts entry e of hash h in the table's first empty slot from its home. */
function place(h: u32, e: u32): void {
  let j = h & TMASK;
  while (load<u32>(slot(j), 4) != 0) j = (j + 1) & TMASK;
  store<u32>(slot(j), h);
  store<u32>(slot(j), e + 1, 4);
}

function growTable(): void {
  const oldT = TAB;
  const oldN = TMASK + 1;
  const n = oldN << 1;
  TAB = grow(<usize>n << 3); // zero: every slot empty
  TMASK = n - 1;
  for (let i: u32 = 0; i < oldN; i++) {
    const e1 = load<u32>(oldT + (<usize>i << 3), 4);
    if (e1 != 0) place(load<u32>(oldT + (<usize>i << 3)), e1 - 1);
  }
}

/** Makes room in the ring of state s for one more ID: a full ring forgets its oldest, whose place is next. */
function ringMakeRoom(s: u32): void {
  const st = ST + (<usize>s << 4);
  const count = load<u32>(st, 8);
  if (count == RING_CAP) drop(load<u32>(<usize>load<u32>(st) + (<usize>load<u32>(st, 4) << 2)));
  else store<u32>(st, count + 1, 8);
}

/** Puts e in the ring of state s, in the place ringMakeRoom() made. */
function ringPut(s: u32, e: u32): void {
  const st = ST + (<usize>s << 4);
  const at = load<u32>(st, 4);
  store<u32>(<usize>load<u32>(st) + (<usize>at << 2), e);
  store<u32>(st, at + 1 == RING_CAP ? 0 : at + 1, 4);
}

@inline function hashOf(s: u32, p: usize, n: u32): u32 {
  return hashBytes(p, n) ^ (s * 0x9e3779b1);
}

function find(h: u32, s: u32, p: usize, n: u32): u32 {
  const meta = s << 2;
  let j = h & TMASK;
  for (;;) {
    const e1 = load<u32>(slot(j), 4);
    if (e1 == 0) return NONE;
    if (load<u32>(slot(j)) == h) {
      const a = entry(e1 - 1);
      if (load<u32>(a, 4) == n && (load<u32>(a, 8) & ~3) == meta && bytesEqual(bytesOf(a), p, n)) return e1 - 1;
    }
    j = (j + 1) & TMASK;
  }
  return NONE; // not reached
}

/** Opens a segment's dedup state (recentCap: the host's RECENT_TERMINALS, the same for every state). */
export function dedupOpen(recentCap: u32): u32 {
  if (TAB == 0) setup(recentCap);
  let s: u32 = 0;
  while (s < ST_TOP && load<u32>(ST + (<usize>s << 4), 12) != 0) s++;
  if (s == ST_TOP) {
    if (ST_TOP == ST_CAP) {
      const bigger = grow(<usize>ST_CAP << 5);
      memory.fill(bigger, 0, <usize>ST_CAP << 5);
      memory.copy(bigger, ST, <usize>ST_CAP << 4);
      ST = bigger;
      ST_CAP <<= 1;
    }
    ST_TOP++;
    store<u32>(ST + (<usize>s << 4), <u32>grow(<usize>RING_CAP << 2));
  }
  const st = ST + (<usize>s << 4);
  store<u32>(st, 0, 4);
  store<u32>(st, 0, 8);
  store<u32>(st, 1, 12);
  return s;
}

/** Closes state s: its IDs are forgotten and its ring is kept for the next state opened. */
export function dedupClose(s: u32): void {
  const meta = s << 2;
  for (let e: u32 = 0; e < ENT_TOP; e++) {
    const m = load<u32>(entry(e), 8);
    if (m != 0 && (m & ~3) == meta) drop(e);
  }
  store<u32>(ST + (<usize>s << 4), 0, 12);
}

/** admit() for the ID [p, p+n) of state s: a verdict V_*. */
export function dedupAdmit(s: u32, p: usize, n: u32, terminal: bool): u32 {
  const h = hashOf(s, p, n);
  const e = find(h, s, p, n);
  if (e != NONE) {
    const a = entry(e);
    const m = load<u32>(a, 8);
    if ((m & 3) == RECENT) return V_DROP;
    LAST = e;
    LAST_NEW = false;
    if (!terminal) return V_HOLD;
    store<u32>(a, (m & ~3) | RECENT, 8);
    ringMakeRoom(s);
    ringPut(s, e);
    return V_WAS_PENDING;
  }
  if (!terminal) {
    const ne = newEntry(h, s, p, n, PENDING);
    addEntry(h, ne);
    LAST = ne;
    LAST_NEW = true;
    return V_HOLD;
  }
  // The full ring's oldest goes first, so that the new entry takes its place in the pool while it is in cache.
  ringMakeRoom(s);
  const ne = newEntry(h, s, p, n, RECENT);
  addEntry(h, ne);
  ringPut(s, ne);
  return V_NEW;
}

// The entry of dedupAdmit's last V_HOLD or V_WAS_PENDING, and whether that hold made it (an ID not held before).
let LAST: u32 = NONE;
let LAST_NEW = false;

/** Whether dedupAdmit's last hold (V_HOLD) made its entry. */
@inline export function lastHoldNew(): bool {
  return LAST_NEW;
}
/** The admitFast run that listed the hold of dedupAdmit's last entry (V_HOLD, V_WAS_PENDING), 0 when none. */
@inline export function lastHoldRun(): u32 {
  return load<u32>(entry(LAST), E_RUN);
}
/** Where in that run's list. */
@inline export function lastHoldSlot(): u32 {
  return load<u32>(entry(LAST), E_SLOT);
}
/** admitFast listed the hold of dedupAdmit's last entry in run `run`, at `slot`. */
@inline export function setLastHold(run: u32, slot: u32): void {
  const a = entry(LAST);
  store<u32>(a, run, E_RUN);
  store<u32>(a, slot, E_SLOT);
}

@inline function addEntry(h: u32, e: u32): void {
  place(h, e);
  LIVE++;
  if (LIVE > ((TMASK + 1) >> 2) * 3) growTable();
}

/** The host evicted the open request of ID [p, p+n): forgets it (when it is PENDING). */
export function dedupForget(s: u32, p: usize, n: u32): void {
  const e = find(hashOf(s, p, n), s, p, n);
  if (e != NONE && (load<u32>(entry(e), 8) & 3) == PENDING) drop(e);
}

/** Writes state s's RECENT IDs, oldest first, at dedupTailPtr(): where each ends (u32s, the first from 0), each
 * one's keyHash (u32s), then their bytes laid end to end (id-keys.ts IdTail); returns how many. */
export function dedupTail(s: u32): u32 {
  const st = ST + (<usize>s << 4);
  const ring = <usize>load<u32>(st);
  const at = load<u32>(st, 4);
  const count = load<u32>(st, 8);
  const first: u32 = count < RING_CAP ? 0 : at;
  let total: usize = 0;
  for (let i: u32 = 0, k = first; i < count; i++, k = k + 1 == RING_CAP ? 0 : k + 1) total += load<u32>(entry(load<u32>(ring + (<usize>k << 2))), 4);
  const need = (<usize>count << 3) + total;
  if (need > TAIL_CAP) {
    TAIL_CAP = max<usize>(need, TAIL_CAP << 1);
    TAIL = grow(TAIL_CAP);
  }
  const hashes = TAIL + (<usize>count << 2);
  const bytes = TAIL + (<usize>count << 3);
  let to = bytes;
  for (let i: u32 = 0, k = first; i < count; i++, k = k + 1 == RING_CAP ? 0 : k + 1) {
    const a = entry(load<u32>(ring + (<usize>k << 2)));
    const n = load<u32>(a, 4);
    memory.copy(to, bytesOf(a), n);
    store<u32>(hashes + (<usize>i << 2), keyHash(to, n));
    to += n;
    store<u32>(TAIL + (<usize>i << 2), <u32>(to - bytes));
  }
  return count;
}

/** FNV-1a over the key's bytes, mixed down: the look-back's hash (src/aggregate/look-back.ts keyHash). */
function keyHash(p: usize, n: u32): u32 {
  let h: u32 = 0x811c9dc5;
  for (let i: u32 = 0; i < n; i++) h = (h ^ <u32>load<u8>(p + i)) * 0x01000193;
  h ^= h >>> 16;
  h *= 0x85ebca6b;
  h ^= h >>> 13;
  return h;
}

export function dedupTailPtr(): usize {
  return TAIL;
}

/** Room for an ID of n bytes the host writes (an ID it admits as a string); its address. */
export function dedupKey(n: u32): usize {
  if (n > KEY_CAP) {
    KEY_CAP = max<u32>(256, n);
    KEY = grow(KEY_CAP);
  }
  return KEY;
}

/** IDs held over all states (tests). */
export function dedupLive(): u32 {
  return LIVE;
}
