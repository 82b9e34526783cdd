/*! The apiserver's own log, read line by line within one segment: trace blocks assembled from their lines, a slow
 * request's trace joined to its httplog line (by audit-ID, else by path, user agent and time), multi-line klog
 * values passed over, and every request handed on as an AuditEvent, the one request record every decoder makes.
 * What each message says is apiserver-log.ts's; this keeps the little state between lines (bounded: a few open
 * blocks and a short window of finished ones). */

import type { AuditEvent } from '../model/audit-event.js';
import { parseRequestUri } from './request-uri.js';
import { bump } from '../model/tally.js';
import { callerFile, noteOf, requestOf118, parseCutTraceHeader, parseKlogMessage, parseTraceHeader, parseTraceStep, requestOfHttplog, requestOfLegacyHttplog, traceLineOf, traceVerbOf, type LogRequest, type TraceHeader } from './apiserver-log.js';

// the start of an httplog line before 1.19 that a terminal or a paste cut inside its URI
const LEGACY_START = /^(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT) \/\S*$/;

/** What the reader counts of an input's apiserver log (InputStats.apiserverLog; merged per input). */
export interface ApiserverLogStats {
  /** klog lines in text form, and JSON records */
  textLines: number;
  jsonRecords: number;
  /** httplog "HTTP" lines (1.19 on), and the unstructured ones before 1.19 */
  httplog: number;
  httplogLegacy: number;
  /** httplog lines before 1.19 that a terminal or a paste wrapped, read as one with their next line */
  rejoined: number;
  /** httplog WATCH lines written when the watch started (resp=0, 1.30.0-1.30.3): not a finished request */
  watchStarts: number;
  /** trace blocks (one request each, or a storage trace), their lines, blocks without an END line (cut by
   * rotation, a paste or the segment's end), and trace lines whose block's first line is not in the input */
  traceBlocks: number;
  traceLines: number;
  traceCut: number;
  traceOrphanLines: number;
  /** traces of a request (List, Get, …) and storage traces ("List etcd3") apart from one */
  requestTraces: number;
  storageTraces: number;
  /** timeouts (`Timeout or abort while handling`) */
  timeouts: number;
  /** traces and timeouts joined to the request's httplog line (counted once, as that line) */
  joined: number;
  /** requests from traces or timeouts alone (no httplog line for them): at -v<3 the only ones seen */
  traceOnly: number;
  timeoutOnly: number;
  /** restart markers (serving, version, flags), cacher events, lines of a multi-line value, the rest */
  starts: number;
  cacher: Map<string, number>;
  multiline: number;
  other: number;
  /** the klog callers of httplog and trace lines ("httplog.go:132"): they tell the release apart */
  callers: Map<string, number>;
  /** the versions the log prints at start, and when each was first printed (ms): across an upgrade, the one in
   * force at a time is the last printed before it */
  versions: Map<string, number>;
  versionFirstMs: Map<string, number>;
}

export function newApiserverLogStats(): ApiserverLogStats {
  return { textLines: 0, jsonRecords: 0, httplog: 0, httplogLegacy: 0, rejoined: 0, watchStarts: 0, traceBlocks: 0, traceLines: 0, traceCut: 0, traceOrphanLines: 0, requestTraces: 0, storageTraces: 0, timeouts: 0, joined: 0, traceOnly: 0, timeoutOnly: 0, starts: 0, cacher: new Map(), multiline: 0, other: 0, callers: new Map(), versions: new Map(), versionFirstMs: new Map() };
}

/** Adds `b` into `a` (an input's segments, workers' shares). */
export function addApiserverLogStats(a: ApiserverLogStats, b: ApiserverLogStats): void {
  for (const k of Object.keys(b) as Array<keyof ApiserverLogStats>) {
    const v = b[k];
    if (typeof v === 'number') (a[k] as number) += v;
    else if (k === 'versionFirstMs') for (const [x, t] of v) a.versionFirstMs.set(x, Math.min(t, a.versionFirstMs.get(x) ?? t));
    else for (const [x, n] of v as Map<string, number>) if ((a[k] as Map<string, number>).size < 64 || (a[k] as Map<string, number>).has(x)) bump(a[k] as Map<string, number>, x, n);
  }
}

/** Where the reader's records and facts go (the decoder's sink). */
export interface ApiserverLogSink {
  stats(): ApiserverLogStats;
  request(e: AuditEvent): void;
  /** a restart marker at `t` */
  sign(t: number, what: string): void;
  syntheticId(): string;
}

/** A trace block being read: its header and what its lines said so far. */
interface OpenTrace {
  h: TraceHeader;
  /** the klog time of its header line (when the trace was written: the request's end) */
  atMs: number | null;
  returned: number | null;
  cacheListed: number | null;
  etcd: NonNullable<ReturnType<typeof parseTraceStep>['etcd']> | null;
}

/** A finished trace or timeout, waiting a little for the request's httplog line. */
interface Waiting {
  e: AuditEvent;
  path: string;
  endMs: number;
  kind: 'trace' | 'timeout';
}

/** Most trace blocks open at once (interleaved by concurrent writers); past it the oldest is closed as cut. */
const MAX_OPEN_TRACES = 64;
/** Most finished traces and timeouts waiting for an httplog line; and how long (log time) one waits. */
const MAX_WAITING = 512;
const WAIT_MS = 5000;
/** How far apart a trace's end and its request's httplog line may be, when no audit-ID joins them. */
const JOIN_SLACK_MS = 1000;

/** A klog caller without its folder ("httplog/httplog.go:134" → "httplog.go:134"), as the text form writes it. */
function callerBase(caller: string): string {
  const slash = caller.lastIndexOf('/');
  return slash < 0 ? caller : caller.slice(slash + 1);
}

/** Reads one segment's apiserver-log lines (a LineDecoder holds one per segment). */
export class ApiserverLogReader {
  private readonly open = new Map<string, OpenTrace>();
  private waiting: Waiting[] = [];
  /** inside a multi-line klog value (`key=<`, its lines after a tab, then " >") */
  private inValue = false;
  /** the latest log time seen, for the waiting window */
  private latestMs = -Infinity;

  constructor(private readonly sink: ApiserverLogSink) {}

  /** true while a multi-line value is open: the next lines are its (a tab first, then " >"). */
  get inMultiline(): boolean {
    return this.inValue;
  }

  /** One message of the apiserver: a klog text line's (after its header) or a JSON record's. `kv` holds a JSON
   * record's pairs (null for text, whose pairs are parsed here). Returns what the line was, for the input's
   * counts: 'audit' when it was a request's httplog line, else the kind of other line. */
  message(caller: string, text: string, tsMs: number | null, kv: Map<string, string> | null): 'audit' | string {
    this.midBlock = false;
    this.unfinished = null;
    if (tsMs !== null && tsMs > this.latestMs) {
      this.latestMs = tsMs;
      this.expire(tsMs);
    }
    const st = this.sink.stats();
    const tl = traceLineOf(text);
    if (tl !== null) {
      // a trace: in a JSON record the whole block is one message, its lines joined by newlines
      const lines = text.split('\n');
      let what = 'apiserver trace';
      for (const l of lines) {
        if (l.length === 0) continue;
        const t = traceLineOf(l);
        if (t === null) continue;
        what = this.traceLine(t.id, t.rest, tsMs, caller);
      }
      return what;
    }
    let msg = text;
    let pairs = kv;
    if (pairs === null) {
      const m = parseKlogMessage(text);
      msg = m.text;
      pairs = m.kv;
      if (m.openKey !== null) this.inValue = true;
    }
    if (msg === 'HTTP') {
      const r = requestOfHttplog(pairs);
      if (r !== null) {
        st.httplog++;
        bump(st.callers, callerBase(caller));
        // 1.30.0-1.30.3 wrote a WATCH line when the watch began, resp=0: its end is not logged, so it is counted as
        // what it is, a watch begun (its latency is the time to start it)
        if (r.verb === 'watch' && r.code === 0) st.watchStarts++;
        this.httplogRequest(r, tsMs);
        return 'audit';
      }
    }
    const file = callerFile(caller);
    if (file === 'httplog.go' || file === 'wrap.go' || file === 'handlers.go') {
      const r = requestOf118(msg) ?? requestOfLegacyHttplog(msg);
      if (r !== null) {
        st.httplogLegacy++;
        bump(st.callers, callerBase(caller));
        this.httplogRequest(r, tsMs);
        return 'audit';
      }
      // the first part of a line a terminal or a paste wrapped: its rest may be the next line (rejoin)
      if (LEGACY_START.test(msg) && msg.length < 64 << 10) this.unfinished = { caller, msg, tsMs };
    }
    const n = noteOf(msg, pairs, caller);
    switch (n.kind) {
      case 'start':
        st.starts++;
        if (n.version !== undefined && n.version.length > 0) {
          bump(st.versions, n.version);
          if (tsMs !== null && !(tsMs >= (st.versionFirstMs.get(n.version) ?? Infinity))) st.versionFirstMs.set(n.version, tsMs);
        }
        // one sign per start, on the line that says the apiserver is up (the version and flag dump come first)
        if (tsMs !== null && n.what === 'serving securely') this.sink.sign(tsMs, 'apiserver started (its log: "Serving securely")');
        return `apiserver ${n.what === 'flag' ? 'flags' : n.what}`;
      case 'timeout': {
        st.timeouts++;
        if (tsMs !== null) this.hold(this.record(n.req, tsMs, 'timeout', n.req.auditID), n.req.uri, tsMs, 'timeout');
        return 'apiserver timeout';
      }
      case 'cacher':
        bump(st.cacher, n.what);
        return `apiserver cacher: ${n.what}`;
      default:
        st.other++;
        return n.what;
    }
  }

  /** A line with no klog header: a trace block's continuation, a multi-line value's line, or null when it is
   * neither (the caller reads it as it would any line). */
  bare(line: string, tsMs: number | null): string | null {
    this.midBlock = false;
    this.unfinished = null;
    if (this.inValue) {
      if (line === ' >' || line.startsWith(' >')) {
        // " > addedInfo=<": the value ends and the next begins
        this.inValue = line.endsWith('=<');
        this.sink.stats().multiline++;
        return 'apiserver multi-line value';
      }
      if (line.charCodeAt(0) === 9 /* tab */ || line.length === 0) {
        this.sink.stats().multiline++;
        return 'apiserver multi-line value';
      }
      this.inValue = false;
    }
    const t = traceLineOf(line);
    if (t !== null) return this.traceLine(t.id, t.rest, tsMs, null);
    return null;
  }

  /** true while a line may complete what the reader holds: a trace block, a trace or timeout waiting for its
   * httplog line, a value of several lines, a wrapped line's first part (the engine's records wait then). */
  get busy(): boolean {
    return this.open.size > 0 || this.waiting.length > 0 || this.inValue || this.unfinished !== null;
  }

  /** `lines` httplog lines of one caller the engine read while the reader holds nothing (not busy: nothing waits,
   * so no trace or timeout expires at their times): what message() does for them but their records. */
  engineRun(caller: string, lines: number, watchStarts: number, latestMs: number): void {
    this.midBlock = false;
    this.unfinished = null;
    if (latestMs > this.latestMs) this.latestMs = latestMs; // (nothing waits: no expire)
    const st = this.sink.stats();
    st.httplog += lines;
    bump(st.callers, callerBase(caller), lines);
    st.watchStarts += watchStarts;
  }

  /** One line of a trace block: its header opens the block, its END closes it. */
  private traceLine(id: string, rest: string, tsMs: number | null, caller: string | null): string {
    const st = this.sink.stats();
    st.traceLines++;
    // (a header a pager cut is still the block's first line, when trace.go's klog header says so)
    const h = parseTraceHeader(id, rest) ?? (caller !== null ? parseCutTraceHeader(id, rest) : null);
    if (h !== null && (caller !== null || !this.open.has(id))) {
      if (caller !== null) bump(st.callers, callerBase(caller));
      const prev = this.open.get(id);
      if (prev !== undefined) this.close(id, prev, true);
      if (this.open.size >= MAX_OPEN_TRACES) {
        const [oid, o] = this.open.entries().next().value as [string, OpenTrace];
        this.close(oid, o, true);
      }
      st.traceBlocks++;
      this.open.set(id, { h, atMs: tsMs, returned: null, cacheListed: null, etcd: null });
      this.midBlock = true;
      return 'apiserver trace';
    }
    const o = this.open.get(id);
    if (o === undefined) {
      st.traceOrphanLines++;
      return 'apiserver trace line without its first line (cut before it)';
    }
    const step = parseTraceStep(rest);
    if (step.returned !== undefined) o.returned = step.returned;
    if (step.cacheListed !== undefined) o.cacheListed = step.cacheListed;
    if (step.cacheFiltered !== undefined) o.returned ??= step.cacheFiltered;
    if (step.etcd !== undefined) o.etcd ??= step.etcd;
    if (step.end === true) this.close(id, o, false);
    else this.midBlock = true;
    return 'apiserver trace';
  }

  /** A trace block ended (or was cut): a request's trace becomes a record, waiting for its httplog line. */
  private close(id: string, o: OpenTrace, cut: boolean): void {
    this.open.delete(id);
    const st = this.sink.stats();
    if (cut && o.h.legacy !== true) st.traceCut++;
    const h = o.h;
    const name = h.name;
    if (/etcd3/.test(name)) {
      // a storage trace of its own (before 1.26): it says a list read etcd, not who asked; the request's own trace,
      // written just after it, takes it (storageOf)
      st.storageTraces++;
      const key = h.fields.get('key');
      if (key !== undefined && h.startMs !== null && h.totalMs !== null) {
        this.storage.push({ key, resourceVersion: h.fields.get('resourceVersion') ?? '', resourceVersionMatch: h.fields.get('resourceVersionMatch') ?? '', limit: Number(h.fields.get('limit') ?? 0) || 0, continue: (h.fields.get('continue') ?? '').length > 0, from: h.startMs, to: h.startMs + h.totalMs });
        if (this.storage.length > 64) this.storage.shift();
      }
      return;
    }
    const verb = traceVerbOf(h);
    const url = h.fields.get('url') ?? '';
    if (verb === null || url.length === 0) return;
    st.requestTraces++;
    const end = o.atMs ?? (h.startMs !== null && h.totalMs !== null ? h.startMs + h.totalMs : null);
    if (end === null) return;
    const req: LogRequest = {
      verb,
      uri: url,
      userAgent: h.fields.get('user-agent') ?? '',
      auditID: h.fields.get('audit-id') ?? '',
      srcIP: h.fields.get('client') ?? '',
      code: null,
      latencyMs: h.totalMs,
      apfPriorityLevel: '',
      apfFlowSchema: '',
      apfSeats: null,
      apfQueueWaitMs: null,
      hijacked: false,
    };
    const e = this.record(req, end, 'trace', req.auditID);
    // a trace's URL has no query: where it was served is unknown, unless its storage trace says it read etcd
    // (whose resourceVersion, match, limit and continue stand in for the query's)
    e.queryKnown = false;
    if (o.returned !== null) e.returnedItems = o.returned;
    o.etcd ??= this.storageOf(h, url);
    if (o.etcd !== null) {
      e.observedEtcd = true;
      e.queryKnown = true;
      e.query = {
        fieldSelector: null,
        labelSelector: null,
        resourceVersion: o.etcd.resourceVersion.length > 0 ? o.etcd.resourceVersion : null,
        resourceVersionMatch: o.etcd.resourceVersionMatch.length > 0 ? o.etcd.resourceVersionMatch : null,
        limit: o.etcd.limit,
        continueToken: o.etcd.continue,
        watch: false,
        sendInitialEvents: false,
      };
    }
    e.traced = true;
    this.hold(e, url, end, 'trace');
  }

  /** A trace's or timeout's record: one with an audit-ID goes to the aggregator at once as an earlier stage of its
   * request, which the request's httplog line (its final stage, the same auditID) completes there, taking what the
   * trace said (ScanState's dedup, in a segment or across a cut); if no such line comes (-v<3), the scan's end
   * counts it. One without waits here for an httplog line of the same path and user agent. */
  private hold(e: AuditEvent, uri: string, endMs: number, kind: Waiting['kind']): void {
    if (e.auditID.startsWith('(no auditID ')) {
      this.wait(e, uri, endMs, kind);
      return;
    }
    e.stage = 'ResponseStarted';
    this.sink.request(e);
  }

  /** The storage trace of its own (before 1.26) that a request's trace holds: a list of the same resource's key,
   * inside the request's time (to the millisecond the trace dates show). Taken once. */
  private storageOf(h: TraceHeader, url: string): OpenTrace['etcd'] {
    if (this.storage.length === 0 || h.startMs === null || h.totalMs === null) return null;
    const resource = parseRequestUri(url).path.resource;
    if (resource.length === 0) return null;
    const from = h.startMs;
    const to = h.startMs + h.totalMs;
    for (let i = this.storage.length - 1; i >= 0; i--) {
      const s = this.storage[i]!;
      const parts = s.key.split('/').filter((p) => p.length > 0);
      if (!parts.includes(resource) && !(resource === 'nodes' && parts.includes('minions'))) continue;
      if (s.from < from || s.to > to + 1) continue;
      this.storage.splice(i, 1);
      const { from: _f, to: _t, ...etcd } = s;
      return etcd;
    }
    return null;
  }

  /** Recent storage traces of their own, for storageOf(). */
  private readonly storage: Array<NonNullable<OpenTrace['etcd']> & { from: number; to: number }> = [];

  /** A request's httplog line: joined with its waiting trace or timeout, if one is here, and handed on. */
  private httplogRequest(r: LogRequest, tsMs: number | null): void {
    const e = this.record(r, tsMs, 'httplog', r.auditID);
    const q = r.uri.indexOf('?');
    const path = q < 0 ? r.uri : r.uri.slice(0, q);
    const w = r.auditID.length > 0 ? null : this.findWaiting(path, r.userAgent, tsMs);
    if (w !== null) joinLogRecords(e, w.e);
    this.sink.request(e);
  }

  /** The waiting record (no audit-ID) an httplog line without one completes: the same path and user agent within
   * JOIN_SLACK_MS. Removed from the window when found. */
  private findWaiting(path: string, userAgent: string, tsMs: number | null): Waiting | null {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = this.waiting[i]!;
      const hit = w.path === path && (w.e.userAgent === '' || w.e.userAgent === userAgent) && tsMs !== null && Math.abs(tsMs - w.endMs) <= JOIN_SLACK_MS;
      if (hit) {
        this.waiting.splice(i, 1);
        return w;
      }
    }
    return null;
  }

  private wait(e: AuditEvent, uri: string, endMs: number, kind: Waiting['kind']): void {
    const q = uri.indexOf('?');
    this.waiting.push({ e, path: q < 0 ? uri : uri.slice(0, q), endMs, kind });
    if (this.waiting.length > MAX_WAITING) this.release(this.waiting.shift()!);
  }

  /** Hands on the waiting records no httplog line can complete any more (WAIT_MS of log time later). */
  private expire(nowMs: number): void {
    let k = 0;
    while (k < this.waiting.length && this.waiting[k]!.endMs < nowMs - WAIT_MS) k++;
    if (k === 0) return;
    const gone = this.waiting.splice(0, k);
    for (const w of gone) this.release(w);
  }

  /** A trace or timeout with no httplog line: a request of its own. */
  private release(w: Waiting): void {
    this.sink.request(w.e);
  }

  /** At the segment's end: open blocks are closed as cut, and what waits is handed on as requests of their own. */
  /** An httplog line before 1.19 that did not parse (the line before was its first part): the request it makes
   * with `text` after it, or null. Counted once, on this line; the first part stays counted as a klog line. */
  rejoin(text: string): 'audit' | null {
    const u = this.unfinished;
    this.unfinished = null;
    if (u === null) return null;
    const r = requestOfLegacyHttplog(u.msg + text);
    if (r === null) return null;
    const st = this.sink.stats();
    st.httplogLegacy++;
    st.rejoined++;
    bump(st.callers, callerBase(u.caller));
    this.httplogRequest(r, u.tsMs);
    return 'audit';
  }

  /** the first part of a wrapped httplog line, while the next line may be its rest */
  private unfinished: { caller: string; msg: string; tsMs: number | null } | null = null;

  get canRejoin(): boolean {
    return this.unfinished !== null;
  }

  /** true while a trace block or a value of several lines is open: a cut now (follow mode's tick) would cut it */
  get holdsOpen(): boolean {
    return this.midBlock || this.inValue;
  }

  /** the last line read was a line of a trace block still open (a block the log left for other lines is cut) */
  private midBlock = false;

  endSegment(): void {
    for (const [id, o] of [...this.open]) this.close(id, o, true);
    const left = this.waiting;
    this.waiting = [];
    for (const w of left) this.release(w);
    this.inValue = false;
  }

  /** The request record of what the log says of one request, ended at `endMs`. */
  private record(r: LogRequest, endMs: number | null, evidence: NonNullable<AuditEvent['evidence']>, auditID: string): AuditEvent {
    const parsed = parseRequestUri(r.uri);
    const p = parsed.path;
    return {
      auditID: auditID.length > 0 ? auditID : this.sink.syntheticId(),
      stage: 'ResponseComplete',
      level: '',
      verb: r.verb,
      requestURI: r.uri,
      username: '',
      userAgent: r.userAgent,
      nodeName: null,
      resource: p.resource,
      apiGroup: p.apiGroup,
      namespace: p.namespace,
      name: p.name,
      subresource: p.subresource,
      code: r.code,
      receivedMs: endMs === null ? null : r.latencyMs === null ? endMs : endMs - Math.round(r.latencyMs),
      stageMs: endMs,
      returnedItems: null,
      remainingItems: null,
      tokenExpirationSeconds: null,
      leaseHolder: null,
      queryKnown: true,
      etcdLatencyMs: null,
      apfQueueWaitMs: r.apfQueueWaitMs,
      evidence,
      ...(r.srcIP.length > 0 ? { srcIP: r.srcIP } : {}),
      ...(r.apfFlowSchema.length > 0 ? { apfFlowSchema: r.apfFlowSchema, apfPriorityLevel: r.apfPriorityLevel } : {}),
    };
  }
}

/** Joins what a trace or timeout said of a request (`held`) into the record of its httplog line (`final`): the
 * final record is the one counted. The apiserver log's reader joins them by time and URI (no audit-ID), the
 * aggregator's dedup by auditID. */
export function joinLogRecords(final: AuditEvent, held: AuditEvent): void {
  if (held.evidence === 'trace') {
    final.traced = true;
    if (final.returnedItems === null && held.returnedItems !== null) final.returnedItems = held.returnedItems;
    if (held.observedEtcd === true) final.observedEtcd = true;
  } else if (held.evidence === 'timeout') final.timedOut = true;
}
