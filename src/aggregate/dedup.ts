/*! One job: the dedup of audit events by auditID across stages, copies and segments. Per segment (functions over
 * its SegmentDedup): admit() an event (count it now, hold it open, keep it as a head event for reconcile, or drop
 * a copy), in JavaScript or from the verdict of the engine's module (admitVerdict), and hold open requests
 * (holdOpen). Across segments, in input order (CrossSegmentDedup): requests left open, head events paired with
 * them, and each input's look-back of final-stage IDs, so that any cut counts a request once. */

import type { AuditEvent } from '../model/audit-event.js';
import { joinLogRecords } from '../decode/apiserver-log-reader.js';
import { DEDUP_DROP, DEDUP_HOLD, DEDUP_WAS_PENDING, type LineEngine } from '../decode/engine/engine.js';
import { EMPTY_TAIL, idTailOf, type IdTail } from '../decode/id-keys.js';
import { LookBack } from './look-back.js';
import type { InputStats } from './input-stats.js';
import type { Counters, SegmentResult } from './state-types.js';

/** Most in-flight (non-final stage) requests remembered for dedup; past it the oldest is counted as is. */
export const MAX_PENDING = 250_000;
/** Recent final-stage auditIDs remembered to drop duplicated lines and late earlier stages. */
export const RECENT_TERMINALS = 1 << 16;
/** Final-stage events received within this long after a stream's first event may pair with an earlier file. */
export const HEAD_SLACK_MS = 1000;

/** admit()'s verdicts. */
export const DROP = 0;
export const COUNT = 1;
export const HEAD = 2;
export const HOLD = 3;
export type Admit = typeof DROP | typeof COUNT | typeof HEAD | typeof HOLD;

/** A segment's dedup state (its part of ScanState's segment). */
export interface SegmentDedup {
  input: InputStats; // the segment's counts (duplicateEvents)
  /** its first event time (timing.ts) */
  startMs: number | null;
  /** the latest event time just before this segment in its input, when it is not the input's first */
  beforeMs: number | null;
  /** its open requests: earlier stages held until their final one comes */
  pending: Map<string, AuditEvent>;
  /** the dedup by auditID: in the engine's module when it has one (decode/engine/assembly/dedup.ts: the state
   * `dedup` of `dedupEngine`; the module then mirrors which IDs `pending` holds), else recent, recentRing and
   * recentPos */
  dedupEngine: LineEngine | null;
  dedup: number;
  recent: Set<string>;
  recentRing: string[];
  recentPos: number;
  /** final events of requests received before this segment began (plus slack), held for reconcile(): one may
   * be a copy of a final event near the previous segment's end, which only reconcile() can see */
  head: Map<string, AuditEvent>;
}

/** The segment's dedup of one event by auditID, for every request record (ScanState.addRequest): DROP a copy of a
 * final event or an earlier stage logged after it; COUNT a final event now; HEAD a final event received before
 * the segment began (reconcile pairs it); HOLD an earlier stage until its final one comes. */
export function admit(g: SegmentDedup, id: string, terminal: boolean, receivedMs: number | null): Admit {
  if (g.dedupEngine !== null) return admitVerdict(g, g.dedupEngine.dedupString(g.dedup, id, terminal), terminal, receivedMs, id);
  if (terminal) {
    if (g.recent.has(id)) {
      g.input.duplicateEvents++;
      return DROP;
    }
    rememberTerminal(g, id);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; deleting from an empty Map is nothing
    if (g.pending.size > 0) g.pending.delete(id);
    return inHead(g, receivedMs) ? HEAD : COUNT;
  }
  if (g.recent.has(id)) return DROP; // an earlier stage logged after the final one
  return HOLD;
}

/** admit() from the verdict of the engine's dedup (LineEngine DEDUP_*); `id`: the ID as a string, null for the
 * engine's current line (read as a string only when an open request must be dropped). */
export function admitVerdict(g: SegmentDedup, v: number, terminal: boolean, receivedMs: number | null, id: string | null): Admit {
  if (v === DEDUP_DROP) {
    if (terminal) g.input.duplicateEvents++;
    return DROP;
  }
  if (v === DEDUP_HOLD) return HOLD;
  if (v === DEDUP_WAS_PENDING) g.pending.delete(id ?? g.dedupEngine!.auditID());
  return inHead(g, receivedMs) ? HEAD : COUNT;
}

/** Whether a final event received at `receivedMs` belongs to the segment's head: a request received before the
 * segment began (plus slack), whose earlier stage, or a copy of it, may be in the previous segment (or an
 * earlier-read file): reconcile() pairs and counts it. "Began" is the later of the segment's first event and
 * the latest event just before it: an old line (a replayed copy) at the start of a segment must not make the
 * requests after it look new. */
function inHead(g: SegmentDedup, receivedMs: number | null): boolean {
  // Stryker disable next-line ConditionalExpression: Math.max with a null is the other time (null is 0, and times are past 1970)
  const began = g.beforeMs === null ? g.startMs : g.startMs === null ? g.beforeMs : Math.max(g.startMs, g.beforeMs);
  return receivedMs !== null && began !== null && receivedMs <= began + HEAD_SLACK_MS && g.head.size < MAX_PENDING;
}

/** Puts a final-stage auditID in the segment's ring of recent ones, in the place of the oldest. */
function rememberTerminal(g: SegmentDedup, id: string): void {
  const old = g.recentRing[g.recentPos];
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a ring not full yet holds undefined, which the Set does not
  if (old !== undefined) g.recent.delete(old);
  g.recentRing[g.recentPos] = id;
  g.recentPos = (g.recentPos + 1) % RECENT_TERMINALS;
  g.recent.add(id);
}

/** Holds an open request in `open` (a segment's pending, `g`, or the scan's leftovers), the later of two earlier
 * stages of one request (RequestReceived then ResponseStarted) in the place of the later; past MAX_PENDING the
 * oldest (first inserted) is evicted: returned, [id, event], for the caller to count as it is (else null). */
export function holdOpen(open: Map<string, AuditEvent>, id: string, e: AuditEvent, g: SegmentDedup | null, counters: Counters): [string, AuditEvent] | null {
  open.delete(id);
  open.set(id, e);
  if (open.size <= MAX_PENDING) return null;
  const old = open.entries().next().value as [string, AuditEvent];
  open.delete(old[0]);
  if (g !== null && g.dedupEngine !== null) g.dedupEngine.dedupForget(g.dedup, old[0]);
  counters.pendingEvicted++;
  return old;
}

/** Ends a segment's dedup: its last final-stage IDs for the next segment's look-back when `withTail`. */
export function closeDedup(g: SegmentDedup, withTail: boolean): IdTail {
  let tail = EMPTY_TAIL;
  if (g.dedupEngine !== null) {
    if (withTail) tail = g.dedupEngine.dedupTail(g.dedup);
    g.dedupEngine.dedupClose(g.dedup);
  } else if (withTail) {
    const ids: string[] = [];
    for (let i = 0; i < RECENT_TERMINALS; i++) {
      const id = g.recentRing[(g.recentPos + i) % RECENT_TERMINALS];
      if (id !== undefined) ids.push(id);
    }
    tail = idTailOf(ids);
  }
  return tail;
}

/** The key of a request's ID across segments and inputs: the apiserver log's records of a request apart from the
 * audit log's events of it (the same audit-ID, another source: beside an audit log they are its evidence, never a
 * copy of it, nor it of them). */
function crossKey(id: string, e: AuditEvent): string {
  return e.evidence === undefined ? id : '\u0001' + id;
}

/** The dedup across segments, reconciled in input order: `count` counts a request of an input (undefined: the
 * current segment's). */
export class CrossSegmentDedup {
  /** reconcile(): requests still open after the segments so far */
  private readonly leftovers = new Map<string, AuditEvent>();
  /** each leftover's input, so that it is counted in that input's series */
  private readonly leftoverInput = new Map<string, number>();
  /** every segment's head set: a later segment's leftover may be completed by an earlier-read file */
  private readonly heads = new Set<string>();
  /** per input, the last RECENT_TERMINALS final-stage auditIDs reconciled (a ring, with counts because an ID may
   * stand in it twice), so that a segment's dedup looks back across its start as one thread's does. Inputs are
   * reconciled one after another, so only the current input's is kept, unless `interleaved` (follow mode reads
   * every input at once). */
  private readonly lookBacks = new Map<number, LookBack>();
  /** follow mode: segments of different inputs are reconciled in turn, so every input keeps its look-back */
  interleaved = false;

  constructor(
    /** the scan's counters (pendingEvicted) */
    private readonly counters: Counters,
  ) {}

  /** Joins a finished segment's edges (`r`, of input counts `inp`) with the segments before it. */
  reconcile(r: SegmentResult, inp: InputStats, count: (e: AuditEvent, input: number | undefined) => void): void {
    // the segment's IDs that a previous segment of the input holds at its end (one pass over the look-back)
    const prior = this.lookBackOf(r.inputIndex);
    const before = prior.findAll([...r.head.keys(), ...r.leftovers.keys()]);
    for (const [id, e] of r.head) {
      const key = crossKey(id, e);
      const open = this.leftovers.get(key);
      if (open !== undefined) {
        this.leftovers.delete(key);
        this.leftoverInput.delete(key);
        if (open.evidence !== undefined && e.evidence !== undefined) joinLogRecords(e, open);
      }
      if (this.heads.size < MAX_PENDING) this.heads.add(key);
      // A copy of a final event the input's previous segment already counted (one thread's ring would see it).
      if (before.has(id)) {
        inp.duplicateEvents++;
        continue;
      }
      count(e, r.inputIndex);
    }
    for (const [id, e] of r.leftovers) {
      // Also drop an earlier stage logged after its final one across the cut, as one thread does.
      const key = crossKey(id, e);
      if (this.leftovers.has(key) || this.heads.has(key) || before.has(id)) continue;
      this.leftoverInput.set(key, r.inputIndex);
      this.hold(key, e, count);
    }
    prior.push(r.tail);
  }

  /** Ends the scan: counts requests that never showed a final stage (cut logs, long watches) unless a later segment
   * completed them. */
  finish(count: (e: AuditEvent, input: number | undefined) => void): void {
    for (const [id, e] of this.leftovers) count(e, this.leftoverInput.get(id));
    this.leftovers.clear();
    this.leftoverInput.clear();
    this.heads.clear();
  }

  /** Holds a request left open (holdOpen); one evicted is counted in its own input. */
  private hold(key: string, e: AuditEvent, count: (e: AuditEvent, input: number | undefined) => void): void {
    const old = holdOpen(this.leftovers, key, e, null, this.counters);
    if (old === null) return;
    const input = this.leftoverInput.get(old[0]);
    if (input !== undefined) this.leftoverInput.delete(old[0]);
    count(old[1], input);
  }

  /** Input `inputIndex`'s look-back, made when new (the others' dropped, unless interleaved). */
  private lookBackOf(inputIndex: number): LookBack {
    let lb = this.lookBacks.get(inputIndex);
    if (lb === undefined) {
      if (!this.interleaved) this.lookBacks.clear();
      lb = new LookBack(RECENT_TERMINALS);
      this.lookBacks.set(inputIndex, lb);
    }
    return lb;
  }
}
