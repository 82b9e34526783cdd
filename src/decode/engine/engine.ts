/*! The compiled line engine (issue 12): WebAssembly built from src/decode/engine/assembly/engine.ts. It reads audit
 * Event lines on its fast path into records (strings interned, times parsed, the list query parsed, a
 * responseObject's item counts read, request and response bodies skipped); every other line is declined and
 * read by the JavaScript path. The same module holds the aggregator's per-line counting (assembly/slots.ts,
 * issue 26): ScanState marks the records it counts now, the module adds them to slots keyed by interned ids, and
 * ScanState folds the slots into its aggregates once per slot (drainSlots). A record ScanState does not mark
 * becomes an AuditEvent (event()), counted as the JavaScript path's are.
 *
 * Loading: the SIMD build, else the scalar build (same source), else none (the caller reads every line in
 * JavaScript and says so on stderr). `--engine js` or AUDIT_SCAN_ENGINE=js skips it. */

import type { AuditEvent, Stage } from '../../model/audit-event.js';
import type { ListQuery } from '../request-uri.js';
import { EMPTY_TAIL, keyCapacity, writeKey, type IdTail } from '../id-keys.js';
import { moduleOf, compileError, noteInstantiateError, type Exports } from './module.js';
import { MARK_COUNT, type Slot, type SlotTables } from './slot-batch.js';

export * from './slot-batch.js';

/** Bytes handed to the engine per call. */
const IN_CAP = 1 << 20;
/** Distinct strings the engine interns before it declines lines with new ones. */
const MAX_STRINGS = 1 << 20;
/** Longest string it interns (user agents, selectors); longer ones decline the line. */
const MAX_INTERN_LEN = 4096;

// Record layout: keep in step with src/decode/engine/assembly/record.ts.
const R = {
  STATUS: 0,
  START: 1,
  END: 2,
  STAGE: 3,
  VERB: 4,
  LEVEL: 5,
  USER: 6,
  UA: 7,
  NODE: 8,
  RESOURCE: 9,
  GROUP: 10,
  NS: 11,
  SUB: 12,
  NAME_P: 13,
  NAME_L: 14,
  ID_P: 15,
  ID_L: 16,
  URI_P: 17,
  URI_L: 18,
  CODE: 19,
  RV_CLASS: 20,
  RV_P: 21,
  RV_L: 22,
  RVM: 23,
  LIMIT: 24,
  FLAGS: 25,
  FSEL: 26,
  LSEL: 27,
  NL: 28,
  RETURNED: 29,
  MARK: 30,
  // an httplog line's (status 2)
  SRCIP: 40,
  APF_PL: 41,
  APF_FS: 42,
  CALLER: 43,
} as const;
const O_RECEIVED = 128;
const O_APF_WAIT = 152;
const O_STAGE_T = 136;
const O_REMAINING = 144;
const STAGES: Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** The module's auditID dedup verdicts (assembly/dedup.ts V_*). */
export const DEDUP_DROP = 0;
/** a final stage, counted now */
export const DEDUP_NEW = 1;
/** a final stage whose earlier stage the caller holds open: it drops that one */
export const DEDUP_WAS_PENDING = 2;
/** an earlier stage: the caller holds it open */
export const DEDUP_HOLD = 3;

/** What loading found: the engine, or why there is none. */
export type EngineLoad = { engine: LineEngine; variant: 'simd' | 'scalar' } | { engine: null; reason: string };

/** Instantiates the engine (one per thread: it holds the thread's string table). */
export function loadEngine(): EngineLoad {
  for (const variant of ['simd', 'scalar'] as const) {
    const mod = moduleOf(variant);
    if (mod === null) continue;
    try {
      const inst = new WebAssembly.Instance(mod, {});
      return { engine: new LineEngine(inst.exports as unknown as Exports), variant };
    } catch (err) {
      noteInstantiateError(`${variant}: ${(err as Error).message}`);
    }
  }
  return { engine: null, reason: compileError() ?? 'no engine module' };
}

/** One line as the engine saw it; valid during the readLines() callback only. */
export interface EngineLine {
  /** the engine read it as an audit event (the LineEngine's accessors give its fields); false: declined (read the
   * line in JavaScript) */
  accepted: boolean;
  /** the event had no auditID (the caller names it) */
  missingId: boolean;
  /** the buffer the offsets below are in: the caller's, or, when the caller read into the engine's input
   * (inputWindow), a view of it made after the module's memory last grew */
  buf: Buffer;
  /** the line's bytes in `buf`: [start, end) without \r, and its \n */
  start: number;
  end: number;
  nl: number;
  /** the module's dedup verdict (DEDUP_*) when admitFast stopped at this line after its dedup, else -1 */
  verdict: number;
  /** an accepted line is kube-apiserver's httplog line (its own log), not an audit event: logEvent() */
  log: boolean;
}

/** fastOpenAt()'s nothing: a held request the same run completed (assembly/engine.ts OPEN_NONE). */
export const OPEN_NONE = -0x80000000;

/** Slot layout (slots.ts S_*). */
const S = { COUNT: 72, RET_N: 76, FIRST: 80, LAST: 88, RET_SUM: 96, RET_MAX: 104, FULL: 112, LAT_N: 120, CLIENT: 124, LAT_MIN: 128, LAT_MAX: 136, SAMPLE_MS: 144, SAMPLE_P: 152, SAMPLE_L: 156 } as const;
// The aggregator's tables: slots, pairs (a power of two; folded at 75%), bytes of sample URIs (more than a line).
// 65,536 pairs (1.5 MB, all of it touched when it is set up), not 262,144: about 5 MB less RSS a lane, and the
// bench log's scan no slower for folding more often.
// AUDIT_SCAN_SLOT_TABLES=<slots> makes them small (pairs 8 per slot) so that tests fold them many times a segment.
const SMALL_TABLES = Number(process.env.AUDIT_SCAN_SLOT_TABLES ?? 0);
const MAX_SLOTS = SMALL_TABLES > 0 ? 1 << Math.ceil(Math.log2(SMALL_TABLES)) : 1 << 15;
const PAIR_CAP = SMALL_TABLES > 0 ? 1 << Math.ceil(Math.log2(SMALL_TABLES * 8)) : 1 << 16;
const SAMPLE_CAP = 4 << 20;

export class LineEngine {
  private readonly x: Exports;
  private readonly inPtr: number;
  private readonly recBytes: number;
  private buffer: ArrayBuffer;
  private bytes: Buffer;
  private i32: Int32Array;
  private f64: Float64Array;
  /** id → string, for every string the engine interned */
  readonly strings: string[] = [];
  /** lines read by the engine / declined, over the engine's life */
  accepted = 0;
  declined = 0;
  /** the record of the line being handed out (readLines), as an i32 and an f64 index, and the scratch address */
  private r = 0;
  private f = 0;
  private scratch = 0;
  /** records marked for the aggregator in the current batch */
  private marked = 0;
  /** the aggregator: set up (slotsSetup) with these widths, and what to call when its tables fill */
  private slotWidths: [number, number] | null = null;
  onSlotsFull: (() => void) | null = null;
  private pairBuf: SlotTables['pairs'] | null = null;
  /** ids of strings the host compares records with (the module interns them at init; learnStrings notes them) */
  readonly ids = { leases: -2, 'kube-system': -2, watch: -2 };

  constructor(x: Exports) {
    this.x = x;
    this.inPtr = x.init(IN_CAP, MAX_STRINGS, MAX_INTERN_LEN);
    this.recBytes = x.REC_BYTES.value as number;
    this.buffer = x.memory.buffer;
    this.bytes = Buffer.from(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.f64 = new Float64Array(this.buffer);
    this.learnStrings(); // the strings init() interned (classify's)
  }

  /** New views after the module's memory grew: growing detaches the old buffer, whose views then read as empty
   * (a length is cheaper to read than memory.buffer, about 20 ns, on every line). */
  private refresh(): void {
    if (this.i32.length !== 0) return;
    this.buffer = this.x.memory.buffer;
    this.bytes = Buffer.from(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.f64 = new Float64Array(this.buffer);
  }

  /** The engine's input, IN_CAP bytes of its memory: a caller that reads lines into it and hands readLines a
   * view that begins there saves a copy of every byte (1 MB reads, the copy about 4% of a plain scan). The view is
   * detached when the module's memory grows: take a new one for each read, and use EngineLine.buf in the callback
   * and what readLines returns after it. */
  inputWindow(): Buffer {
    this.refresh();
    return this.bytes.subarray(this.inPtr, this.inPtr + IN_CAP);
  }

  /** Reads the newline-terminated lines of buf[from, to) (to - 1 holds \n), calling `each` per line in order.
   * `maxLine`: longer lines are declined; `declineFirst`: the first n lines are declined unread. Returns `buf`, or,
   * for a view of inputWindow(), a live view of the same bytes. */
  readLines(buf: Buffer, from: number, to: number, maxLine: number, declineFirst: number, each: (l: EngineLine) => void, fast: ((i: number, n: number) => number) | null = null): Buffer {
    let s = from;
    let first = declineFirst;
    // lines read into the engine's input are scanned where they are (one batch: the window is IN_CAP bytes)
    let inWindow = buf.buffer === this.buffer && buf.byteOffset === this.inPtr && buf.length <= IN_CAP;
    const bufLen = buf.length;
    const line: EngineLine = { accepted: false, missingId: false, buf, start: 0, end: 0, nl: 0, verdict: -1, log: false };
    while (s < to) {
      let e = to;
      if (e - s > IN_CAP) {
        e = buf.lastIndexOf(10, s + IN_CAP - 1) + 1;
        if (e <= s) {
          // one line longer than the engine's input: declined whole
          const nl = buf.indexOf(10, s);
          line.accepted = false;
          line.start = s;
          line.nl = nl;
          line.end = nl > s && buf[nl - 1] === 13 ? nl - 1 : nl;
          this.declined++;
          if (first > 0) first--;
          each(line);
          s = nl + 1;
          continue;
        }
      }
      this.refresh();
      if (inWindow) {
        if (buf.length === 0) line.buf = buf = this.inputWindow().subarray(0, bufLen);
        // more lines than a batch's records (lines of a few bytes): the rest is read from a copy, as from a
        // caller's buffer, since the next batch goes where this one was
        if (s !== 0) {
          line.buf = buf = Buffer.from(buf.subarray(0, bufLen));
          inWindow = false;
        }
      }
      if (!inWindow) this.bytes.set(buf.subarray(s, e), this.inPtr);
      const consumed = this.x.scan(e - s, Math.max(0, maxLine), first);
      const n = this.x.lineCount();
      this.refresh();
      this.learnStrings();
      const out = this.x.outPtr();
      this.scratch = this.x.scratchPtr();
      const w = this.recBytes >> 2;
      this.marked = 0;
      this.out = out;
      for (let i = 0; i < n; i++) {
        // the lines the module admits without the host (admitFast, through the caller's `fast`), then this one
        line.verdict = -1;
        if (fast !== null) {
          this.admitted = false;
          const j = fast(i, n);
          if (j > i) {
            this.accepted += j - i;
            this.marked += j - i;
            i = j;
            if (i >= n) break;
          }
          if (this.admitted) line.verdict = this.x.fastVerdictOf();
        }
        const r = (out >> 2) + i * w;
        const i32 = this.i32;
        // (the module's memory grew in the scan or in a callback: the caller's view of the window is detached)
        if (inWindow && line.buf.length === 0) line.buf = buf = this.inputWindow().subarray(0, bufLen);
        line.start = s + i32[r + R.START]!;
        line.end = s + i32[r + R.END]!;
        line.nl = s + i32[r + R.NL]!;
        // A 429 is declined: the JavaScript path reads its responseStatus.message, which tells the watch cache's
        // "(re)initializing" from API Priority and Fairness (rare lines, so the engine does not read messages).
        const status = i32[r + R.STATUS];
        // (an httplog line's 429 says no more than its code: the JavaScript path reads it so too)
        if ((status === 1 && i32[r + R.CODE] !== 429) || status === 2) {
          this.accepted++;
          line.accepted = true;
          line.log = status === 2;
          line.missingId = i32[r + R.ID_P]! < 0;
          this.r = r;
          this.f = (out + i * this.recBytes) >> 3;
        } else {
          this.declined++;
          line.accepted = false;
          line.missingId = false;
          line.log = false;
        }
        each(line);
      }
      if (this.marked > 0) this.countMarked(out, n);
      first = Math.max(0, first - n);
      s += consumed;
    }
    if (inWindow && buf.length === 0) buf = this.inputWindow().subarray(0, bufLen);
    return buf;
  }

  private out = 0;
  /** admitRange ran for the current line (its verdict is the module's) */
  private admitted = false;

  /** Admits the current batch's records [i, n) in the module for as long as it can (assembly/engine.ts admitFast),
   * holding at most `room` earlier stages open: returns where it stopped. */
  admitRange(i: number, n: number, state: number, beforeMs: number, startMs: number, slack: number, earliest: number, latest: number, room: number, logOk = false): number {
    const j = this.x.admitFast(this.out, i, n, state, beforeMs, startMs, slack, earliest, latest, room, logOk ? 1 : 0);
    this.admitted = true;
    this.refresh();
    return j;
  }

  /** Copies of final events admitRange dropped. */
  fastDups(): number {
    return this.x.fastDupsOf();
  }

  /** where fastOpens() found the list fastOpenAt() reads (an i32 index) */
  private opensAt = 0;

  /** How many changes admitRange made to the open requests the caller holds (fastOpenAt). */
  fastOpens(): number {
    this.opensAt = this.x.fastOpensPtr() >> 2;
    return this.x.fastOpensLen();
  }

  /** The k-th change admitRange made to the open requests the caller holds, in record order: a record index r whose
   * final event completed an open request (drop it), ~r for an earlier stage to hold (auditIDAt, eventAt), or
   * OPEN_NONE (a hold struck out: its request completed in the same run). */
  fastOpenAt(k: number): number {
    return this.i32[this.opensAt + k]!;
  }

  /** The auditID of record i of the current batch. */
  auditIDAt(i: number): string {
    const r = (this.out + i * this.recBytes) >> 2;
    return this.scratchString(this.i32[r + R.ID_P]!, this.i32[r + R.ID_L]!);
  }

  /** Record i of the current batch as an AuditEvent, under `id`; it becomes the current line. */
  eventAt(i: number, id: string): AuditEvent {
    this.r = (this.out + i * this.recBytes) >> 2;
    this.f = (this.out + i * this.recBytes) >> 3;
    return this.event(id);
  }

  /** Record i of the current batch is an httplog line (status 2); its caller's id, and whether it is a watch begun
   * (WATCH, resp=0), are callerIdAt() and watchStartAt(). */
  isLogAt(i: number): boolean {
    return this.i32[((this.out + i * this.recBytes) >> 2) + R.STATUS] === 2;
  }
  callerIdAt(i: number): number {
    return this.i32[((this.out + i * this.recBytes) >> 2) + R.CALLER]!;
  }
  watchStartAt(i: number): boolean {
    const r = (this.out + i * this.recBytes) >> 2;
    return this.i32[r + R.VERB] === this.ids.watch && this.i32[r + R.CODE] === 0;
  }
  /** An interned string by id. */
  stringOf(id: number): string {
    return this.str(id);
  }

  /** The stage time of record i of the current batch. */
  stageMsAt(i: number): number {
    return this.f64[((this.out + i * this.recBytes) >> 3) + (O_STAGE_T >> 3)]!;
  }

  /** How the aggregator counts the current line's request (a final stage): its mark bits, or 0 when the caller counts
   * it as an event (assembly/engine.ts classify). */
  classify(): number {
    return this.x.classifyAt(this.f << 3);
  }

  /** Runs the engine over buf[from, to) without building events: what the WebAssembly alone costs (bench). */
  scanOnly(buf: Buffer, from: number, to: number): number {
    let s = from;
    let lines = 0;
    while (s < to) {
      let e = Math.min(to, s + IN_CAP);
      e = buf.lastIndexOf(10, e - 1) + 1;
      if (e <= s) break;
      this.refresh();
      this.bytes.set(buf.subarray(s, e), this.inPtr);
      s += this.x.scan(e - s, 1 << 20, 0);
      lines += this.x.lineCount();
      this.refresh();
      this.learnStrings();
    }
    return lines;
  }

  /** Decodes the strings interned by the last call. */
  private learnStrings(): void {
    const n = this.x.newsLen();
    if (n === 0) return;
    const base = this.x.newsPtr() >> 2;
    const u32 = this.i32;
    const ids = this.ids as Record<string, number>;
    for (let i = 0; i < n; i++) {
      const id = u32[base + i * 3]!;
      const p = u32[base + i * 3 + 1]! >>> 0;
      const len = u32[base + i * 3 + 2]!;
      const str = this.bytes.toString('utf8', p, p + len);
      this.strings[id] = str;
      if (len <= 15 && ids[str] === -2) ids[str] = id;
    }
  }

  private str(id: number): string {
    return id < 0 ? '' : this.strings[id]!;
  }

  private scratchString(p: number, len: number): string {
    return p < 0 ? '' : this.bytes.toString('utf8', this.scratch + p, this.scratch + p + len);
  }

  // ---- the current line's fields (during readLines' callback, for an accepted line) ----

  /** A field of the current record: an interned id (-1 absent), a code (-1 none), a count. */
  field(k: keyof typeof R): number {
    return this.i32[this.r + R[k]]!;
  }
  /** 0 RequestReceived, 1 ResponseStarted, 2 ResponseComplete, 3 Panic */
  stage(): number {
    return this.i32[this.r + R.STAGE]!;
  }
  receivedMs(): number | null {
    const t = this.f64[this.f + (O_RECEIVED >> 3)]!;
    return Number.isNaN(t) ? null : t;
  }
  stageMs(): number | null {
    const t = this.f64[this.f + (O_STAGE_T >> 3)]!;
    return Number.isNaN(t) ? null : t;
  }
  auditID(): string {
    return this.scratchString(this.i32[this.r + R.ID_P]!, this.i32[this.r + R.ID_L]!);
  }

  // ---- the auditID dedup of a segment (assembly/dedup.ts), for admit() (aggregate/dedup.ts) ----

  /** Opens a segment's dedup state, which remembers its last `recentCap` final-stage IDs. */
  dedupOpen(recentCap: number): number {
    const s = this.x.dedupOpen(recentCap);
    this.refresh();
    return s;
  }

  /** Closes a state (its IDs are forgotten). */
  dedupClose(s: number): void {
    this.x.dedupClose(s);
  }

  /** The verdict (DEDUP_*) on the auditID of the line being handed out (readLines), which has one. */
  dedupLine(s: number, terminal: boolean): number {
    const v = this.x.dedupAdmit(s, this.scratch + this.i32[this.r + R.ID_P]!, this.i32[this.r + R.ID_L]!, terminal ? 1 : 0);
    this.refresh();
    return v;
  }

  /** The verdict (DEDUP_*) on an auditID given as a string (an event JavaScript decoded, a synthetic ID). */
  dedupString(s: number, id: string, terminal: boolean): number {
    const n = this.writeKey(id);
    const v = this.x.dedupAdmit(s, this.keyPtr, n, terminal ? 1 : 0);
    this.refresh();
    return v;
  }

  /** Forgets the open request of `id` (the caller evicted it). */
  dedupForget(s: number, id: string): void {
    const n = this.writeKey(id);
    this.x.dedupForget(s, this.keyPtr, n);
  }

  /** The state's last final-stage IDs, oldest first. */
  dedupTail(s: number): IdTail {
    const n = this.x.dedupTail(s);
    this.refresh();
    if (n === 0) return EMPTY_TAIL;
    const at = this.x.dedupTailPtr();
    const ends = new Uint32Array(this.i32.slice(at >> 2, (at >> 2) + n).buffer);
    const hashes = new Uint32Array(this.i32.slice((at >> 2) + n, (at >> 2) + 2 * n).buffer);
    const from = at + 8 * n;
    return { bytes: new Uint8Array(this.bytes.subarray(from, from + ends[n - 1]!)), ends, hashes };
  }

  /** IDs held by every open state (tests). */
  dedupLive(): number {
    return this.x.dedupLive();
  }

  private keyPtr = 0;
  /** Writes `id` where the module reads a key (id-keys.ts), and returns its length. */
  private writeKey(id: string): number {
    this.keyPtr = this.x.dedupKey(keyCapacity(id));
    this.refresh();
    return writeKey(id, this.bytes, this.keyPtr);
  }

  /** Hands the current record to the aggregator with MARK_* bits: it is counted there (enableSlots first). */
  mark(bits: number): void {
    this.i32[this.r + R.MARK] = bits;
    this.marked++;
  }

  /** The current line as an AuditEvent (under `id`, when the caller has read it already). */
  event(id?: string): AuditEvent {
    const r = this.r;
    const f = this.f;
    const i32 = this.i32;
    const S = this.strings;
    const rvClass = i32[r + R.RV_CLASS]!;
    const fs = i32[r + R.FSEL]!;
    const ls = i32[r + R.LSEL]!;
    const rvm = i32[r + R.RVM]!;
    const flags = i32[r + R.FLAGS]!;
    const query: ListQuery = {
      fieldSelector: fs < 0 ? null : S[fs]!,
      labelSelector: ls < 0 ? null : S[ls]!,
      resourceVersion: rvClass === 0 ? null : rvClass === 1 ? '0' : rvClass === 3 ? '' : this.scratchString(i32[r + R.RV_P]!, i32[r + R.RV_L]!),
      resourceVersionMatch: rvm < 0 ? null : S[rvm]!,
      limit: i32[r + R.LIMIT]!,
      continueToken: (flags & 1) !== 0,
      watch: (flags & 2) !== 0,
      sendInitialEvents: (flags & 4) !== 0,
    };
    const received = this.f64[f + (O_RECEIVED >> 3)]!;
    const stageT = this.f64[f + (O_STAGE_T >> 3)]!;
    const returned = i32[r + R.RETURNED]!;
    const remaining = this.f64[f + (O_REMAINING >> 3)]!;
    const node = i32[r + R.NODE]!;
    const code = i32[r + R.CODE]!;
    return {
      auditID: id ?? this.scratchString(i32[r + R.ID_P]!, i32[r + R.ID_L]!),
      stage: STAGES[i32[r + R.STAGE]!]!,
      level: this.str(i32[r + R.LEVEL]!),
      verb: S[i32[r + R.VERB]!]!,
      requestURI: this.scratchString(i32[r + R.URI_P]!, i32[r + R.URI_L]!),
      username: this.str(i32[r + R.USER]!),
      userAgent: this.str(i32[r + R.UA]!),
      nodeName: node < 0 ? null : S[node]!,
      resource: this.str(i32[r + R.RESOURCE]!),
      apiGroup: this.str(i32[r + R.GROUP]!),
      namespace: this.str(i32[r + R.NS]!),
      name: this.scratchString(i32[r + R.NAME_P]!, i32[r + R.NAME_L]!),
      subresource: this.str(i32[r + R.SUB]!),
      code: code < 0 ? null : code,
      receivedMs: Number.isNaN(received) ? null : received,
      stageMs: Number.isNaN(stageT) ? null : stageT,
      returnedItems: returned < 0 ? null : returned,
      remainingItems: Number.isNaN(remaining) ? null : remaining,
      tokenExpirationSeconds: null,
      leaseHolder: null,
      queryKnown: true,
      etcdLatencyMs: null,
      apfQueueWaitMs: null,
      query,
      selectorKey: (fs + 1) * 2 ** 21 + (ls + 1),
    };
  }

  /** Reads kube-apiserver's httplog lines (the engine declines them until then) with klogTimeMs' clock: `nowMs`,
   * and `year` (--syslog-year) or null to infer it (src/decode/apiserver-log.ts). */
  setKlogClock(nowMs: number, year: number | null): void {
    this.x.setKlogClock(nowMs, new Date(nowMs).getUTCFullYear(), year ?? NaN);
  }

  /** The current line, an httplog line (EngineLine.log), as the request record the apiserver log's reader makes of it
   * (ApiserverLogReader.record: evidence httplog, no user), under `id` when given; and its klog caller. */
  logEvent(id?: string): AuditEvent {
    const e = this.event(id);
    const i32 = this.i32;
    const r = this.r;
    e.evidence = 'httplog';
    const wait = this.f64[this.f + (O_APF_WAIT >> 3)]!;
    e.apfQueueWaitMs = Number.isNaN(wait) ? null : wait;
    const src = this.str(i32[r + R.SRCIP]!);
    if (src.length > 0) e.srcIP = src;
    const fs = this.str(i32[r + R.APF_FS]!);
    if (fs.length > 0) {
      e.apfFlowSchema = fs;
      e.apfPriorityLevel = this.str(i32[r + R.APF_PL]!);
    }
    return e;
  }

  /** The klog caller of the current httplog line ("httplog.go:132"). */
  logCaller(): string {
    return this.str(this.i32[this.r + R.CALLER]!);
  }

  // ---- the aggregator (slots.ts) ----

  /** Sets up the aggregator's tables: buckets of `bucketMs` for the shared series, of `clientMs` for the clients'
   * (a multiple of bucketMs), and the latency edges (latencyEdges[j]: the least latency in bucket 100 + j). */
  enableSlots(bucketMs: number, clientMs: number, latencyEdges: Float64Array, fingerprint = false): void {
    this.x.slotsFingerprint(fingerprint ? 1 : 0);
    if (this.slotWidths !== null && this.slotWidths[0] === bucketMs && this.slotWidths[1] === clientMs) return;
    const at = this.x.slotsSetup(MAX_SLOTS, PAIR_CAP, SAMPLE_CAP, latencyEdges.length, bucketMs, clientMs);
    this.refresh();
    this.f64.set(latencyEdges, at >> 3);
    this.slotWidths = [bucketMs, clientMs];
  }

  /** The module's copy-fingerprint hashes of an ASCII string (src/aggregate/fingerprint.ts hash2), for the tests. */
  fingerprintHash(s: string): [number, number] {
    const at = this.x.scratchPtr();
    this.refresh();
    const n = this.bytes.write(s, at, 'latin1');
    this.x.fpHash(at, n);
    return [this.x.fpHash1() >>> 0, this.x.fpHash2() >>> 0];
  }

  get slotsEnabled(): boolean {
    return this.slotWidths !== null;
  }

  /** Counts the marked records of the batch; when a table fills, the host folds (onSlotsFull) and counting goes on. */
  private countMarked(out: number, n: number): void {
    let from = 0;
    for (;;) {
      from = this.x.countRecords(out, n, this.recBytes, this.scratch, from);
      if (from >= n) return;
      // a table is full: the host folds what the slots hold, and they start again
      if (this.onSlotsFull === null) throw new Error('LineEngine: the aggregator is full and no one folds it');
      this.onSlotsFull();
    }
  }

  /** true when the aggregator holds requests not folded yet. */
  get slotsPending(): boolean {
    return this.slotWidths !== null && this.x.slotsLen() > 0;
  }

  /** Reads the aggregator's slots, clients and pairs out, and empties them (the pairs valid until the next drain). */
  drainSlots(): SlotTables {
    const x = this.x;
    const n = x.slotsLen();
    const nc = x.clientsLen();
    const np = x.pairsCompact();
    this.refresh();
    // One loop a method: V8 optimizes a hot loop on its own (on-stack replacement), and a later loop of the same
    // function, which had not run yet, had no type feedback: it deoptimized the whole function when it was
    // reached, and each of the few drains of a segment compiled the function again (5 times in a 1 GB gzip scan).
    const slots = this.readSlots(n);
    const clients = this.readClients(nc);
    const pairs = this.readPairs(np);
    x.slotsReset();
    return { slots, clients, pairs };
  }

  private readSlots(n: number): Slot[] {
    const x = this.x;
    const i32 = this.i32;
    const f64 = this.f64;
    const slotBytes = x.SLOT_BYTES.value as number;
    const base = x.slotsPtr();
    const samples = x.samplesPtr();
    const slots: Slot[] = [];
    const str = (id: number): string => (id < 0 ? '' : this.strings[id]!);
    const orNull = (id: number): string | null => (id < 0 ? null : this.strings[id]!);
    for (let i = 0; i < n; i++) {
      const p = base + i * slotBytes;
      const k = p >> 2;
      const d = p >> 3;
      const flags = i32[k + 12]!;
      const code = i32[k + 13]!;
      const sp = i32[(p + S.SAMPLE_P) >> 2]!;
      const sl = i32[(p + S.SAMPLE_L) >> 2]!;
      slots.push({
        bits: i32[k]!,
        verb: str(i32[k + 1]!),
        userAgent: str(i32[k + 2]!),
        username: str(i32[k + 3]!),
        nodeName: orNull(i32[k + 4]!),
        resource: str(i32[k + 5]!),
        apiGroup: str(i32[k + 6]!),
        namespace: str(i32[k + 7]!),
        fieldSelector: orNull(i32[k + 8]!),
        labelSelector: orNull(i32[k + 9]!),
        fieldSelectorId: i32[k + 8]!,
        labelSelectorId: i32[k + 9]!,
        rvClass: i32[k + 10]!,
        resourceVersionMatch: orNull(i32[k + 11]!),
        limited: (flags & 8) !== 0,
        continueToken: (flags & 1) !== 0,
        watch: (flags & 2) !== 0,
        sendInitialEvents: (flags & 4) !== 0,
        code: code < 0 ? null : code,
        log: i32[k + 14] === 1,
        flowSchema: str(i32[k + 15]!),
        priorityLevel: str(i32[k + 16]!),
        requests: i32[(p + S.COUNT) >> 2]!,
        firstMs: f64[d + (S.FIRST >> 3)]!,
        lastMs: f64[d + (S.LAST >> 3)]!,
        returnedN: i32[(p + S.RET_N) >> 2]!,
        returnedSum: f64[d + (S.RET_SUM >> 3)]!,
        returnedMax: f64[d + (S.RET_MAX >> 3)]!,
        fullList: f64[d + (S.FULL >> 3)]!,
        latencyN: i32[(p + S.LAT_N) >> 2]!,
        latencyMin: f64[d + (S.LAT_MIN >> 3)]!,
        latencyMax: f64[d + (S.LAT_MAX >> 3)]!,
        sampleMs: f64[d + (S.SAMPLE_MS >> 3)]!,
        sampleUri: sl > 0 ? this.bytes.toString('utf8', samples + sp, samples + sp + sl) : '',
        client: i32[(p + S.CLIENT) >> 2]!,
      });
    }
    return slots;
  }

  private readClients(nc: number): Array<[string, string]> {
    const i32 = this.i32;
    const clients: Array<[string, string]> = [];
    const cb = this.x.clientsPtr() >> 2;
    for (let i = 0; i < nc; i++) {
      const ua = i32[cb + i * 2]!;
      const user = i32[cb + i * 2 + 1]!;
      clients.push([ua < 0 ? '' : this.strings[ua]!, user < 0 ? '' : this.strings[user]!]);
    }
    return clients;
  }

  private readPairs(np: number): SlotTables['pairs'] {
    const i32 = this.i32;
    const f64 = this.f64;
    // The pair arrays are kept for the next drain (valid until then): a drain of a full table made 5 MB of them,
    // and a segment drains several times; as garbage they held 20–35 MB of a scan's peak RSS.
    let pairs = this.pairBuf;
    if (pairs === null || pairs.id.length < np) {
      const cap = Math.max(np, 1024);
      pairs = this.pairBuf = { n: 0, id: new Uint32Array(cap), kind: new Uint32Array(cap), key: new Float64Array(cap), count: new Uint32Array(cap) };
    }
    pairs.n = np;
    const pb = this.x.pairsPtr();
    for (let i = 0; i < np; i++) {
      const p = pb + i * 24;
      pairs.id[i] = i32[p >> 2]!;
      pairs.kind[i] = i32[(p >> 2) + 1]!;
      pairs.key[i] = f64[(p + 8) >> 3]!;
      pairs.count[i] = i32[(p >> 2) + 4]!;
    }
    return pairs;
  }
}

/** Gives `state` the engine when `choice` is "wasm"; returns a note for stderr when it cannot (the JavaScript
 * path then reads every line), or null. */
export function attachEngine(state: { engine: LineEngine | null }, choice: 'wasm' | 'js'): string | null {
  if (choice === 'js') return null;
  const r = loadEngine();
  state.engine = r.engine;
  return r.engine === null ? `audit-scan: the compiled engine is not available (${r.reason}); reading every line in JavaScript, which is slower` : null;
}
