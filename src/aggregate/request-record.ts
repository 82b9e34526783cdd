/*! One job: the request record, what every decoder hands the aggregator for one request line (ScanState's one
 * door for requests, addRequest): its two times, whether its stage is final, the apiserver a wrapper named, what
 * kind of apiserver-log evidence it is, its auditID, its dedup, and the AuditEvent it stands for. Two forms:
 * - EventRecord: an AuditEvent a JavaScript decoder made (audit lines the engine declines, `--engine js`, cloud
 *   exports, the apiserver log's reader and the engine's httplog lines, the store's rows);
 * - EngineRecord: the engine's current line (decode/engine/engine.ts), read from the module's memory only as far
 *   as the aggregator asks; it stands for its line only when the compiled aggregator can count it and its times
 *   and resource need nothing of the host (plainEngineLine, and plausible times: addRequest), else the line's
 *   AuditEvent does.
 * The engine's batch form of many such records is ScanState.engineFast over the module's admitRange and the slot
 * batch (decode/engine/slot-batch.ts), which documents how a slot maps onto what these records count. */

import type { AuditEvent } from '../model/audit-event.js';
import { isTerminalStage } from '../model/audit-event.js';
import type { EngineLine, LineEngine } from '../decode/engine/engine.js';
import { admit, admitVerdict, type Admit, type SegmentDedup } from './dedup.js';
import { isIdentityLease } from './timing.js';

export interface RequestRecord {
  readonly receivedMs: number | null;
  readonly stageMs: number | null;
  /** its stage is the request's final one (ResponseComplete, Panic; an apiserver-log request line) */
  readonly terminal: boolean;
  /** the apiserver a wrapper named for the line, if any */
  readonly apiserver: string | undefined;
  /** a request of the apiserver's own log: which kind of line it came from; undefined for an audit event */
  readonly evidence: AuditEvent['evidence'];
  /** its auditID (a synthetic one when the line had none) */
  id(): string;
  /** the segment's dedup of it (dedup.ts), `at` the time it is judged by */
  admit(g: SegmentDedup, at: number | null): Admit;
  /** whether it is a final event of an apiserver's identity lease (a restart sign) */
  identityLease(): boolean;
  /** the AuditEvent it stands for (made on the first call, for an engine record) */
  event(): AuditEvent;
  /** counts it: into the compiled aggregator's slots when it can, else as its AuditEvent through `countEvent` */
  count(countEvent: (e: AuditEvent) => void): void;
}

/** An AuditEvent as the record; `verdict`: the engine module's dedup verdict (DEDUP_*) of its line when the
 * module admitted it already (an httplog line), -1: not yet. */
export class EventRecord implements RequestRecord {
  readonly receivedMs: number | null;
  readonly stageMs: number | null;
  readonly terminal: boolean;
  readonly apiserver: string | undefined;
  readonly evidence: AuditEvent['evidence'];
  constructor(
    private readonly e: AuditEvent,
    private readonly verdict = -1,
  ) {
    this.receivedMs = e.receivedMs;
    this.stageMs = e.stageMs;
    this.terminal = isTerminalStage(e.stage);
    this.apiserver = e.apiserver;
    this.evidence = e.evidence;
  }
  id(): string {
    return this.e.auditID;
  }
  admit(g: SegmentDedup, at: number | null): Admit {
    return this.verdict >= 0 ? admitVerdict(g, this.verdict, this.terminal, at, this.e.auditID) : admit(g, this.e.auditID, this.terminal, at);
  }
  identityLease(): boolean {
    return this.terminal && isIdentityLease(this.e);
  }
  event(): AuditEvent {
    return this.e;
  }
  count(countEvent: (e: AuditEvent) => void): void {
    countEvent(this.e);
  }
  /** The same record with other times (the event copied: the caller's object may be shared, as the store's rows). */
  withTimes(receivedMs: number | null, stageMs: number | null): EventRecord {
    return new EventRecord({ ...this.e, receivedMs, stageMs }, this.verdict);
  }
}

/** The engine's current line as the record: one per ScanState, set anew for each line (set()). */
export class EngineRecord implements RequestRecord {
  receivedMs: number | null = null;
  stageMs: number | null = null;
  // Stryker disable next-line BooleanLiteral: set() sets it before any read
  terminal = false;
  readonly apiserver = undefined;
  readonly evidence = undefined;
  private eng!: LineEngine;
  // Stryker disable next-line UnaryOperator: set() sets it before any read
  private verdict = -1;
  /** the synthetic auditID of a line without one, else null (the line's own, read from the module when asked) */
  private synthetic: string | null = null;
  private idString: string | null = null;
  private made: AuditEvent | null = null;

  set(eng: LineEngine, l: EngineLine, synthetic: string | null): this {
    this.eng = eng;
    this.verdict = l.verdict;
    this.synthetic = synthetic;
    this.idString = synthetic;
    this.made = null;
    this.receivedMs = eng.receivedMs();
    this.stageMs = eng.stageMs();
    this.terminal = eng.stage() >= 2;
    return this;
  }
  id(): string {
    return (this.idString ??= this.eng.auditID());
  }
  admit(g: SegmentDedup, at: number | null): Admit {
    // (admitFast stopped at this line after the module's dedup: its verdict stands)
    // Stryker disable next-line EqualityOperator: a verdict of 0 (a copy dropped) asked of the module again is a copy again
    if (this.verdict >= 0) return admitVerdict(g, this.verdict, this.terminal, at, null);
    // the module dedups its own line's ID without reading it as a string
    // Stryker disable next-line ConditionalExpression: false: the same ID as a string, through the same module (dedupString)
    if (this.synthetic === null && g.dedupEngine === this.eng) return admitVerdict(g, this.eng.dedupLine(g.dedup, this.terminal), this.terminal, at, null);
    return admit(g, this.id(), this.terminal, at);
  }
  identityLease(): boolean {
    return false; // (plainEngineLine: a line of kube-system's leases goes as its AuditEvent)
  }
  event(): AuditEvent {
    // Stryker disable next-line ConditionalExpression: a cache; addRequest asks an engine record for its event once
    if (this.made === null) {
      this.made = this.eng.event();
      if (this.synthetic !== null) this.made.auditID = this.synthetic;
    }
    return this.made;
  }
  count(countEvent: (e: AuditEvent) => void): void {
    // the module's rule (assembly/engine.ts classify): what the aggregator counts, and how; 0: an event here, for
    // no objectRef resource (the URI names it), a node named (a cluster fact), a TokenRequest (its account), a
    // latency past the last edge
    const bits = this.eng.classify();
    if (bits === 0) countEvent(this.event());
    else this.eng.mark(bits);
  }
}

/** Whether the engine's record may stand for its line: both times there (a time that cannot be real is the door's
 * to drop: addRequest makes such a record its AuditEvent), and not in kube-system's leases (an apiserver identity
 * lease is a restart sign, read from the AuditEvent). The caller checks the compiled aggregator is usable. */
export function plainEngineLine(r: EngineRecord, eng: LineEngine): boolean {
  // Stryker disable next-line all: the module declines an audit line without both times (engine-record-form.test.ts), so no record reaches this without them; the check stands for a module that one day does not
  if (r.receivedMs === null || r.stageMs === null) return false;
  return !(eng.field('RESOURCE') === eng.ids.leases && eng.field('NS') === eng.ids['kube-system']);
}
