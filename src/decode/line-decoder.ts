/*! The decoder: one physical line, or one JSON document or batch item, made into what it carries (issue 26's decode
 * layer). It reads every line kind the JavaScript path knows (line-kind.ts: klog and syslog prefixes, CRI and
 * Docker wrappers and their split lines, Logs Insights CSV, shippers' records, cloud exports, batches, etcd's zap
 * and capnslog lines, metrics) and hands each audit event, etcd entry and metric sample to its sink; it counts
 * only what a line was (lines, blank, other, skipped, wrappers). Counting requests is the aggregator's
 * (aggregate/scan-state.ts), which is the sink. The compiled engine (decode/engine) reads plain audit lines
 * before this; the lines it declines come here. */

import { looksLikeAuditEvent, normalizeAuditEvent } from './audit-event.js';
import type { AuditEvent } from '../model/audit-event.js';
import { bump } from '../model/tally.js';
import { classifyLine } from './line-kind.js';
import { looksLikePromApiResult, parsePromApiResult, type MetricSample } from './metrics.js';
import { parseEtcdCapnslog, parseEtcdMessage, parseEtcdZap, type EtcdEntry } from './etcd-line.js';
import { describeJsonShape } from './json-shape.js';
import { apiserverOfRecord, cleanName, unwrapRecord } from './wrappers.js';
import { fromAksLogAnalyticsRow, fromGkeEntry, isAksLogAnalyticsRow, isGkeEntry } from './cloud-events.js';
import { parseCsvRecord } from './csv.js';
import { klogJsonOf, klogTimeMs } from './apiserver-log.js';
import { ApiserverLogReader, newApiserverLogStats, type ApiserverLogStats } from './apiserver-log-reader.js';

/** What the decoder counts of an input (the aggregator's per-input stats hold these fields and more). */
export interface DecodeCounts {
  name: string;
  lines: number;
  otherLines: number;
  skippedLines: number;
  blankLines: number;
  repairedLines: number;
  skippedItems: number;
  skipReasons: Map<string, number>;
  otherKinds: Map<string, number>;
  /** the first line (or JSON keys) that was not an event: to say what the input looked like if it held none */
  sample: string | null;
  /** wrapper → lines (or document items) read through it */
  wrappers: Map<string, number>;
  metricSamples: number;
  metrics: MetricSample[];
  /** what was read of the apiserver's own log (klog), when the input held any */
  apiserverLog?: ApiserverLogStats;
}

/** Most metric samples kept per input: a /metrics dump holds a few thousand of the ones read. */
export const MAX_METRIC_SAMPLES = 200_000;

/** Where decoded records go: the aggregator. */
export interface DecodeSink {
  /** the counts of the input (segment) being read */
  counts(): DecodeCounts;
  /** an audit event, and the apiserver its wrapper's record names (a CloudWatch stream, a pod), or null */
  auditEvent(e: AuditEvent, apiserver: string | null): void;
  etcdEntry(e: EtcdEntry): void;
  /** a restart marker the apiserver's log holds (its "Serving securely on" line), at `t` */
  restartSign(t: number, what: string): void;
  /** names an event that has no auditID (unique in the whole scan) */
  readonly syntheticId: () => string;
}

/** Called for each skipped line or item when --verbose is on. */
export type SkipListener = (input: string, where: string, reason: string, text: string) => void;

/** What the decoder keeps between the lines of one segment: a line a runtime split, a CSV export's column. */
export interface DecodeSegment {
  /** the start of a line a runtime split (CRI P lines, Docker parts), waiting for its end */
  partial: { wrapper: string; parts: string[] } | null;
  /** a CloudWatch Logs Insights CSV export: the column of @message, from the header line */
  csvColumn: number | null;
  /** the apiserver log's state between lines (trace blocks, a multi-line value), made at its first klog line */
  apiserver: ApiserverLogReader | null;
}

export function newDecodeSegment(): DecodeSegment {
  return { partial: null, csvColumn: null, apiserver: null };
}

/** What a piece of text or a JSON value turned out to be; the line's accounting follows from it. */
type ValueOutcome = 'audit' | 'etcd' | 'metric' | 'other' | 'blank' | 'skipped';

/** One thing inside a batch or a wrapper: text to read as a line, a value to read as JSON, or why it is neither. */
type BatchItem = ({ text: string } | { value: unknown } | { skip: string }) & { apiserver?: string | null };

/** Wrappers inside wrappers, at most (a CRI line holding a Docker record holding an event is two). */
const MAX_WRAP_DEPTH = 4;

export class LineDecoder {
  /** the current segment's decode state (the aggregator's segment holds it, so that follow mode can switch) */
  seg: DecodeSegment = newDecodeSegment();

  constructor(
    private readonly sink: DecodeSink,
    /** "now", for times that cannot be real, and --syslog-year (null: inferred) */
    private readonly nowMs: number,
    private readonly syslogYear: number | null,
    private readonly onSkip: SkipListener | null,
  ) {}

  /** At a segment's end: a split line whose end never came. Its last part, counted as an other line, becomes a
   * skipped one. */
  endSegment(): void {
    const g = this.seg;
    g.apiserver?.endSegment();
    if (g.partial === null) return;
    const inp = this.sink.counts();
    const kind = `${g.partial.wrapper} partial line (joined with the next)`;
    const n = inp.otherKinds.get(kind) ?? 0;
    if (n > 0) {
      if (n === 1) inp.otherKinds.delete(kind);
      else inp.otherKinds.set(kind, n - 1);
      inp.otherLines--;
      inp.skippedLines++;
      bump(inp.skipReasons, `truncated last line (a ${g.partial.wrapper} line split in parts, its end missing)`);
    }
    g.partial = null;
  }

  private skipLine(where: string, reason: string, text: string): void {
    const inp = this.sink.counts();
    inp.sample ??= text.slice(0, 160);
    inp.skippedLines++;
    bump(inp.skipReasons, reason);
    this.onSkip?.(inp.name, where, reason, text);
  }

  /** Records a line that could not be delivered whole (too long, unreadable tail). */
  skipRawLine(lineNo: number, reason: string, excerpt: string): void {
    const inp = this.sink.counts();
    inp.lines++;
    this.skipLine(`${lineNo}`, reason, excerpt);
  }

  /** Accounts one physical line: classifies it and feeds what it carries. `terminated` = ended in a newline. */
  addLine(lineNo: number, raw: string, terminated: boolean, repaired: boolean): void {
    const inp = this.sink.counts();
    inp.lines++;
    let text = raw;
    if (text.indexOf('\u0000') >= 0) {
      // Crashed writers leave NUL runs (preallocated blocks); the JSON around them is still good.
      text = text.replace(/\u0000+/g, '');
      repaired = true;
    }
    this.lineWrappers.length = 0;
    this.parsedJson = false;
    const where = `${lineNo}`;
    const csv = this.seg.csvColumn !== null;
    const outcome = !csv ? this.readText(text, terminated, 0, where) : lineNo === 1 ? this.other('Logs Insights CSV header') : this.readCsvLine(text, terminated, where);
    if (repaired && this.parsedJson) inp.repairedLines++;
    for (const w of this.lineWrappers) bump(inp.wrappers, w);
    switch (outcome) {
      case 'blank':
        inp.blankLines++;
        return;
      case 'other':
        inp.otherLines++;
        bump(inp.otherKinds, this.lastOther);
        return;
      case 'skipped':
        return this.skipLine(where, this.lastReason, text);
      default:
        return; // audit events and etcd entries count themselves
    }
  }

  private other(what: string): ValueOutcome {
    this.lastOther = what;
    return 'other';
  }

  /** Keeps one metric sample of the current input. */
  private addMetric(m: MetricSample): void {
    const inp = this.sink.counts();
    inp.metricSamples++;
    if (inp.metrics.length < MAX_METRIC_SAMPLES) inp.metrics.push(m);
  }

  /** Counts a line of a file that is known not to be a log (must-gather's timestamp, its listings). */
  addOtherLine(what: string): void {
    const inp = this.sink.counts();
    inp.lines++;
    inp.otherLines++;
    bump(inp.otherKinds, what);
  }

  /** Wrappers peeled off the current line (or document item), for inputs[].wrappers. */
  private readonly lineWrappers: string[] = [];
  private wrapped(w: string): void {
    if (!this.lineWrappers.includes(w)) this.lineWrappers.push(w);
  }
  /** set when the current line parsed as JSON (a repaired line counts as repaired only then) */
  private parsedJson = false;
  private lastReason = '';
  private lastOther = '';

  /** The segment's apiserver-log reader, made when first needed; its records go to the sink as audit events do. */
  private apiserverReader(): ApiserverLogReader {
    const g = this.seg;
    if (g.apiserver !== null) return g.apiserver;
    const sink = this.sink;
    return (g.apiserver = new ApiserverLogReader({
      stats: () => (sink.counts().apiserverLog ??= newApiserverLogStats()),
      request: (e) => sink.auditEvent(e, this.recordApiserver),
      sign: (t, what) => sink.restartSign(t, what),
      syntheticId: () => sink.syntheticId(),
    }));
  }

  /** Whether the engine's record of the current line, an httplog line, may be counted as it is (ScanState.takesLogLine). */
  engineMayTake(): boolean {
    const g = this.seg;
    return g.csvColumn === null && g.partial === null && (g.apiserver === null || !g.apiserver.busy);
  }

  /** What readText() and the reader count of an httplog line the engine read (its request follows). */
  engineHttplog(caller: string, tsMs: number, watchStart: boolean): void {
    this.engineHttplogRun(caller, 1, watchStart ? 1 : 0, tsMs);
  }

  /** engineHttplog() for `lines` httplog lines of one caller the engine's module admitted in a run (no line of
   * them can complete what the reader holds: it holds nothing), the latest written at `latestMs`. */
  engineHttplogRun(caller: string, lines: number, watchStarts: number, latestMs: number): void {
    (this.sink.counts().apiserverLog ??= newApiserverLogStats()).textLines += lines;
    this.apiserverReader().engineRun(caller, lines, watchStarts, latestMs);
  }

  /** One message of the apiserver's log, as an outcome of the line that held it. */
  private apiserverMessage(caller: string, text: string, tsMs: number | null, kv: Map<string, string> | null): ValueOutcome {
    const what = this.apiserverReader().message(caller, text, tsMs, kv);
    if (what === 'audit') return 'audit';
    this.lastOther = what;
    return 'other';
  }

  /** Reads a piece of text as one line would be read: a physical line, or the text a wrapper held. */
  private readText(text: string, terminated: boolean, depth: number, where: string): ValueOutcome {
    const ar = this.seg.apiserver;
    if (ar !== null && ar.inMultiline) {
      const what = ar.bare(text, null);
      if (what !== null) return this.other(what);
    }
    const k = classifyLine(text, this.nowMs, this.syslogYear);
    switch (k.kind) {
      case 'klog': {
        if (k.wrapper !== null) this.wrapped(k.wrapper);
        const h = k.header;
        const st = (this.sink.counts().apiserverLog ??= newApiserverLogStats());
        st.textLines++;
        return this.apiserverMessage(h.caller, h.msg, k.tsMs ?? klogTimeMs(h, this.nowMs, this.syslogYear), null);
      }
      case 'klog-bare': {
        if (k.wrapper !== null) this.wrapped(k.wrapper);
        const r = this.apiserverReader();
        const what = r.bare(k.text, k.tsMs);
        if (what !== null) return this.other(what);
        return this.apiserverMessage('', k.text, k.tsMs, null);
      }
      case 'blank':
        return 'blank';
      case 'other':
        this.lastOther = k.what;
        return 'other';
      case 'partial':
        this.wrapped('cri');
        return this.holdPartial('cri', k.text);
      case 'cri': {
        this.wrapped('cri');
        return this.readInner(this.takePartial('cri') + k.text, terminated, depth, where, 'cri');
      }
      case 'capnslog':
      case 'capnslog-bare': {
        if (k.wrapper !== null) this.wrapped(k.wrapper);
        const e = k.kind === 'capnslog' ? parseEtcdCapnslog(k.text) : parseEtcdMessage(k.pkg, k.text, k.tsMs);
        if (e === null) {
          this.lastReason = 'not a known format';
          return 'skipped';
        }
        this.sink.etcdEntry(e);
        return 'etcd';
      }
      case 'metric':
        this.addMetric(k.sample);
        return 'metric';
      case 'unknown':
        // the rest of an apiserver httplog line a terminal wrapped: one request with the line before
        if (this.seg.apiserver?.canRejoin === true && this.seg.apiserver.rejoin(text) === 'audit') return 'audit';
        // a line of no known format is that, newline or not: only JSON that stops short is a cut line
        this.lastReason = depth > 0 ? `${this.innerWrapper} record holds text of no known format` : 'not a known format';
        return 'skipped';
      case 'json': {
        if (k.wrapper !== null) this.wrapped(k.wrapper);
        let v: unknown;
        try {
          v = JSON.parse(k.text);
        } catch {
          // Text a wrapper held that starts like JSON and does not parse was cut, by a shipper's size limit.
          this.lastReason = depth > 0 ? `truncated: the ${this.innerWrapper} record holds cut JSON (a size limit of the shipper?)` : terminated ? 'not JSON' : 'truncated last line';
          return 'skipped';
        }
        if (depth === 0) this.parsedJson = true;
        return this.addJsonValue(v, where, depth);
      }
    }
  }

  /** The wrapper whose text is being read, for reasons ("the docker record holds cut JSON"). */
  private innerWrapper = '';

  private readInner(text: string, terminated: boolean, depth: number, where: string, wrapper: string): ValueOutcome {
    if (depth >= MAX_WRAP_DEPTH) {
      this.lastReason = 'wrappers nested too deep';
      return 'skipped';
    }
    const outer = this.innerWrapper;
    this.innerWrapper = wrapper;
    try {
      return this.readText(text, terminated, depth + 1, where);
    } finally {
      this.innerWrapper = outer;
    }
  }

  /** Holds the start of a line a runtime split (CRI P, Docker without \n); the line counts as an other line. */
  private holdPartial(wrapper: string, text: string): ValueOutcome {
    const g = this.seg;
    if (g.partial !== null && g.partial.wrapper === wrapper) g.partial.parts.push(text);
    else g.partial = { wrapper, parts: [text] };
    this.lastOther = `${wrapper} partial line (joined with the next)`;
    return 'other';
  }

  /** The parts held for `wrapper`, joined, and forgotten ('' when none). */
  private takePartial(wrapper: string): string {
    const g = this.seg;
    const p = g.partial;
    if (p === null || p.wrapper !== wrapper) return '';
    g.partial = null;
    return p.parts.join('');
  }

  /** A CSV record of a CloudWatch Logs Insights export: its @message column read as a line. Records whose
   * quoted field spans lines are joined first. */
  private readCsvLine(text: string, terminated: boolean, where: string): ValueOutcome {
    const g = this.seg;
    this.wrapped('logs-insights-csv');
    const held = g.partial !== null && g.partial.wrapper === 'csv' ? this.takePartial('csv') + '\n' : '';
    const record = held + text;
    const fields = parseCsvRecord(record);
    if (fields === null) {
      if (!terminated) {
        this.lastReason = 'truncated last line';
        return 'skipped';
      }
      return this.holdPartial('csv', record);
    }
    if (record.trim().length === 0) return 'blank';
    const msg = fields[g.csvColumn!];
    if (msg === undefined) {
      this.lastReason = 'CSV record without its @message column';
      return 'skipped';
    }
    return this.readInner(msg, true, 0, where, 'logs-insights-csv');
  }

  /** Accounts one whole JSON document, or one element of a streamed batch (`batchKey` names its array). */
  addDocumentValue(where: string, v: unknown, batchKey: string | null = null): void {
    this.lineWrappers.length = 0;
    const bw = batchKey === null ? undefined : BATCH_WRAPPER[batchKey];
    if (bw !== undefined) this.wrapped(bw);
    const outcome =
      batchKey === null
        ? this.addJsonValue(v, where, 0)
        : this.addBatch([v], where, BATCH_UNWRAP[batchKey] ?? ((x) => ({ value: x })), 0);
    const inp = this.sink.counts();
    for (const w of this.lineWrappers) bump(inp.wrappers, w);
    if (outcome === 'skipped') {
      inp.skippedItems++;
      bump(inp.skipReasons, this.lastReason);
      this.onSkip?.(inp.name, where, this.lastReason, '');
    }
  }

  /** Records that a document-mode input ended in the middle of a document. */
  skipDocumentTail(where: string, reason: string): void {
    const inp = this.sink.counts();
    inp.skippedItems++;
    bump(inp.skipReasons, reason);
    this.onSkip?.(inp.name, where, reason, '');
  }

  /** Dispatches one parsed JSON value: an audit Event, a batch of them, a wrapper record (wrappers.ts), a cloud
   * export's reshaped event (cloud-events.ts), or an etcd zap line. */
  private addJsonValue(v: unknown, where: string, depth: number): ValueOutcome {
    if (Array.isArray(v)) return this.addBatch(v, where, (x) => ({ value: x }), depth);
    if (v === null || typeof v !== 'object') {
      this.lastReason = 'JSON is not an object';
      return 'skipped';
    }
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.items) && (o.kind === 'EventList' || (typeof o.apiVersion === 'string' && o.apiVersion.startsWith('audit.k8s.io/')))) {
      return this.addBatch(o.items, where, (x) => ({ value: x }), depth);
    }
    if (Array.isArray(o.records)) {
      this.wrapped(BATCH_WRAPPER.records!);
      return this.addBatch(o.records, where, BATCH_UNWRAP.records!, depth);
    }
    if (Array.isArray(o.logEvents)) {
      this.wrapped(BATCH_WRAPPER.logEvents!);
      // a subscription's payload names its stream once, for all its events
      const logEvents = o.logEvents;
      return this.naming(cleanName(o.logStream), () => this.addBatch(logEvents, where, BATCH_UNWRAP.logEvents!, depth));
    }
    if (o.properties !== null && typeof o.properties === 'object' && 'log' in (o.properties as object)) {
      this.wrapped(BATCH_WRAPPER.records!);
      return this.addBatch([o], where, BATCH_UNWRAP.records!, depth);
    }
    if (looksLikePromApiResult(o)) {
      // a Prometheus HTTP API result (/api/v1/query or query_range): the apiserver metrics standing in for etcd's log
      const r = parsePromApiResult(o);
      if (r.error !== null) {
        this.lastReason = `Prometheus query error: ${r.error.slice(0, 80)}`;
        return 'skipped';
      }
      for (const m of r.samples) this.addMetric(m);
      return 'metric';
    }
    if (isGkeEntry(o)) {
      this.wrapped('gke');
      const r = fromGkeEntry(o);
      if ('reason' in r) {
        this.lastReason = r.reason;
        return 'skipped';
      }
      return this.addAuditObject(r.event);
    }
    if ('Entry' in o && typeof o.Entry === 'object') {
      this.lastReason = 'GKE entry serialised from the Go client structs (export with gcloud logging read --format=json instead)';
      return 'skipped';
    }
    const kj = klogJsonOf(o);
    if (kj !== null) {
      // --logging-format=json: the apiserver's log as JSON records (a trace is one record, its lines in msg); before
      // the audit test, which a timeout's record (auditID, URI) would pass
      (this.sink.counts().apiserverLog ??= newApiserverLogStats()).jsonRecords++;
      return this.apiserverMessage(kj.caller, kj.msg, kj.tsMs, kj.kv);
    }
    if (looksLikeAuditEvent(o)) {
      // Fluent Bit's Merge_Log: the event's fields at the top level, beside the line they came from
      if (o.kubernetes !== undefined && typeof o.log === 'string') this.wrapped('fluent-bit');
      // and its pod: only the kubernetes filter's fields (an event's own fields never name an apiserver)
      const pod = o.kubernetes !== null && typeof o.kubernetes === 'object' ? apiserverOfRecord({ kubernetes: o.kubernetes }) : null;
      return this.naming(pod, () => this.addAuditObject(o));
    }
    if (isAksLogAnalyticsRow(o)) {
      this.wrapped('aks-log-analytics');
      // AKSAudit's PodName: the kube-apiserver pod that wrote the event
      return this.naming(cleanName(o.PodName), () => this.addAuditObject(fromAksLogAnalyticsRow(o)));
    }
    const etcd = parseEtcdZap(o);
    if (etcd !== null) {
      this.sink.etcdEntry(etcd);
      return 'etcd';
    }
    const u = unwrapRecord(o);
    if (u === null) {
      this.lastReason = 'JSON is not an audit event';
      const inp = this.sink.counts();
      inp.sample ??= describeJsonShape(o);
      return 'skipped';
    }
    this.wrapped(u.wrapper);
    if (u.truncated !== undefined) {
      this.lastReason = `truncated: ${u.truncated}`;
      return 'skipped';
    }
    if (u.partial !== undefined) return this.holdPartial(u.wrapper, u.partial);
    const items: BatchItem[] = [...(u.texts ?? []).map((t) => ({ text: u.wrapper === 'docker' ? this.takePartial('docker') + t : t })), ...(u.values ?? []).map((x) => ({ value: x }))];
    return this.naming(u.apiserver, () => (items.length === 1 ? this.readItem(items[0]!, where, depth, u.wrapper) : this.addBatch(items, where, (x) => x as BatchItem, depth, u.wrapper)));
  }

  /** The apiserver the record being read names (a wrapper's stream, pod or host field), for its events. */
  private recordApiserver: string | null = null;

  /** Runs `f` with `apiserver` as the record's apiserver, when it names one (an inner record's name wins). */
  private naming<T>(apiserver: string | null | undefined, f: () => T): T {
    if (apiserver === null || apiserver === undefined) return f();
    const outer = this.recordApiserver;
    this.recordApiserver = apiserver;
    try {
      return f();
    } finally {
      this.recordApiserver = outer;
    }
  }

  /** One item of a wrapper or a batch: text read as a line, or a value read as JSON. */
  private readItem(item: BatchItem, where: string, depth: number, wrapper: string): ValueOutcome {
    if (item.apiserver !== undefined && item.apiserver !== null) {
      const { apiserver, ...rest } = item;
      return this.naming(apiserver, () => this.readItem(rest as BatchItem, where, depth, wrapper));
    }
    if ('skip' in item) {
      this.lastReason = item.skip;
      return 'skipped';
    }
    if ('text' in item) return this.readInner(item.text, true, depth, where, wrapper);
    if (item.value === null || typeof item.value !== 'object') {
      this.lastReason = 'batch item is not an audit event';
      return 'skipped';
    }
    if (depth >= MAX_WRAP_DEPTH) {
      this.lastReason = 'wrappers nested too deep';
      return 'skipped';
    }
    return this.addJsonValue(item.value, where, depth + 1);
  }

  /** A batch counts as audit (or etcd) when at least one item is an event (or an etcd line); then the other
   * items are counted as skipped items. A batch with no good item is one skipped line (or document), with the
   * first item's reason. */
  private addBatch(items: unknown[], where: string, unwrap: (x: unknown) => BatchItem, depth: number, wrapper = 'batch'): ValueOutcome {
    let audit = 0;
    let etcd = 0;
    const failed: Array<[string, string]> = [];
    for (let i = 0; i < items.length; i++) {
      const outcome = this.readItem(unwrap(items[i]), `${where}[${i}]`, depth, wrapper);
      if (outcome === 'audit') audit++;
      else if (outcome === 'etcd') etcd++;
      else if (failed.length < 1_000_000) failed.push([`${where}[${i}]`, outcome === 'skipped' ? this.lastReason : outcome === 'blank' ? 'batch item is blank' : `batch item is not an audit event (${this.lastOther})`]);
    }
    if (audit + etcd === 0) {
      this.lastReason = failed[0]?.[1] ?? 'empty batch';
      return 'skipped';
    }
    const inp = this.sink.counts();
    for (const [w, reason] of failed) {
      inp.skippedItems++;
      bump(inp.skipReasons, reason);
      this.onSkip?.(inp.name, w, reason, '');
    }
    return audit > 0 ? 'audit' : 'etcd';
  }

  private addAuditObject(o: Record<string, unknown>): ValueOutcome {
    const r = normalizeAuditEvent(o, this.sink.syntheticId);
    if (!r.ok) {
      this.lastReason = `invalid audit event: ${r.reason}`;
      return 'skipped';
    }
    this.sink.auditEvent(r.value, this.recordApiserver);
    return 'audit';
  }

}

/** AKS diagnostic record → the audit event inside properties.log (a JSON string or an object), or a skip reason. */
function unwrapAksRecord(r: unknown): BatchItem {
  if (r === null || typeof r !== 'object') return { skip: 'batch item is not an object' };
  const rec = r as Record<string, unknown>;
  const cat = rec.category;
  if (typeof cat === 'string' && !cat.startsWith('kube-audit')) return { skip: `AKS record of category ${cat.slice(0, 40)} (not audit)` };
  const props = rec.properties as Record<string, unknown> | undefined;
  const log = props?.log;
  // properties.pod: the kube-apiserver pod that wrote the event
  const apiserver = cleanName(props?.pod);
  if (typeof log === 'string') return { text: log, apiserver };
  if (log !== null && typeof log === 'object') return { value: log, apiserver };
  return looksLikeAuditEvent(rec) ? { value: rec } : { skip: 'AKS record without properties.log' };
}

/** EKS CloudWatch subscription event → the audit event in its message, or a skip reason. */
function unwrapCloudWatchEvent(r: unknown): BatchItem {
  if (r === null || typeof r !== 'object') return { skip: 'batch item is not an object' };
  const msg = (r as Record<string, unknown>).message;
  if (typeof msg !== 'string') return { skip: 'CloudWatch event without message' };
  if (msg.endsWith('[Truncated...]')) return { skip: 'truncated: CloudWatch message truncated ([Truncated...])' };
  // filter-log-events names each event's stream: EKS writes one per apiserver
  return { text: msg, apiserver: cleanName((r as Record<string, unknown>).logStreamName) };
}

/** The wrapper a batch array names (items, an EventList, is plain audit). */
const BATCH_WRAPPER: Record<string, string> = { records: 'aks-diagnostic', logEvents: 'cloudwatch-subscription', events: 'cloudwatch', data: 'datadog-api' };

/** How the items of each batch array streamed from a document are read (json-document.ts BATCH_KEYS). */
const BATCH_UNWRAP: Record<string, (x: unknown) => BatchItem> = {
  records: unwrapAksRecord,
  logEvents: unwrapCloudWatchEvent,
  events: unwrapCloudWatchEvent,
  items: (x) => ({ value: x }),
  data: (x) => ({ value: x }),
};
