/*! The line engine's entry (built to dist/decode/engine/*.wasm by `npm run build`): the functions the host calls
 * (src/decode/engine/engine.ts), scan() of a call's lines into records and admitFast() of the records it admits. */
//
// audit-scan's line engine, in AssemblyScript. It reads newline-terminated lines from the input region and, for each
// audit Event line on its fast path, writes a record of the fields the scan counts: strings interned to ids (new
// ones listed for the host to decode once), one-off strings (auditID, object name, requestURI, resourceVersion)
// unescaped into a scratch arena, times in epoch ms, the list query already parsed, and from a responseObject its
// item counts (the bodies are skipped otherwise: see event.ts "bodies"). It decides nothing about what a line
// means: any line it is not sure of (other kinds, wrappers, bodies with a token's or a lease's fields, odd JSON,
// escapes it does not take, invalid UTF-8) is declined and the host reads it with the JavaScript path. It never
// counts: the host does, once.
//
// Memory is laid out by the host through init(); everything is raw loads and stores (runtime stub, no GC).
//
// The stages, a file each: regions.ts (the regions init() lays out, interning), record.ts (a record's fields),
// bytes.ts (the cursor, JSON tokens, SIMD scans), members.ts (the Event's object members and values), event.ts (an
// Event line, its bodies), query.ts (the request URI's query), httplog.ts (the apiserver's httplog line); beside
// them dedup.ts (the auditID dedup), slots.ts (the aggregator's counting) and mem.ts (the allocator, the byte hash).

import { slotsLayout, slotsInit, latencyEdgesPtr, latencyMax, R_MARK, fingerprintOn } from './slots';
import { grow, hashBytes, bytesEqual } from './mem';
import { IN, OUT, OUT_CAP, SCRATCH, SCRATCH_CAP, NEWS, STRINGS, newsCount, setNewsCount, ID_LIST, ID_GET, ID_WATCH, ID_CREATE, ID_NODES, ID_LEASES, ID_TOKEN, ID_SERVICEACCOUNTS, ID_KUBE_SYSTEM, ID_EMPTY } from './regions';
import { scratchPos, setLine, setScratchPos, findNewline } from './bytes';
import { readEvent } from './event';
import { O_APF_WAIT, klogNowMs, readHttplog } from './httplog';
import { REC_BYTES, R_STATUS, R_START, R_END, R_STAGE, R_VERB, R_LEVEL, R_USER, R_UA, R_NODE, R_RESOURCE, R_GROUP, R_NS, R_SUB, R_NAME_P, R_NAME_L, R_ID_P, R_ID_L, R_CODE, R_RVM, R_FLAGS, R_FSEL, R_LSEL, R_NL, R_RETURNED, O_RECEIVED, O_STAGE_T, O_REMAINING, rec, setI, setRec } from './record';
import { dedupAdmit, lastHoldNew, lastHoldRun, lastHoldSlot, setLastHold, V_DROP, V_HOLD, V_NEW, V_WAS_PENDING } from './dedup';
export { dedupOpen, dedupClose, dedupAdmit, dedupForget, dedupTail, dedupTailPtr, dedupKey, dedupLive } from './dedup';
export { REC_BYTES } from './record';
export { init } from './regions';
export { setKlogClock } from './httplog';
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

// ---- a call's lines -----------------------------------------------------------------------------------

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

// ---- the requests the aggregator counts (EngineRecord.count) and the lines it admits here ------------------

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

/** Admits the records [from, n) at `out`, as ScanState.addRequest does an engine record, for as long as nothing
 * needs the host: an event with an auditID, both times plausible ([earliest, latest]), not an apiserver identity lease, goes
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
    // (the apiserver log's request is judged by when its line was written, as ScanState.addRequest judges it;
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
