/*! One job: ScanState, a scan's state and the coordinator of its counting. Fed one line or one JSON value at a
 * time, it keeps the current segment and hands what a line carries on: to the decoder (decode/line-decoder.ts), the
 * segment's dedup (dedup.ts) and timing (timing.ts), the counts of admitted requests (request-counts.ts) and of the
 * compiled aggregator (slot-fold.ts), and etcd's lines (etcd-lines.ts); reconcile() joins segments in input order.
 * Per-line work touches only this state, so a worker can own one ScanState per byte range and merge them at the
 * end. The shapes it hands out and takes back are in state-types.ts, an input's counts in input-stats.ts (both
 * re-exported here). */

import type { AuditEvent } from '../model/audit-event.js';
import { joinLogRecords } from '../decode/apiserver-log-reader.js';
import type { VersionEvidenceCollector } from '../model/kube-version.js';
import { LineDecoder, newDecodeSegment, type DecodeSegment, type DecodeSink, type SkipListener } from '../decode/line-decoder.js';
import { OPEN_NONE, type EngineLine, type LineEngine } from '../decode/engine/engine.js';
import type { ReadGroups } from './read-groups.js';
import type { EtcdReads, EtcdRead } from './etcd-reads.js';
import type { LogEvidence } from './log-evidence.js';
import { EtcdLines } from './etcd-lines.js';
import { EARLIEST_PLAUSIBLE_MS, FUTURE_SLACK_MS, implausibleAtIngest, sketchAdd } from './plausible.js';
import { closeDedup, CrossSegmentDedup, DROP, HEAD, HEAD_SLACK_MS, HOLD, holdOpen, MAX_PENDING, RECENT_TERMINALS, type SegmentDedup } from './dedup.js';
import { EngineRecord, EventRecord, plainEngineLine, type RequestRecord } from './request-record.js';
import { RequestCounts } from './request-counts.js';
import { SlotFold } from './slot-fold.js';
import { InputTimes, leaseSign, restartSign, segmentTiming, timeOf, timeRun, type SegmentTimes } from './timing.js';
import { newSpacingHistogram } from './gaps.js';
import { type InputStats, addInputStats, newInputStats, touchTime } from './input-stats.js';
import { bump, type ScanSink, NO_ID, type Counters, type TimeOptions, DEFAULT_TIME_OPTIONS, type TimeState, MAX_NAMED_APISERVERS, type SegmentResult, type StateSnapshot, type SuspendedSegment, type EtcdSlowAgg } from './state-types.js';
export * from './input-stats.js';
export * from './state-types.js';

/** One consecutive piece of one input: a whole file, or one worker's byte range or chunk of it. Dedup state
 * is per segment; reconcile() joins segments in input order, so a split never changes a count. */
interface Segment extends SegmentTimes, SegmentDedup {
  inputIndex: number;
  /** unique in the whole scan, also across workers: the prefix of this segment's synthetic auditIDs */
  key: string;
  input: InputStats; // this segment's counts, added to the input's at reconcile()
  etcd: EtcdReads;
  /** the decoder's state between this segment's lines (a split line's parts, a CSV export's column) */
  decode: DecodeSegment;
}

export class ScanState {
  readonly inputs: InputStats[] = [];
  /** the counts of admitted requests (request-counts.ts): these fields are its aggregates */
  private readonly counts: RequestCounts;
  readonly groups: ReadGroups;
  readonly versions: VersionEvidenceCollector;
  /** Every node name seen anywhere (kubelet users, node-name extras, selectors, node objects). */
  readonly clusterNodes: Set<string>;
  /** resource key → most objects seen in one unfiltered, complete list response (RequestResponse level). */
  readonly fullListObjects: Map<string, number>;
  readonly counters: Counters;
  /** time: every counted request, TokenRequests, lists per resource, and per input lists and watch ends */
  readonly time: TimeState;
  readonly userAgents: Map<string, number>;
  /** the apiserver log's requests when they stand beside an audit log (timeOptions.logAsEvidence) */
  readonly logEvidence: LogEvidence;
  /** etcd's own lines (etcd-lines.ts): its reads, version, slow-request thresholds, slowness without a read */
  private readonly etcdLines: EtcdLines;
  readonly etcd: EtcdReads;
  readonly etcdVersions: Map<string, number>;
  readonly etcdSlow: Map<string, EtcdSlowAgg>;
  readonly etcdThresholds: Map<number, number>;
  /** the timing across segments: gaps, spacing, restart signs, far times (timing.ts) */
  private readonly times: InputTimes;

  private segment: Segment | null = null;
  private segmentsBegun = 0;
  private syntheticIds = 0;
  private readonly syntheticId = (): string => `${NO_ID}${this.cur().key}.${++this.syntheticIds})`;
  /** the dedup across segments: requests left open, final events of a segment's head, each input's look-back */
  private readonly across: CrossSegmentDedup;
  private readonly countAt = (e: AuditEvent, input?: number): void => this.countRequest(e, input);

  constructor(
    /** kube-apiserver's --etcd-prefix, or null to infer it per key */
    readonly etcdPrefix: string | null,
    onSkip: SkipListener | null = null,
    maxGroups?: number,
    readonly timeOptions: TimeOptions = DEFAULT_TIME_OPTIONS,
  ) {
    this.decoder = new LineDecoder(this.decodeSink, timeOptions.nowMs, timeOptions.syslogYear ?? null, onSkip);
    const c = (this.counts = new RequestCounts(maxGroups, timeOptions));
    this.groups = c.groups;
    this.versions = c.versions;
    this.clusterNodes = c.clusterNodes;
    this.fullListObjects = c.fullListObjects;
    this.counters = c.counters;
    this.time = c.time;
    this.userAgents = c.userAgents;
    this.logEvidence = c.logEvidence;
    this.etcdLines = new EtcdLines(etcdPrefix, timeOptions, this.counters);
    this.etcd = this.etcdLines.reads;
    this.etcdVersions = this.etcdLines.versions;
    this.etcdSlow = this.etcdLines.slow;
    this.etcdThresholds = this.etcdLines.thresholds;
    this.times = new InputTimes(this.time, this.counters, timeOptions.gapMs);
    this.across = new CrossSegmentDedup(this.counters);
    this.slots = new SlotFold(c, timeOptions);
  }

  /** Sends every counted request and finished etcd read to `sink` as well (single-threaded scans only). */
  setSink(sink: ScanSink): void {
    this.counts.sink = sink;
    this.etcdLines.setSink(sink);
  }

  /** Adds a finished etcd read directly (scan --db reads them back from the store). */
  addEtcdRead(r: EtcdRead): void {
    this.etcd.emit(r);
  }

  /** follow mode: segments of different inputs are reconciled in turn, so every input keeps its look-back */
  get interleaved(): boolean {
    return this.across.interleaved;
  }
  set interleaved(v: boolean) {
    this.across.interleaved = v;
  }

  /** Registers an input; returns its index (for segments read elsewhere, e.g. by workers). */
  addInput(name: string): number {
    this.inputs.push(newInputStats(name));
    return this.inputs.length - 1;
  }

  /** Starts a segment of input `inputIndex`; lines are attributed to it until endSegment(). A worker passes
   * `key` (from the pool's segment sequence) so that events without an auditID get names no other thread uses:
   * otherwise one worker's open request would be taken as completed by another's, and the count would depend
   * on the thread count. */
  beginSegment(inputIndex: number, name: string, key = `m${this.segmentsBegun++}`, beforeMs: number | null = null): InputStats {
    // counts held across segments belong to the input they were read from
    if (this.slots.input !== inputIndex) this.foldSlots();
    this.slots.input = inputIndex;
    const input = newInputStats(name);
    const dedupEngine = this.engine !== null && process.env.AUDIT_SCAN_DEDUP !== 'js' ? this.engine : null;
    this.segment = {
      inputIndex,
      key,
      input,
      startMs: null,
      beforeMs,
      etcd: this.etcdLines.segmentReads(),
      pending: new Map(),
      dedupEngine,
      dedup: dedupEngine === null ? -1 : dedupEngine.dedupOpen(RECENT_TERMINALS),
      recent: new Set(),
      recentRing: dedupEngine === null ? new Array(RECENT_TERMINALS) : [],
      recentPos: 0,
      head: new Map(),
      firstT: null,
      // Gaps and spacing are measured from the segment's own first event; reconcile() measures its first events
      // again from the latest time before the cut, which only it knows exactly (beforeMs is a look-behind's guess).
      lastT: null,
      gaps: [],
      spacing: newSpacingHistogram(),
      headTimes: [],
      headGaps: [],
      headDropped: false,
      signs: [],
      leases: new Map(),
      decode: newDecodeSegment(),
      streams: new Map(),
      namedOverflow: 0,
    };
    this.decoder.seg = this.segment.decode;
    // the engine reads the apiserver log's httplog lines too, with the decoder's clock (klog writes no year)
    if (this.engine !== null && process.env.AUDIT_SCAN_ENGINE_KLOG !== '0') this.engine.setKlogClock(this.timeOptions.nowMs, this.timeOptions.syslogYear ?? null);
    return input;
  }

  /** Ends the current segment; its finished etcd reads go to this state's aggregates. `withTail`: list its last
   * final-stage IDs for the next segment's look-back (not needed when no segment of the input follows). */
  endSegment(withTail = true): SegmentResult {
    const g = this.cur();
    this.decoder.endSegment();
    // (the copy fingerprint's cells are the segment's input stats', posted with its result)
    if (!this.foldLate || this.timeOptions.fingerprint === true) this.foldSlots();
    // An engine event's selectorKey names strings of the engine that read it; the events counted at reconcile()
    // may come from another thread's engine, so they are described from their selectors.
    for (const e of g.head.values()) delete e.selectorKey;
    for (const e of g.pending.values()) delete e.selectorKey;
    const edges = this.etcdLines.endSegment(g.etcd);
    this.segment = null;
    const tail = closeDedup(g, withTail);
    return { inputIndex: g.inputIndex, input: g.input, leftovers: g.pending, head: g.head, tail, etcdEdges: edges, timing: segmentTiming(g) };
  }

  /** Adds a finished segment to the scan. Call in input order, segment by segment. */
  reconcile(r: SegmentResult): void {
    const inp = this.inputs[r.inputIndex]!;
    addInputStats(inp, r.input);
    this.across.reconcile(r, inp, this.countAt);
    this.etcdLines.reconcile(r.inputIndex, r.etcdEdges);
    this.times.reconcile(r.inputIndex, r.timing);
  }

  /** Follow mode: takes the current segment out, so that another input's can be begun or resumed; resumeSegment()
   * puts it back. A segment read in turns counts as one read at once. */
  suspendSegment(): SuspendedSegment {
    const g = this.cur();
    this.foldSlots(); // the aggregator's counts are the segment's input's
    this.segment = null;
    return g as unknown as SuspendedSegment;
  }

  resumeSegment(s: SuspendedSegment): void {
    if (this.segment !== null) throw new Error('ScanState: a segment is already current');
    this.segment = s as unknown as Segment;
    this.decoder.seg = this.segment.decode;
  }

  /** true when the current segment holds the first part of a line a runtime split, or the apiserver log's record
   * of several lines not yet ended: a cut here would count it as truncated, so follow mode does not end the segment
   * yet. */
  get segmentHoldsPart(): boolean {
    const d = this.cur().decode;
    // (or an apiserver log's trace block whose lines are still coming)
    return d.partial !== null || d.apiserver?.holdsOpen === true;
  }

  /** Single-stream convenience: registers an input and begins its only segment. */
  beginInput(name: string): InputStats {
    const i = this.addInput(name);
    return this.beginSegment(i, name);
  }

  /** The current segment is a CloudWatch Logs Insights CSV export whose @message is column `column`; its first
   * line is the header. */
  setCsv(column: number): void {
    this.cur().decode.csvColumn = column;
  }

  /** true when the current segment is a Logs Insights CSV export (read line by line in JavaScript). */
  get csvMode(): boolean {
    return this.segment !== null && this.segment.decode.csvColumn !== null;
  }

  /** Ends the input begun with beginInput(). */
  endInput(): void {
    if (this.segment === null) return;
    this.reconcile(this.endSegment(false)); // the input's only segment: no look-back is needed after it
  }

  /** Ends the scan: closes every input's last etcd tail, and counts requests that never showed a final stage
   * (cut logs, long watches) unless a later segment completed them. */
  finishPending(): void {
    this.etcdLines.finish();
    this.across.finish(this.countAt);
    this.times.excludeFarTimes(this.inputs, this.groups);
  }

  /** The aggregates, for posting from a worker. */
  snapshot(): StateSnapshot {
    if (this.segment === null) this.foldSlots();
    return {
      groups: this.groups.groups,
      groupOverflow: this.groups.overflow,
      etcd: { aggs: this.etcd.aggs, clientReads: this.etcd.clientReads, internalReads: this.etcd.internalReads, internalByReason: this.etcd.internalByReason, prefixes: this.etcd.prefixes, zapSeconds: this.etcd.zapSeconds },
      versions: this.versions.list(),
      etcdVersions: this.etcdVersions,
      etcdSlow: this.etcdSlow,
      etcdThresholds: this.etcdThresholds,
      clusterNodes: this.clusterNodes,
      fullListObjects: this.fullListObjects,
      counters: this.counters,
      userAgents: this.userAgents,
      time: this.time,
      logEvidence: { entries: this.logEvidence.entries, overflow: this.logEvidence.overflow },
    };
  }

  /** Folds a worker's aggregates into this state. Order-independent. */
  mergeSnapshot(o: StateSnapshot): void {
    this.counts.merge(o);
    this.etcd.merge(o.etcd);
    this.etcdLines.merge(o);
  }

  private cur(): Segment {
    if (this.segment === null) throw new Error('ScanState: no segment begun');
    return this.segment;
  }

  /** Records a line of input `inputIndex` too long to hold, found by a stream reader outside any segment (the
   * same count and reason a segment's LineSplitter gives). */
  skipLongLine(inputIndex: number, bytes: number): void {
    const inp = this.inputs[inputIndex]!;
    inp.lines++;
    inp.skippedLines++;
    bump(inp.skipReasons, `line too long (${bytes} bytes)`);
  }
  /** The decoder (decode/line-decoder.ts), whose sink this state is: what a line carries comes back here. */
  private readonly decoder: LineDecoder;
  private readonly decodeSink: DecodeSink = {
    counts: () => this.cur().input,
    auditEvent: (e, apiserver) => {
      if (apiserver !== null) {
        const g = this.cur();
        if (g.streams.has(apiserver) || g.streams.size < MAX_NAMED_APISERVERS) e.apiserver = apiserver;
        else g.namedOverflow++;
      }
      this.addRequest(new EventRecord(e));
    },
    etcdEntry: (e) => {
      const g = this.cur();
      this.etcdLines.add(e, g.input, g.etcd);
    },
    restartSign: (t, what) => restartSign(this.cur(), t, what, this.timeOptions.nowMs),
    syntheticId: () => this.syntheticId(),
  };

  /** Accounts one physical line: the decoder classifies it and feeds what it carries. `terminated` = ended in a
   * newline. */
  addLine(lineNo: number, raw: string, terminated: boolean, repaired: boolean): void {
    this.cur();
    this.decoder.addLine(lineNo, raw, terminated, repaired);
  }

  /** Records a line that could not be delivered whole (too long, unreadable tail). */
  skipRawLine(lineNo: number, reason: string, excerpt: string): void {
    this.cur();
    this.decoder.skipRawLine(lineNo, reason, excerpt);
  }

  /** Counts a line of a file that is known not to be a log (must-gather's timestamp, its listings). */
  addOtherLine(what: string): void {
    this.cur();
    this.decoder.addOtherLine(what);
  }

  /** Accounts one whole JSON document, or one element of a streamed batch (`batchKey` names its array). */
  addDocumentValue(where: string, v: unknown, batchKey: string | null = null): void {
    this.cur();
    this.decoder.addDocumentValue(where, v, batchKey);
  }

  /** Document mode counts physical lines once, at the end. */
  setDocumentLines(n: number): void {
    this.cur().input.lines = n;
  }

  /** Records that a document-mode input ended in the middle of a document. */
  skipDocumentTail(where: string, reason: string): void {
    this.cur();
    this.decoder.skipDocumentTail(where, reason);
  }

  /** Leaves a time that cannot be real out of the time analysis (the fixed rule; see plausible.ts), counting it. */
  private plausibleOrNull(inp: InputStats, t: number | null): number | null {
    if (t === null) return null;
    const k = implausibleAtIngest(t, this.timeOptions.nowMs);
    if (k === null) return t;
    this.lastImplausible = k;
    return null;
  }
  private lastImplausible = '';

  /** The compiled line engine this state's lines are read with, or null (src/decode/engine/engine.ts). */
  engine: LineEngine | null = null;

  /** the engine's current line as a request record (request-record.ts), set anew for each line */
  private readonly engineRecord = new EngineRecord();

  /** Accounts one physical line the engine read as an audit event (during LineEngine.readLines' callback): the
   * same counts as addLine() gives it. Its request goes through the one door, addRequest(): as the engine's
   * record when the compiled aggregator can count it and it needs nothing of the host (plainEngineLine), else as
   * its AuditEvent, as the JavaScript path's do. */
  addEngineLine(l: EngineLine): void {
    if (l.log) {
      this.addEngineLogLine(l);
      return;
    }
    const eng = this.engine!;
    const g = this.cur();
    g.input.lines++;
    g.input.engineRead++;
    const r = this.engineRecord.set(eng, l, l.missingId ? this.syntheticId() : null);
    this.addRequest(this.slots.usable(eng, this.foldSlotsNow) && plainEngineLine(r, eng) ? r : new EventRecord(r.event(), l.verdict));
  }

  /** Whether the engine's record of an httplog line may stand for the line now: not while the apiserver log's
   * reader holds what the line may complete (a trace block, a trace or timeout waiting for its httplog line, a
   * value of several lines, a wrapped line's first part), nor inside a CSV export or a runtime's split line. Else
   * segment/feed.ts gives the line to the JavaScript path. */
  takesLogLine(): boolean {
    return this.decoder.engineMayTake();
  }

  /** An httplog line the engine read: counted as the decoder counts it (a klog line of the apiserver's log, an
   * httplog request), and its request handed on as the reader hands it (ApiserverLogReader.httplogRequest). */
  private addEngineLogLine(l: EngineLine): void {
    const eng = this.engine!;
    const g = this.cur();
    g.input.lines++;
    g.input.engineRead++;
    const verb = eng.field('VERB');
    this.decoder.engineHttplog(eng.logCaller(), eng.stageMs()!, verb === eng.ids.watch && eng.field('CODE') === 0);
    const e = eng.logEvent();
    if (l.missingId) e.auditID = this.syntheticId();
    // (admitFast stopped here after the module's dedup: its verdict stands)
    this.addRequest(new EventRecord(e, l.verdict));
  }

  /** The engine lines of the current batch from record i on that the module admits without this state (LineEngine
   * admitRange: final events counted now, or dropped as copies), with what addEngineLine does for them here in
   * order (counts, timing); returns the first record left to addEngineLine. Off where the aggregator is off, and
   * for a segment whose dedup is in JavaScript. */
  engineFast(i: number, n: number): number {
    const eng = this.engine!;
    const g = this.cur();
    if (g.dedupEngine !== eng || !this.slots.usable(eng, this.foldSlotsNow)) return i;
    // the earlier stages it may hold: never so many that holdOpen() would evict one (that counts a request)
    const room = MAX_PENDING - g.pending.size;
    // the apiserver log's httplog lines too, when no line may complete what the host holds (a trace waiting, an
    // open request) and they are counted (not evidence beside an audit log)
    const logOk = g.pending.size === 0 && this.timeOptions.logAsEvidence !== true && this.decoder.engineMayTake();
    const j = eng.admitRange(i, n, g.dedup, g.beforeMs ?? NaN, g.startMs ?? NaN, HEAD_SLACK_MS, EARLIEST_PLAUSIBLE_MS, this.timeOptions.nowMs + FUTURE_SLACK_MS, room, logOk);
    if (j === i) return i;
    const k = j - i;
    g.input.lines += k;
    g.input.engineRead += k;
    g.input.auditEvents += k - (logOk ? this.logRun(eng, i, j) : 0);
    g.input.duplicateEvents += eng.fastDups();
    // the open requests, in line order as addEngineLine changes them: an earlier stage held (HOLD), a final event
    // that completed a held one (admitVerdict() drops it)
    const opens = eng.fastOpens();
    for (let o = 0; o < opens; o++) {
      const r = eng.fastOpenAt(o);
      if (r === OPEN_NONE) continue;
      if (r >= 0) g.pending.delete(eng.auditIDAt(r));
      else {
        const id = eng.auditIDAt(~r);
        this.holdOpen(g, id, eng.eventAt(~r, id));
      }
    }
    timeRun(g, eng, i, j, this.timeOptions.gapMs);
    return j;
  }

  /** What the decoder counts of the httplog lines among the admitted records i..j-1 (addEngineLogLine's counts, a
   * run at once); returns how many there were. */
  private logRun(eng: LineEngine, i: number, j: number): number {
    let lines = 0;
    let watchStarts = 0;
    let latest = -Infinity;
    let caller = -1;
    let callerLines = 0;
    for (let r = i; r < j; r++) {
      if (!eng.isLogAt(r)) continue;
      lines++;
      const t = eng.stageMsAt(r);
      if (t > latest) latest = t;
      if (eng.watchStartAt(r)) watchStarts++;
      const c = eng.callerIdAt(r);
      if (c !== caller) {
        if (callerLines > 0) this.decoder.engineHttplogRun(eng.stringOf(caller), callerLines, 0, latest);
        caller = c;
        callerLines = 0;
      }
      callerLines++;
    }
    if (callerLines > 0) this.decoder.engineHttplogRun(eng.stringOf(caller), callerLines, watchStarts, latest);
    return lines;
  }

  /** the compiled aggregator's counts, folded into `counts` (slot-fold.ts) */
  private readonly slots: SlotFold;
  private readonly foldSlotsNow = (): void => this.foldSlots();
  /** A scan lane's state (a worker's, the main thread's lane): the aggregator's counts stay in it from segment to
   * segment of an input, folded when its tables fill, when a segment of another input begins, and for snapshot().
   * A gzip or stdin stream was cut into a segment every 8 MB (now a run of 16 such chunks), and folding each one's
   * slots (a few thousand objects made and merged, for a few thousand lines) took a tenth of a worker's time. Off
   * for the scan's own state, whose aggregates the report reads once its inputs end. */
  foldLate = false;

  /** Folds what the compiled aggregator counted into this state's aggregates (slot-fold.ts), and empties it. Called
   * when a segment ends or is suspended, when the aggregator's tables fill, and for snapshot(). */
  private foldSlots(): void {
    const eng = this.engine;
    if (eng === null || !eng.slotsPending) return;
    const input = this.segment?.inputIndex ?? this.slots.input!;
    this.slots.fold(eng, input, this.statsOf(input));
  }

  /** Notes a line of an engine-read segment that the engine left to the JavaScript path. */
  noteEngineDeclined(): void {
    this.cur().input.engineDeclined++;
  }

  /** The one door for requests: a request record (request-record.ts) from any decoder is deduped by auditID across
   * its stages, timed, and counted once. */
  addRequest(r: RequestRecord): void {
    const g = this.cur();
    // (a request of the apiserver's own log is counted in the input's apiserverLog, by kind)
    if (r.evidence === undefined) g.input.auditEvents++;
    const rec = this.plausibleOrNull(g.input, r.receivedMs);
    const st = this.plausibleOrNull(g.input, r.stageMs);
    if (rec !== r.receivedMs || st !== r.stageMs) {
      // The event still counts, without its times; an engine record becomes its AuditEvent (the module's verdict
      // is only ever of a line with plausible times: admitFast).
      r = r instanceof EventRecord ? r.withTimes(rec ?? st, st) : new EventRecord({ ...r.event(), receivedMs: rec ?? st, stageMs: st });
      g.input.implausibleTimes++;
      bump(g.input.implausibleKinds, this.lastImplausible);
    }
    const t = r.stageMs ?? r.receivedMs;
    const terminal = r.terminal;
    // A trace or timeout of the apiserver's log held for its httplog line is one request with that line, not an
    // event of its own in the stream's spacing and gaps (an audit log's one event a request): only its time counts.
    if (t !== null && r.evidence !== undefined && !terminal) {
      touchTime(g.input, t);
      sketchAdd(g.input.sketch, t);
    } else if (t !== null) timeOf(g, t, r.apiserver, this.timeOptions.gapMs);
    // a request of the apiserver's log whose trace (or timeout) is held open: its httplog line takes what it said
    const held = r.evidence !== undefined && terminal && g.pending.size > 0 ? g.pending.get(r.id()) : undefined;
    // (the apiserver log writes a request's trace just before its httplog line: whether the line may pair with a
    // record of the segment before goes by when it was written, not by when the request began, or every watch of
    // a segment, begun minutes before, would be held for the segment before)
    const v = r.admit(g, r.evidence === undefined ? r.receivedMs : (r.stageMs ?? r.receivedMs));
    if (v === DROP) return;
    if (held?.evidence !== undefined) joinLogRecords(r.event(), held);
    if (t !== null && r.identityLease()) leaseSign(g, r.event(), t);
    if (v === HEAD) g.head.set(r.id(), r.event());
    else if (v === HOLD) this.holdOpen(g, r.id(), r.event());
    else r.count(this.countAt);
  }

  /** addRequest() of an AuditEvent (the store's rows, tests). */
  addAuditEvent(e: AuditEvent): void {
    this.addRequest(new EventRecord(e));
  }

  /** Holds an open request of segment `g` (holdOpen); one evicted past MAX_PENDING is counted as it is. */
  private holdOpen(g: Segment, id: string, e: AuditEvent): void {
    const old = holdOpen(g.pending, id, e, g, this.counters);
    if (old !== null) this.countRequest(old[1]);
  }

  /** The stats of input `idx`: the current segment's (a worker's share) or the input's own (reconcile). */
  private statsOf(idx: number): InputStats | undefined {
    return this.segment !== null && this.segment.inputIndex === idx ? this.segment.input : this.inputs[idx];
  }

  private countRequest(e: AuditEvent, inputIndex = this.segment?.inputIndex ?? -1): void {
    this.counts.count(e, inputIndex, this.statsOf(inputIndex));
  }
}
