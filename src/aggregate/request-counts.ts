/*! One job: a request counted once it is admitted (RequestCounts.count): the versions its client names, the nodes
 * and full-list sizes it tells of, the per-input, per-apiserver and per-client series, verbs, user agents,
 * TokenRequests, 429s of a cache initialising, the filters and the copies left out, and its read group
 * (read-groups.ts); or, beside an audit log, the apiserver log's evidence. The compiled aggregator's counts are
 * folded into the same aggregates (slot-fold.ts). */

import { isTerminalStage, type AuditEvent } from '../model/audit-event.js';
import { parseRequestQuery, parseRequestUri, type ListQuery } from '../decode/request-uri.js';
import { describeSelectors, type SelectorInfo } from '../model/selector.js';
import { VersionEvidenceCollector } from '../model/kube-version.js';
import { ReadGroups, isWatchList } from './read-groups.js';
import { TimeSeries, reviveSeries } from './time-series.js';
import { compileFilter } from './filters.js';
import { fingerprintAdd } from './fingerprint.js';
import { LogEvidence } from './log-evidence.js';
import type { InputStats } from './input-stats.js';
import { bump, type ScanSink, NO_ID, NO_UA, type Counters, type TimeOptions, type TimeState, MAX_NAMED_APISERVERS, streamKey, parseStreamKey, type ClientCounts, INPUT_REQUEST_BUCKETS, MAX_CLIENT_INPUTS, CLIENT_SERIES_BUCKETS, CLIENT_SERIES_MIN_MS, clientInputKey, resourceKeyOf, type StateSnapshot } from './state-types.js';

/** Most (fieldSelector, labelSelector) descriptions remembered per scan. */
const MAX_SELECTOR_MEMO = 100_000;

export class RequestCounts {
  readonly groups: ReadGroups;
  readonly versions = new VersionEvidenceCollector();
  /** Every node name seen anywhere (kubelet users, node-name extras, selectors, node objects). */
  readonly clusterNodes = new Set<string>();
  /** resource key → most objects seen in one unfiltered, complete list response (RequestResponse level). */
  readonly fullListObjects = new Map<string, number>();
  readonly counters: Counters = { requests: 0, filteredOut: 0, etcdFilteredOut: 0, pendingEvicted: 0, timingInexact: 0, byVerb: new Map(), tokenRequests: 0 };
  /** time: every counted request, TokenRequests, lists per resource, and per input lists and watch ends */
  readonly time: TimeState;
  readonly userAgents = new Map<string, number>();
  /** the apiserver log's requests when they stand beside an audit log (timeOptions.logAsEvidence) */
  readonly logEvidence = new LogEvidence();
  /** a store's loader, sent every counted request (single-threaded scans only) */
  sink: ScanSink | null = null;
  private readonly filter: ((e: AuditEvent) => boolean) | null;
  /** input index → windows (width, indexes) of requests to leave out: copies of an earlier input's */
  private readonly skipCopies: Map<number, Array<[number, Set<number>]>> | null;

  constructor(
    maxGroups: number | undefined,
    private readonly timeOptions: TimeOptions,
  ) {
    this.groups = new ReadGroups(maxGroups, timeOptions.bucketMs);
    this.skipCopies = timeOptions.skipCopies === undefined || timeOptions.skipCopies.length === 0 ? null : new Map(timeOptions.skipCopies.map(([i, ws]) => [i, ws.map(([w, idx]) => [w, new Set(idx)] as [number, Set<number>])]));
    this.filter = compileFilter(timeOptions.filter);
    const b = timeOptions.bucketMs;
    this.time = {
      all: new TimeSeries(b),
      tokens: new TimeSeries(b),
      tokenAccounts: new Map(),
      tokenTtls: new Map(),
      listsByResource: new Map(),
      inputLists: new Map(),
      inputWatchEnds: new Map(),
      initRejects: new Map(),
      inputGaps: new Map(),
      inputSpacing: new Map(),
      inputSigns: new Map(),
      inputRequests: new Map(),
      clientInputs: new Map(),
      clientInputsOverflow: 0,
      streamRequests: new Map(),
      streamLists: new Map(),
      streamWatchEnds: new Map(),
      streamGaps: new Map(),
      streamSpacing: new Map(),
      streamSpan: new Map(),
      streamOverflow: new Map(),
    };
  }

  /** Whether each request must be counted on its own, as an event: for a store's sink, a filter, or copies of logs
   * left out (the compiled aggregator is off then: slot-fold.ts). */
  get seenOneByOne(): boolean {
    return this.sink !== null || this.filter !== null || this.skipCopies !== null;
  }

  /** The series of `k` in `m`, made when new. */
  seriesIn(m: Map<string | number, TimeSeries>, k: string | number, cap = 100_000): TimeSeries {
    let s = m.get(k);
    if (s === undefined) {
      s = new TimeSeries(this.timeOptions.bucketMs, cap);
      m.set(k, s);
    }
    return s;
  }

  /** Counts one request, admitted once whatever the thread count, of input `inputIndex` (-1: none), whose counts so
   * far are `stats` (its segment's, in a worker; the input's, at reconcile). */
  count(e: AuditEvent, inputIndex: number, stats: InputStats | undefined): void {
    const c = this.counters;
    if (e.evidence !== undefined) {
      // what showed the request, once it is counted: its httplog line (with its trace, when one was read), or a
      // trace or timeout alone
      const st = stats?.apiserverLog;
      if (st !== undefined) {
        if (e.evidence === 'trace') st.traceOnly++;
        else if (e.evidence === 'timeout') st.timeoutOnly++;
        else if (e.traced === true || e.timedOut === true) st.joined++;
      }
      // Beside an audit log the apiserver log's requests are evidence for the audit's groups, never counted again.
      if (this.timeOptions.logAsEvidence === true) {
        this.logEvidence.add(e);
        return;
      }
    }
    // Called once per distinct request whatever the thread count: the place to fingerprint it, and to leave out a
    // request an earlier input already holds (a second read after copies were found).
    const t = e.receivedMs;
    if (t !== null && (this.skipCopies !== null || this.timeOptions.fingerprint === true)) {
      const inp = stats;
      const skip = this.skipCopies?.get(inputIndex);
      if (skip !== undefined) {
        for (const [w, set] of skip) {
          if (set.has(Math.floor(t / w))) {
            if (inp !== undefined) inp.duplicateRequests++;
            return;
          }
        }
      }
      // Events without an auditID get per-thread names: not comparable across inputs, so not fingerprinted.
      if (inp !== undefined && this.timeOptions.fingerprint === true && !e.auditID.startsWith(NO_ID)) fingerprintAdd(inp.fingerprint, t, e.auditID);
    }
    // What describes the cluster (the versions its components run, its nodes, a full list's size) is taken from
    // every request read, before any filter: a filter chooses the requests reported, never the rules they are
    // judged by.
    // So is what tells an apiserver restarted (its clients relisting, its watches ending, its watch cache
    // answering 429 while it initialises): the restart rules, and the verdicts that depend on them, see every line.
    if (e.userAgent.length > 0 || e.username.length > 0) this.versions.add(e.username, e.userAgent);
    const at = e.receivedMs;
    if (at !== null) {
      const listing = e.verb === 'list' || (e.verb === 'watch' && e.requestURI.includes('sendInitialEvents') && isWatchList(e.verb, e.query ?? parseRequestQuery(e.requestURI), e.code));
      // a watch answered with an error (a refused watch-list's 422, a 429) never streamed: no watch ended
      const watchEnd = e.verb === 'watch' && isTerminalStage(e.stage) && !(e.code !== null && e.code >= 400);
      if (listing) this.seriesIn(this.time.inputLists as Map<string | number, TimeSeries>, inputIndex).add(at);
      if (watchEnd) this.seriesIn(this.time.inputWatchEnds as Map<string | number, TimeSeries>, inputIndex).add(e.stageMs ?? at);
      // Each apiserver's share and where its clients went (apiservers.ts): every request, as the restart rules.
      // 20,000 buckets (not 100,000): shares are judged per minute, and a long --follow run keeps this per input
      this.seriesIn(this.time.inputRequests as Map<string | number, TimeSeries>, inputIndex, INPUT_REQUEST_BUCKETS).add(at);
      // The same per apiserver a wrapper's record named (a CloudWatch stream, a pod), inside its input.
      const src = e.apiserver === undefined ? null : streamKey(inputIndex, e.apiserver);
      if (src !== null) {
        this.seriesIn(this.time.streamRequests as Map<string | number, TimeSeries>, src, INPUT_REQUEST_BUCKETS).add(at);
        if (listing) this.seriesIn(this.time.streamLists as Map<string | number, TimeSeries>, src).add(at);
        if (watchEnd) this.seriesIn(this.time.streamWatchEnds as Map<string | number, TimeSeries>, src).add(e.stageMs ?? at);
      }
      this.countClient(e, src ?? inputIndex, at, listing);
      if (e.cacheInitializing === true) {
        const path = e.resource.length > 0 ? null : parseRequestUri(e.requestURI).path;
        const rk = resourceKeyOf(e.apiGroup || (path?.apiGroup ?? ''), e.resource || (path?.resource ?? ''));
        this.seriesIn(this.time.initRejects as Map<string | number, TimeSeries>, `${inputIndex}\u0000${rk}`).add(at);
      }
    }
    if (this.filter !== null && !this.filter(e)) {
      c.filteredOut++;
      this.clusterFacts(e);
      return;
    }
    c.requests++;
    if (at !== null) this.time.all.add(at);
    bump(c.byVerb, e.verb);
    if (e.userAgent.length > 0 || e.username.length > 0) {
      const ua = e.userAgent.length > 0 ? e.userAgent : NO_UA + e.username;
      if (this.userAgents.size < 100_000 || this.userAgents.has(ua)) bump(this.userAgents, ua);
    }
    let node: string | null = e.nodeName;
    if (node === null && e.username.startsWith('system:node:')) node = e.username.slice(12);
    if (e.verb !== 'list' && e.verb !== 'get' && e.verb !== 'watch') {
      this.sink?.request({ e, input: inputIndex, resource: e.resource, apiGroup: e.apiGroup, namespace: e.namespace, query: null, selector: null, node });
      if (e.verb === 'create' && e.subresource === 'token' && e.resource === 'serviceaccounts') {
        c.tokenRequests++;
      }
      // Refresh waves are the kubelet's: projected tokens requested on behalf of pods, by system:node:<node>.
      // (the apiserver's log names no user: there the kubelet is its user agent)
      if (e.verb === 'create' && e.subresource === 'token' && e.resource === 'serviceaccounts' && (e.username.startsWith('system:node:') || (e.evidence !== undefined && e.userAgent.startsWith('kubelet/')))) {
        if (at !== null) this.time.tokens.add(at);
        const k = `${e.namespace}/${e.name}`;
        if (this.time.tokenAccounts.size < 10_000 || this.time.tokenAccounts.has(k)) bump(this.time.tokenAccounts, k);
        if (e.tokenExpirationSeconds !== null) this.time.tokenTtls.set(e.tokenExpirationSeconds, (this.time.tokenTtls.get(e.tokenExpirationSeconds) ?? 0) + 1);
      }
      if (node !== null) this.clusterNodes.add(node);
      return;
    }
    if (e.resource.length > 0) {
      // objectRef is authoritative (RequestInfo filled it): only the query is needed, and the path only for the store.
      if (e.subresource.length > 0) {
        if (this.sink !== null) {
          const parsed = parseRequestUri(e.requestURI);
          this.sink.request({ e, input: inputIndex, resource: e.resource, apiGroup: e.apiGroup || parsed.path.apiGroup, namespace: e.namespace || parsed.path.namespace, query: parsed.query, selector: null, node });
        }
        if (node !== null) this.clusterNodes.add(node);
        return; // a subresource (logs, exec, status): not a cacheable read
      }
      this.countRead(e, e.resource, e.apiGroup, e.namespace, e.query ?? parseRequestQuery(e.requestURI), node, inputIndex);
      return;
    }
    // The URI fills in for converters that drop objectRef.
    const parsed = parseRequestUri(e.requestURI);
    const path = parsed.path;
    if (path.resource.length === 0 || e.subresource.length > 0 || path.subresource.length > 0) {
      this.sink?.request({ e, input: inputIndex, resource: path.resource, apiGroup: e.apiGroup || path.apiGroup, namespace: e.namespace || path.namespace, query: parsed.query, selector: null, node });
      if (node !== null) this.clusterNodes.add(node);
      return; // non-resource URL or a subresource: not a cacheable read
    }
    this.countRead(e, path.resource, path.apiGroup, path.namespace, parsed.query, node, inputIndex);
  }

  /** Counts a request for its client (user agent and user) on its input, within the MAX_CLIENT_INPUTS cap. */
  private countClient(e: AuditEvent, source: number | string, at: number, listing: boolean): void {
    const c = this.clientEntry(e.userAgent, e.username, source);
    if (c === null) {
      this.time.clientInputsOverflow++;
      return;
    }
    c.all.add(at);
    if (listing) (c.lists ??= this.clientSeries()).add(at);
  }

  /** The entry of a client on a source in time.clientInputs, made when new; null past MAX_CLIENT_INPUTS. */
  clientEntry(userAgent: string, username: string, source: number | string): ClientCounts | null {
    const t = this.time;
    // A memo by user agent, user and source finds the entry without building its key (a string per request cost
    // the scan a few percent); an entry, once in clientInputs, stays the same object (mergeSnapshot merges into it).
    let byUser = this.clientMemo.get(userAgent);
    if (byUser === undefined) this.clientMemo.set(userAgent, (byUser = new Map()));
    let bySource = byUser.get(username);
    if (bySource === undefined) byUser.set(username, (bySource = new Map()));
    let c = bySource.get(source);
    if (c === undefined) {
      const k = clientInputKey(source, userAgent, username);
      c = t.clientInputs.get(k);
      if (c === undefined) {
        if (t.clientInputs.size >= MAX_CLIENT_INPUTS) return null;
        c = { all: this.clientSeries(), lists: null };
        t.clientInputs.set(k, c);
      }
      bySource.set(source, c);
    }
    return c;
  }

  /** user agent → user → source → its entry of time.clientInputs (a cache of it, bounded by its cap) */
  private readonly clientMemo = new Map<string, Map<string, Map<number | string, ClientCounts>>>();

  /** A per-client series: at least a minute wide, CLIENT_SERIES_BUCKETS at most. */
  clientSeries(): TimeSeries {
    return new TimeSeries(Math.max(CLIENT_SERIES_MIN_MS, this.timeOptions.bucketMs), CLIENT_SERIES_BUCKETS);
  }

  /** The cluster facts of a request a filter left out: the node it speaks for, and a full list's size. */
  private clusterFacts(e: AuditEvent): void {
    const node = e.nodeName ?? (e.username.startsWith('system:node:') ? e.username.slice(12) : null);
    if (node !== null) this.clusterNodes.add(node);
    if (e.verb !== 'list' || e.returnedItems === null || e.subresource.length > 0) return;
    const parsed = parseRequestUri(e.requestURI);
    const resource = e.resource || parsed.path.resource;
    if (resource.length > 0) this.noteFullList(e, resource, e.apiGroup || parsed.path.apiGroup, e.namespace || parsed.path.namespace, e.query ?? parsed.query);
  }

  /** A complete, unfiltered list of a whole resource says how many objects it has. */
  private noteFullList(e: AuditEvent, resource: string, apiGroup: string, namespace: string, q: ListQuery): void {
    // (a trace's URL has no query: its selector, limit and continue are unknown, so it says nothing of the whole)
    if (e.evidence === 'trace') return;
    if (e.returnedItems === null || (q.fieldSelector ?? '').trim() !== '' || (q.labelSelector ?? '').trim() !== '' || (q.shardSelector ?? null) !== null || namespace !== '' || q.continueToken) return;
    const total = e.returnedItems + (e.remainingItems ?? 0);
    if (q.limit === 0 || e.remainingItems !== null || e.returnedItems < q.limit) {
      const rk = resourceKeyOf(apiGroup, resource);
      if ((this.fullListObjects.get(rk) ?? -1) < total) this.fullListObjects.set(rk, total);
    }
  }

  /** A read (list, get, watch) of a resource: the groups, the time series and the full-list sizes. */
  private countRead(e: AuditEvent, resource: string, apiGroup: string, namespace: string, q: ListQuery, node: string | null, inputIndex: number): void {
    let sel = e.selectorKey === undefined ? describeSelectors(q.fieldSelector, q.labelSelector) : this.selectorsOf(e.selectorKey, q);
    // A 1.36 sharded list (KEP-5866): its shards are one client, so the range is a placeholder in the shape.
    if (q.shardSelector !== undefined && q.shardSelector !== null) sel = { ...sel, shape: sel.shape.length > 0 ? `${sel.shape} shard=<range>` : 'shard=<range>' };
    if (node === null && sel.node !== null) node = sel.node;
    if (node !== null) this.clusterNodes.add(node);
    if (resource === 'nodes' && e.name.length > 0 && apiGroup === '') this.clusterNodes.add(e.name);
    if (e.verb === 'list') this.noteFullList(e, resource, apiGroup, namespace, q);
    if ((e.verb === 'list' || isWatchList(e.verb, q, e.code)) && e.receivedMs !== null) {
      this.seriesIn(this.time.listsByResource as Map<string | number, TimeSeries>, resourceKeyOf(apiGroup, resource)).add(e.receivedMs);
    }
    this.groups.add(e, resource, apiGroup, namespace, q, sel, node, inputIndex);
    this.sink?.request({ e, input: inputIndex, resource, apiGroup, namespace, query: q, selector: sel, node });
  }

  /** The description of a selector pair the engine named `key` (selectors repeat: worked out once each). */
  selectorsOf(key: number, q: ListQuery): SelectorInfo {
    let s = this.selectorMemo.get(key);
    if (s === undefined) {
      s = describeSelectors(q.fieldSelector, q.labelSelector);
      if (this.selectorMemo.size >= MAX_SELECTOR_MEMO) this.selectorMemo.clear();
      this.selectorMemo.set(key, s);
    }
    return s;
  }
  private readonly selectorMemo = new Map<number, SelectorInfo>();

  /** Folds a worker's counts into these (etcd's: EtcdLines and EtcdReads). Order-independent. */
  merge(o: StateSnapshot): void {
    this.groups.merge(o.groups, o.groupOverflow);
    this.versions.mergeList(o.versions);
    for (const n of o.clusterNodes) this.clusterNodes.add(n);
    for (const [k, n] of o.fullListObjects) if ((this.fullListObjects.get(k) ?? -1) < n) this.fullListObjects.set(k, n);
    this.counters.requests += o.counters.requests;
    this.counters.filteredOut += o.counters.filteredOut;
    this.counters.etcdFilteredOut += o.counters.etcdFilteredOut;
    const t = this.time;
    t.all.merge(o.time.all);
    t.tokens.merge(o.time.tokens);
    for (const [k, n] of o.time.tokenAccounts) bump(t.tokenAccounts, k, n);
    for (const [k, n] of o.time.tokenTtls) t.tokenTtls.set(k, (t.tokenTtls.get(k) ?? 0) + n);
    for (const [k, s] of o.time.listsByResource) this.seriesIn(t.listsByResource as Map<string | number, TimeSeries>, k).merge(s);
    for (const [k, s] of o.time.inputLists) this.seriesIn(t.inputLists as Map<string | number, TimeSeries>, k).merge(s);
    for (const [k, s] of o.time.inputWatchEnds) this.seriesIn(t.inputWatchEnds as Map<string | number, TimeSeries>, k).merge(s);
    for (const [k, s] of o.time.initRejects) this.seriesIn(t.initRejects as Map<string | number, TimeSeries>, k).merge(s);
    for (const [k, s] of o.time.inputRequests) this.seriesIn(t.inputRequests as Map<string | number, TimeSeries>, k, INPUT_REQUEST_BUCKETS).merge(s);
    t.clientInputsOverflow += o.time.clientInputsOverflow;
    for (const [k, c] of o.time.clientInputs) {
      const mine = t.clientInputs.get(k);
      if (mine !== undefined) {
        mine.all.merge(c.all);
        if (c.lists !== null) (mine.lists ??= this.clientSeries()).merge(c.lists);
      } else if (t.clientInputs.size < MAX_CLIENT_INPUTS) {
        t.clientInputs.set(k, { all: reviveSeries(c.all, CLIENT_SERIES_BUCKETS), lists: c.lists === null ? null : reviveSeries(c.lists, CLIENT_SERIES_BUCKETS) });
      } else for (const n of c.all.buckets.values()) t.clientInputsOverflow += n; // a structured clone: no methods
    }
    // Named apiservers: at most MAX_NAMED_APISERVERS an input here too; past it the input's names go unused
    // (reconcile counts the same apiservers), so which of them are kept changes nothing reported.
    const named = new Map<number, number>();
    for (const k of t.streamRequests.keys()) {
      const idx = parseStreamKey(k).input;
      named.set(idx, (named.get(idx) ?? 0) + 1);
    }
    // (a part written before these fields, audit-scan partial's golden, has none)
    for (const [k, s] of o.time.streamRequests ?? []) {
      const idx = parseStreamKey(k).input;
      if (!t.streamRequests.has(k)) {
        if ((named.get(idx) ?? 0) >= MAX_NAMED_APISERVERS) continue;
        named.set(idx, (named.get(idx) ?? 0) + 1);
      }
      this.seriesIn(t.streamRequests as Map<string | number, TimeSeries>, k, INPUT_REQUEST_BUCKETS).merge(s);
      const l = o.time.streamLists?.get(k);
      if (l !== undefined) this.seriesIn(t.streamLists as Map<string | number, TimeSeries>, k).merge(l);
      const w = o.time.streamWatchEnds?.get(k);
      if (w !== undefined) this.seriesIn(t.streamWatchEnds as Map<string | number, TimeSeries>, k).merge(w);
    }
    this.counters.pendingEvicted += o.counters.pendingEvicted;
    this.counters.timingInexact += o.counters.timingInexact ?? 0;
    this.counters.tokenRequests += o.counters.tokenRequests;
    for (const [k, n] of o.counters.byVerb) bump(this.counters.byVerb, k, n);
    for (const [k, n] of o.userAgents) if (this.userAgents.size < 100_000 || this.userAgents.has(k)) bump(this.userAgents, k, n);
    if (o.logEvidence !== undefined) this.logEvidence.merge(o.logEvidence.entries, o.logEvidence.overflow);
  }
}
