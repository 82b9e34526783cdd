/*! One job: building the report's figures, ScanState → ScanReport (the contract in report-types.ts). Classifies
 * every read group for the assumed Kubernetes version, joins etcd-served lists with the etcd reads of the same
 * range and time to get read amplification; the findings are chosen in report-findings.ts, the live window in
 * live-window.ts. Unknown figures stay null; estimates are marked. */

import { formatCount } from '../model/count-format.js';
import { classifyRead, etcdScopeOf, type ServingOptions, type ServingVerdict } from './serving.js';
import { parseMarkKey, querySignature, UNKNOWN_QUERY_REASON, UNKNOWN_SIGNATURE, type ReadGroup } from '../aggregate/read-groups.js';
import { NO_UA, resourceKeyOf, type InputStats, type ScanState } from '../aggregate/scan-state.js';
import { mergeAgg, zapSampledSpans, type EtcdAgg, type ZapSampledSpan } from '../aggregate/etcd-reads.js';
import { latencyFigures, type LatencyFigures } from '../aggregate/latency.js';
import type { TimeSeries } from '../aggregate/time-series.js';
export type { AnyFinding, EtcdRangeReport, FigureSource, Finding, GroupReport } from './findings.js';
export { clientName } from './findings.js';
import { clientName, type AnyFinding, type EtcdRangeReport, type FigureSource, type Finding, type GroupReport } from './findings.js';
import { auditPolicyNote, etcdEvidence, fixMovesToCache, incidentOf, methodOf, summaryOf, whatIfPlanner, whyOf, type Evidence, type IncidentEvent, type Method, type Summary, type WhatIf } from './postmortem.js';
import { buildTimeline, findRestarts, findStorms, findTokenWaves, type RestartFinding, type StormFinding, type Timeline, type TokenFinding } from './time-analysis.js';
import type { Redactor } from './redact.js';
import { analyzeApiservers, apiserverPool, inferRestart, type ApiserversReport, type ImbalanceFinding } from './apiservers.js';
import { formatKubeVersion, inferKubeVersion, parseKubeVersion, type AssumedVersion, type KubeVersion } from '../model/kube-version.js';
import { formatTimestamp } from '../decode/time.js';
import { metricsFacts, type ListDelta, type MetricsDump, type MetricsFacts } from './metrics.js';
import { describeFilters } from '../aggregate/filters.js';
import { describeInput, inputYielded } from './input-kind.js';
import { apiserverLogReport, logKubeVersion, type ApiserverLogReport, type NotInAudit } from './apiserver-log-report.js';
import { logEvidenceKey, topFlowSchema } from '../aggregate/log-evidence.js';

export type { FiltersReport, InputReport, LiveWindow, MetricsListReport, MetricsReport, ScanReport } from './report-types.js';
import type { FiltersReport, InputReport, MetricsListReport, MetricsReport, ScanReport } from './report-types.js';
export { fixFor, formatBytes, formatCount, severityOf, singular } from './report-findings.js';
import { buildFindings, etcdSlowFinding, formatBytes, singular, type EtcdContext } from './report-findings.js';
import { liveWindowOf } from './live-window.js';
import { cmp } from '../model/text-order.js';

export const SCHEMA_VERSION = 1;

/** Settings that shape the report (resolved from flags in cli/config.ts). */
export interface ReportOptions {
  kubeVersion: KubeVersion | null;
  etcdVersion: string | null;
  consistentListFromCache: boolean | null;
  watchCacheDisabled: ReadonlySet<string>;
  /** --objects pods=7130: objects under a resource's prefix, given by the user */
  objectsGiven: ReadonlyMap<string, number>;
  top: number;
  toolVersion: string;
  /** --redact: pseudonyms for usernames and namespaces */
  redactor?: Redactor | null;
  /** --follow: the live window (ms) whose figures `liveWindow` gives */
  windowMs?: number;
}


/** Where the report's etcd key prefix came from: --etcd-prefix, or the keys of the reads (model/etcd-key.ts). */
export function describeEtcdPrefix(given: string | null, seen: ReadonlyMap<string, number>): ScanReport['kubernetes']['etcdPrefix'] {
  if (given !== null) return { prefixes: [given], source: 'given', reason: '--etcd-prefix' };
  const byReads = [...seen.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (byReads.length === 0) return { prefixes: ['/registry'], source: 'default', reason: 'the kube-apiserver default (no etcd read to infer it from)' };
  if (byReads.length === 1 && byReads[0]![0] === '/registry') return { prefixes: ['/registry'], source: 'default', reason: 'the kube-apiserver default; every etcd read sits under it' };
  const reason = byReads.map(([p, n]) => `${formatCount(n)} read${n === 1 ? '' : 's'} under ${p}`).join(', ');
  return { prefixes: byReads.map(([p]) => p), source: 'inferred', reason: `inferred from the keys: ${reason} (--etcd-prefix to override)` };
}

/** The APF manifests of a finding, if it has them. */
export const apfOf = (f: AnyFinding): string | null => ('apf' in f ? (f.apf ?? null) : null);

/** The one rule, for every format, of which findings' APF manifests are shown: a client worth queueing, at
 * medium severity or above. */
export const apfWarranted = (f: AnyFinding): string | null => (f.severity === 'critical' || f.severity === 'high' || f.severity === 'medium' ? apfOf(f) : null);

/** The files --apf-out writes: one per finding that warrants manifests, named by its place and client
 * ("1-vector.yaml"), each a FlowSchema and PriorityLevelConfiguration for `kubectl apply -f`. */
export function apfFiles(r: Pick<ScanReport, 'findings'>): Array<{ file: string; yaml: string }> {
  const out: Array<{ file: string; yaml: string }> = [];
  r.findings.forEach((f, i) => {
    const yaml = apfWarranted(f);
    if (yaml === null) return;
    const who = ('client' in f && typeof f.client === 'string' ? f.client : f.kind).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'client';
    out.push({ file: `${i + 1}-${who}.yaml`, yaml: yaml.endsWith('\n') ? yaml : yaml + '\n' });
  });
  return out;
}

const toObj = (m: Map<string, number>): Record<string, number> => Object.fromEntries([...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
const round1 = (x: number): number => Math.round(x * 10) / 10;

/** etcd ≥3.4.31 (3.4 line) or ≥3.5.13 supports RequestWatchProgress (feature_support_checker.go). */
export function etcdSupportsProgressNotify(v: string): boolean | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v);
  if (!m) return null;
  const [maj, min, pat] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Stryker disable next-line EqualityOperator: maj is not 3 here, so > 3 and >= 3 agree
  if (maj !== 3) return maj > 3;
  if (min < 4) return false;
  if (min === 4) return pat >= 31;
  if (min === 5) return pat >= 13;
  return true;
}

/** Builds the report. */
export function buildReport(state: ScanState, o: ReportOptions): ScanReport {
  const dumps = metricDumps(state);
  const facts = dumps.length > 0 ? metricsFacts(dumps) : null;
  const fromMetrics = facts?.kubernetesVersion ? parseKubeVersion(facts.kubernetesVersion) : null;
  // the kept requests' last bucket: with --until, a side cut before an upgrade is read by the release before it
  let keptLast = -Infinity;
  for (const b of state.time.all.buckets.keys()) if (b > keptLast) keptLast = b;
  const keptLastMs = Number.isFinite(keptLast) ? (keptLast + 1) * state.time.all.widthMs - 1 : null;
  const fromLog = logKubeVersion(state.inputs, keptLastMs);
  const assumed: AssumedVersion =
    o.kubeVersion !== null
      ? { version: o.kubeVersion, source: 'flag', reason: 'from --kube-version' }
      : fromMetrics !== null
        ? { version: fromMetrics, source: 'metrics', reason: `kubernetes_build_info in the apiserver's /metrics (${facts!.kubernetesVersions.join(', ')})` }
        : fromLog !== null
          ? { version: fromLog.version, source: 'inferred', reason: `from the apiserver's own log: its Version line ${fromLog.text}` }
          : inferKubeVersion(state.versions.list());
  let etcdVersion = o.etcdVersion;
  if (etcdVersion === null && state.etcdVersions.size > 0) etcdVersion = [...state.etcdVersions.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const progress = etcdVersion === null ? null : etcdSupportsProgressNotify(etcdVersion);
  const serving: ServingOptions = {
    version: assumed.version,
    etcdSupportsProgressNotify: progress,
    consistentListFromCache: o.consistentListFromCache,
    watchCacheDisabled: o.watchCacheDisabled,
  };
  const etcdAggs = [...state.etcd.aggs.values()];
  const clusterNodes = state.clusterNodes.size;

  const lists: GroupReport[] = [];
  const index = new Map<string, { report: GroupReport; raw: ReadGroup }>();
  const gets: GroupReport[] = [];
  let listRequests = 0;
  let listWithoutRv = 0;
  let listFromEtcd = 0;
  let getRequests = 0;
  let getFromEtcd = 0;
  let watchRequests = 0;
  let readsQueryUnknown = 0;
  // Same series widths whatever the thread count: the budget is applied once more over the final groups.
  state.groups.checkSeriesBudget();
  // Requests of groups folded away by the cap still count in the totals.
  listRequests += state.groups.overflow.requests.get('list') ?? 0;
  getRequests += state.groups.overflow.requests.get('get') ?? 0;
  watchRequests += state.groups.overflow.requests.get('watch') ?? 0;
  // Restarts once, for the verdicts (1.34+ continue pages after one) and for the findings below.
  const restartEnds = new Map<number, number[]>();
  const pool = apiserverPool(state);
  const restarts = findRestarts(state, restartEnds, (label, from, to) => inferRestart(pool, label, from, to));
  const windows = restartWindows(state, assumed.version, restartEnds);
  for (const g of state.groups.groups.values()) {
    const r = reportGroup(g, serving, etcdAggs, state, clusterNodes, o, windows, facts);
    index.set(g.key, { report: r, raw: g });
    readsQueryUnknown += r.servedFrom.unknown;
    if (g.verb === 'list') {
      listRequests += r.requests;
      listWithoutRv += r.withoutResourceVersion;
      listFromEtcd += r.servedFrom.etcd;
      lists.push(r);
    } else if (g.verb === 'get') {
      getRequests += r.requests;
      getFromEtcd += r.servedFrom.etcd;
      gets.push(r);
    } else {
      watchRequests += r.requests;
    }
  }
  lists.sort(compareGroups);
  gets.sort(compareGroups);
  const notInAudit = joinLogEvidence(state, [...lists, ...gets]);

  // Spread keeps InputStats' key order, so the JSON fields stay in the documented order.
  const inputs: InputReport[] = state.inputs.map(({ firstMs, lastMs, sketch: _sketch, fingerprint: _fp, sample: _sample, engineRead: _er, engineDeclined: _ed, metrics: _m, fileTimeMs: _ft, apiserverLog: _al, ...i }, idx) => ({
    ...i,
    skipReasons: toObj(i.skipReasons),
    otherKinds: toObj(i.otherKinds),
    implausibleKinds: toObj(i.implausibleKinds),
    wrappers: toObj(i.wrappers),
    firstSeen: formatTimestamp(firstMs),
    lastSeen: formatTimestamp(lastMs),
    looksLike: inputYielded(state.inputs[idx]!) || i.error !== null ? null : describeInput(state.inputs[idx]!, i.name === '(stdin)'),
  }));
  let firstMs = Infinity;
  let lastMs = -Infinity;
  for (const i of state.inputs) {
    if (i.firstMs !== null && i.firstMs < firstMs) firstMs = i.firstMs;
    if (i.lastMs !== null && i.lastMs > lastMs) lastMs = i.lastMs;
  }

  const etcdRanges = summarizeEtcd(etcdAggs);
  const rawOfReport = new Map([...index.values()].map((v) => [v.report, v] as const));
  const timeline = buildTimeline(
    state,
    lists.slice(0, 5).map((g) => ({ key: `${clientName(g.userAgent, g.username)} ${g.username} list ${g.resource}${g.selector ? ` ${g.selector}` : ''}`, series: rawOfReport.get(g)!.raw.series })),
  );
  // The report up to its findings; the findings and what follows from them are added below.
  const head = {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'audit-scan', version: o.toolVersion },
    kubernetes: {
      version: formatKubeVersion(assumed.version),
      source: assumed.source,
      reason: assumed.reason,
      etcdVersion,
      etcdProgressNotify: progress,
      etcdPrefix: describeEtcdPrefix(state.etcdPrefix, state.etcd.prefixes),
    },
    inputs,
    totals: {
      requests: state.counters.requests,
      listRequests,
      listWithoutResourceVersion: listWithoutRv,
      listFromEtcd,
      getRequests,
      getFromEtcd,
      watchRequests,
      tokenRequests: state.counters.tokenRequests,
      filteredOut: state.counters.filteredOut,
      etcdSlowRanges: state.etcd.clientReads,
      etcdInternalRanges: state.etcd.internalReads,
      etcdInternalByReason: toObj(state.etcd.internalByReason),
      clusterNodes,
      skippedLines: state.inputs.reduce((s, i) => s + i.skippedLines, 0),
      pendingEvicted: state.counters.pendingEvicted,
      duplicateRequests: state.inputs.reduce((n, i) => n + i.duplicateRequests, 0),
      readsQueryUnknown,
      firstSeen: Number.isFinite(firstMs) ? formatTimestamp(firstMs) : null,
      lastSeen: Number.isFinite(lastMs) ? formatTimestamp(lastMs) : null,
    },
    listGroups: lists.slice(0, o.top),
    listGroupsTotal: lists.length,
    groupsCapped:
      state.groups.overflow.groups > 0
        ? { foldedGroups: state.groups.overflow.groups, foldedRequests: toObj(state.groups.overflow.requests), maxCountError: state.groups.overflow.maxFolded }
        : null,
    getGroups: gets.slice(0, o.top),
    getGroupsTotal: gets.length,
    etcdRanges: etcdRanges.slice(0, o.top),
    topUserAgents: [...state.userAgents.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, o.top)
      .map(([userAgent, requests]) => ({
        userAgent: o.redactor && userAgent.startsWith(NO_UA) ? NO_UA + o.redactor.user(userAgent.slice(NO_UA.length)) : userAgent,
        requests,
      })),
  } satisfies Partial<ScanReport>;
  const rank: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
  const token = findTokenWaves(state);
  const groupOf = new Map<Finding, GroupReport>();
  const auditEvents = state.inputs.reduce((n, i) => n + i.auditEvents, 0);
  const etcdContext: EtcdContext = {
    thresholdMs: [...state.etcdThresholds.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? null,
    slow: state.etcdSlow,
    auditFiltered: auditEvents > 0 && state.counters.requests === 0 && state.counters.filteredOut > 0,
    audit: auditEvents > 0,
  };
  const slowDisk = etcdSlowFinding(etcdContext);
  const storms = findStorms(state, index);
  const apiservers = analyzeApiservers(state, restarts, storms, pool);
  const findings: ScanReport['findings'] = [
    ...buildFindings(head, lists, gets, etcdRanges, assumed.version, groupOf, etcdContext),
    ...(slowDisk ? [slowDisk] : []),
    ...storms,
    ...(token ? [token] : []),
    ...restarts,
    ...apiservers.findings,
  ];
  findings.sort((a, b) => rank[a.severity]! - rank[b.severity]!);
  // The postmortem parts: why, evidence and what-if per finding; the summary, the incident, every fix at once.
  const reads = [...index.values()];
  const whatIf = whatIfPlanner(reads);
  const fixed: typeof reads = [];
  for (const f of findings) {
    const g = 'client' in f ? groupOf.get(f as Finding) : undefined;
    f.why = whyOf(f, g);
    if (g === undefined) continue;
    const cf = f as Finding;
    cf.evidence = { sampleRequestURI: o.redactor ? null : rawOfReport.get(g)!.raw.sampleUri, etcd: g.verb === 'list' ? etcdEvidence(g, etcdRanges) : null };
    if (fixMovesToCache(g.reasons)) {
      cf.whatIf = whatIf([rawOfReport.get(g)!]);
      fixed.push(rawOfReport.get(g)!);
    } else cf.whatIf = null;
  }
  const report: ScanReport = {
    ...head,
    findings,
    timeline,
    summary: summaryOf(findings, lists, state.time.all, { count: formatCount, bytes: formatBytes, singular }),
    incident: incidentOf(findings, formatCount),
    whatIf: whatIf(fixed),
    method: methodOf(lists, head.kubernetes),
    metrics: metricsReportOf(facts, dumps.length, o.top),
    filters: filtersReportOf(state),
    apiservers: apiservers.report,
    ...((): { apiserverLog?: ApiserverLogReport } => {
      const al = apiserverLogReport(state.inputs, assumed.version, notInAudit, state.timeOptions.logAsEvidence === true, keptLastMs);
      return al === null ? {} : { apiserverLog: al };
    })(),
  };
  if (apiservers.method !== '') report.method.apiservers = apiservers.method;
  // every read group's requests without a status: none reached a stage after RequestReceived
  const readGroups = [...lists, ...gets];
  const noResponses = readGroups.length > 0 && readGroups.every((g) => Object.keys(g.codes).every((k) => k === 'none'));
  // Stryker disable next-line ArithmeticOperator: auditPolicyNote reads the event count only as === 0, and 0 − a − b is 0 exactly when a + b is (counts are never negative)
  const policy = auditPolicyNote(state.counters.byVerb, state.inputs.reduce((n, i) => n + i.auditEvents, 0), report.filters !== null, noResponses);
  if (policy !== null) report.method.auditPolicy = policy;
  if (report.metrics !== null) addMetricsMethod(report.method, report.metrics);
  addEtcdSamplingMethod(report.method, zapSampledSpans(state.etcd.zapSeconds));
  if (state.counters.timingInexact > 0) {
    // replayHead (aggregate/timing.ts): a cut between threads or shards inside a long stretch of older events
    const n = state.counters.timingInexact;
    report.method.estimated.push(`time gaps: at ${formatCount(n)} ${n === 1 ? 'place' : 'places'} where the input was cut for threads or shards, more than 4,096 events older than the cut came first (logs joined out of time order), so the spacing just after the cut was measured from there; -j 1 measures it exactly`);
    // Stryker disable next-line MethodExpression: every other estimated line (bytes …, objects …, slow etcd reads …) sorts before "time gaps", so the push keeps the list sorted
    report.method.estimated.sort();
  }
  if (report.filters !== null) {
    report.method.measured.push(`the Kubernetes and etcd versions, the nodes and the object counts of full lists: every line read, before the filters (${report.filters.applied.join(' ')})`);
    // Stryker disable next-line MethodExpression: every other measured line (bytes …, objects …, requests …) sorts before "the Kubernetes …", so the push keeps the list sorted
    report.method.measured.sort();
  }
  if (o.windowMs !== undefined) report.liveWindow = liveWindowOf(state, index, o.windowMs, o.top, firstMs, lastMs);
  return report;
}

function filtersReportOf(state: ScanState): FiltersReport | null {
  const applied = describeFilters(state.timeOptions.filter);
  if (applied.length === 0) return null;
  return { applied, requestsLeftOut: state.counters.filteredOut, etcdLinesLeftOut: state.counters.etcdFilteredOut };
}

/** true when the filters left out every request and every etcd read there was: nothing is left to clear. */
export function filteredAway(r: Pick<ScanReport, 'filters' | 'totals'>): boolean {
  return r.filters !== null && r.totals.requests === 0 && r.totals.etcdSlowRanges + r.totals.etcdInternalRanges === 0 && r.filters.requestsLeftOut + r.filters.etcdLinesLeftOut > 0;
}

/** Each input's metric samples as one dump: taken when its samples say, else when its name says
 * (metrics-20261130T120000Z.txt), else at the file's modification time; from the process its
 * process_start_time_seconds names, so two dumps of one apiserver pair up (analyze/metrics.ts). */
export function metricDumps(state: ScanState): MetricsDump[] {
  const out: MetricsDump[] = [];
  for (const i of state.inputs) {
    if (i.metrics.length === 0) continue;
    const start = i.metrics.find((m) => m.name === 'process_start_time_seconds' && m.labels.instance === undefined && Number.isFinite(m.value));
    out.push({
      input: i.name,
      apiserver: start === undefined ? null : `the apiserver started at ${new Date(start.value * 1000).toISOString()}`,
      timeMs: timeInName(i.name) ?? i.fileTimeMs,
      samples: i.metrics,
    });
  }
  return out;
}

/** A UTC time in a file's name: 2026-11-30T12:00:00Z, 20261130T120000Z or 20261130-120000. */
export function timeInName(name: string): number | null {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const m = /(\d{4})-?(\d\d)-?(\d\d)[T_-](\d\d):?(\d\d):?(\d\d)/.exec(base);
  if (m === null) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isFinite(t) ? t : null;
}

function listReport(d: ListDelta | null): MetricsListReport | null {
  if (d === null) return null;
  return { lists: d.lists, fetchedPerList: d.fetchedPerList === null ? null : round1(d.fetchedPerList), returnedPerList: d.returnedPerList === null ? null : round1(d.returnedPerList), amplification: d.amplification === null ? null : round1(d.amplification), from: new Date(d.fromMs).toISOString(), to: new Date(d.toMs).toISOString(), resets: d.resets };
}

function metricsReportOf(facts: MetricsFacts | null, dumps: number, top: number): MetricsReport | null {
  if (facts === null) return null;
  const rows = [...facts.resources.values()].map((r) => ({
    resource: r.key,
    objects: r.objects?.count ?? null,
    objectsAt: r.objects?.timeMs == null ? null : new Date(r.objects.timeMs).toISOString(),
    etcdLists: listReport(r.storageLists),
    cacheLists: listReport(r.cacheLists),
    sizeEstimateBytes: r.sizeEstimateBytes,
  }));
  // most objects fetched from etcd between dumps first, then most objects
  const fetched = (x: (typeof rows)[number]): number => (x.etcdLists?.lists ?? 0) * (x.etcdLists?.fetchedPerList ?? 0);
  rows.sort((a, b) => fetched(b) - fetched(a) || (b.objects ?? -1) - (a.objects ?? -1) || (a.resource < b.resource ? -1 : 1));
  let reason: string | null = null;
  if (rows.every((r) => r.etcdLists === null && r.cacheLists === null)) {
    reason = [...facts.resources.values()].map((r) => r.storageListsReason).find((x) => x !== null) ?? 'no list counters in the dumps';
  }
  return { dumps, apiservers: facts.apiservers.length, kubernetesVersion: facts.kubernetesVersion, resources: rows.slice(0, Math.max(top, 20)), deltasReason: reason };
}

/** Where etcd's zap logger may have dropped lines (etcd-reads.ts zapSampledSpans), the etcd counts are a lower bound:
 * the method says so, and where. Nothing when the log holds no stretch that dense (or is capnslog, which keeps all). */
export function addEtcdSamplingMethod(m: Method, spans: ZapSampledSpan[]): void {
  if (spans.length === 0) return;
  const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
  m.etcdSampled = spans.map((s) => ({ from: iso(s.fromMs), to: iso(s.toMs), message: s.message, lines: s.lines }));
  const where = spans.slice(0, 3).map((s) => `${iso(s.fromMs)} to ${iso(s.toMs).slice(11)} (${formatCount(s.lines)} "${s.message}" lines)`);
  if (spans.length > 3) where.push(`${spans.length - 3} more stretch${spans.length === 4 ? '' : 'es'}`);
  m.estimated.push(
    `slow etcd reads ${where.join(', ')}: a lower bound, as etcd's zap logger writes 100 lines of a message a second, then 1 in 100 (slow reads and writes share one message), and the log is that dense there`,
  );
  m.estimated.sort();
}

function addMetricsMethod(m: Method, r: MetricsReport): void {
  if (r.resources.some((x) => x.etcdLists !== null)) {
    m.measured.push('objects fetched and returned per etcd list, between two metrics dumps of one apiserver: apiserver_storage_list_fetched_objects_total and _returned_objects_total ÷ apiserver_storage_list_total (these count the limit:1 revision reads of consistent reads too)');
    m.measured.sort();
  }
}

/** Worst first: most objects read from etcd, then most etcd requests, then most requests; ties by name. */
export function compareGroups(a: GroupReport, b: GroupReport): number {
  const sa = a.servedFrom.etcd * (a.objectsReadPerRequest ?? 1);
  const sb = b.servedFrom.etcd * (b.objectsReadPerRequest ?? 1);
  if (sa !== sb) return sb - sa;
  if (a.servedFrom.etcd !== b.servedFrom.etcd) return b.servedFrom.etcd - a.servedFrom.etcd;
  if (a.requests !== b.requests) return b.requests - a.requests;
  const ka = `${a.userAgent}\u0000${a.username}\u0000${a.resource}\u0000${a.selector}\u0000${a.namespace}`;
  const kb = `${b.userAgent}\u0000${b.username}\u0000${b.resource}\u0000${b.selector}\u0000${b.namespace}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Reads a restart changes, per input: [from, to) spans while a watch cache was (re)initialising (1.31+: the
 * 429s "storage is (re)initializing" of a resource show it, per resource key) and, on 1.34+, the minute after an
 * apiserver restarted, when continue tokens minted before it are older than its new cache's snapshots. */
export interface RestartWindows {
  /** `${input}\u0000${resourceKey}` → [from, to) spans when the resource's cache on that input was not ready */
  initializing: Map<string, Array<[number, number]>>;
  /** input → [from, to) spans after a restart of that input's apiserver (1.34+ only) */
  afterRestart: Map<number, Array<[number, number]>>;
}

/** How long after an apiserver restart a continue page is taken to carry a token minted before it (1.34+). */
export const CONTINUE_AFTER_RESTART_MS = 60_000;

function restartWindows(state: ScanState, v: KubeVersion, restartEnds: ReadonlyMap<number, number[]>): RestartWindows {
  const initializing = new Map<string, Array<[number, number]>>();
  if (v.minor >= 31) {
    for (const [key, m] of state.time.initRejects) {
      if (m.buckets.size === 0) continue;
      let lo = Infinity;
      let hi = -Infinity;
      for (const b of m.buckets.keys()) {
        lo = Math.min(lo, b * m.widthMs);
        hi = Math.max(hi, (b + 1) * m.widthMs);
      }
      initializing.set(key, [[lo, hi]]);
    }
  }
  const afterRestart = new Map<number, Array<[number, number]>>();
  if (v.minor >= 34) {
    for (const [idx, ends] of restartEnds) afterRestart.set(idx, ends.map((t) => [t, t + CONTINUE_AFTER_RESTART_MS] as [number, number]));
  }
  return { initializing, afterRestart };
}

/** Requests of mark series `m` inside any of `spans`. */
function markedIn(m: TimeSeries, spans: Array<[number, number]> | undefined): number {
  if (spans === undefined) return 0;
  let n = 0;
  for (const [a, b] of spans) n += m.sumIn(a, b);
  return n;
}

const INIT_ETCD_REASON = 'limit without selector while the watch cache (re)initialised after a restart (1.31+: delegated to etcd)';
const CONTINUE_AFTER_RESTART_REASON = 'continue token within a minute of this apiserver’s restart (1.34+: older than its new cache’s snapshots, so etcd)';

/** Joins the apiserver log's requests, read as evidence beside an audit log (aggregate/log-evidence.ts), to the
 * audit's groups of the same verb, user agent, resource and selector shape; returns what no group matched: requests
 * the apiserver served that the audit log does not hold. */
function joinLogEvidence(state: ScanState, groups: GroupReport[]): NotInAudit | null {
  const ev = state.logEvidence;
  const used = new Set<string>();
  for (const g of groups) {
    const k = logEvidenceKey(g.verb, g.userAgent, g.apiGroup, g.resource, g.selector);
    const x = ev.entries.get(k);
    if (x === undefined) continue;
    used.add(k);
    g.apiserverLog = { httplog: x.httplog, trace: x.trace, timeout: x.timeout, traced: x.traced, observedEtcd: x.observedEtcd, flowSchema: topFlowSchema(x.flowSchemas), priorityLevel: x.priorityLevel.length > 0 ? x.priorityLevel : null, sourceIPs: null };
  }
  // The most requests first, then by client and resource; the entry's key (verb, group, selector too) settles the
  // rest, so the order never follows the order of the log.
  const rest = [...ev.entries].filter(([k]) => !used.has(k));
  rest.sort(([ka, a], [kb, b]) => b.requests - a.requests || cmp(a.userAgent, b.userAgent) || cmp(a.resource, b.resource) || cmp(ka, kb));
  const requests = rest.reduce((n, [, x]) => n + x.requests, 0) + ev.overflow;
  if (requests === 0) return null;
  return {
    requests,
    groups: rest.slice(0, 10).map(([, x]) => ({ verb: x.verb, userAgent: x.userAgent, resource: x.apiGroup.length > 0 ? `${x.resource}.${x.apiGroup}` : x.resource, selector: x.selector, requests: x.requests, flowSchema: topFlowSchema(x.flowSchemas) })),
  };
}

/** Why a read the rule puts in the watch cache is counted as served from etcd: a trace showed it. */
const TRACE_ETCD_REASON = "the apiserver's trace of the request shows its storage read etcd";

function reportGroup(g: ReadGroup, serving: ServingOptions, aggs: EtcdAgg[], state: ScanState, clusterNodes: number, o: ReportOptions, windows: RestartWindows, facts: MetricsFacts | null): GroupReport {
  let etcd = 0;
  let cacheN = 0;
  let withoutRv = 0;
  const reasons = new Map<string, number>();
  // The reasons of the reads counted as served from the cache, and how many: a trace can move them to etcd.
  const cacheReasons = new Map<string, number>();
  let etcdScope: 'all' | 'namespace' | 'single' | null = null;
  // The classifier reads only whether a namespace, a name or a selector is there, not what it is.
  // Stryker disable next-line LogicalOperator,ArrayDeclaration,StringLiteral: any non-empty stand-in gives the same verdict
  const someNamespace = [...g.namespaces][0] ?? 'x';
  const ns = g.scope === 'namespaced' ? someNamespace : '';
  // Stryker disable next-line StringLiteral,BooleanLiteral: as above
  const selStub = { shape: g.selector, node: null, singleName: g.singleName ? 'x' : null, singleNamespace: g.singleNamespace ? 'x' : null, hasFieldSelector: false, hasLabelSelector: false };
  let unknown = 0;
  let rejected = 0;
  const bump = (reason: string, n: number): void => {
    if (n > 0) reasons.set(reason, (reasons.get(reason) ?? 0) + n);
  };
  // Answered reads a restart sent to etcd although their query alone says cache, per signature.
  const moved = new Map<string, { n: number; reason: string }>();
  const rk = resourceKeyOf(g.apiGroup, g.resource);
  for (const [k, m] of g.marks) {
    const { kind, sig, input } = parseMarkKey(k);
    const n =
      kind === 'lim' ? markedIn(m, windows.initializing.get(`${input}\u0000${rk}`)) : kind === 'cont' ? markedIn(m, windows.afterRestart.get(input)) : 0;
    if (n === 0) continue;
    const reason = kind === 'lim' ? INIT_ETCD_REASON : CONTINUE_AFTER_RESTART_REASON;
    const prev = moved.get(sig);
    moved.set(sig, { n: (prev?.n ?? 0) + n, reason: prev?.reason ?? reason });
  }
  for (const [sig, all] of g.signatures) {
    const refused = g.rejected.get(sig) ?? 0;
    if (refused > 0) {
      rejected += refused;
      bump(g.initRejected > 0 ? 'answered 429: API Priority and Fairness, or the watch cache (re)initialising' : 'answered 429 (API Priority and Fairness)', refused);
    }
    const n = all - refused;
    if (sig === UNKNOWN_SIGNATURE) {
      unknown += n;
      bump(UNKNOWN_QUERY_REASON, n);
      continue;
    }
    const q = querySignature(sig);
    if (q.resourceVersion === null && !q.continueToken) withoutRv += all;
    const v = classifyRead(g.verb, g.resource, ns, q, selStub, serving);
    if (v === null) continue;
    let here = n;
    const mv = moved.get(sig);
    if (mv !== undefined && v.servedFrom === 'cache') {
      const k = Math.min(mv.n, here);
      here -= k;
      bump(mv.reason, k);
      etcd += k;
      if (k > 0) etcdScope = etcdScopeOf(g.resource, ns, selStub);
    }
    bump(v.reason, here);
    if (v.servedFrom === 'cache' && here > 0) cacheReasons.set(v.reason, (cacheReasons.get(v.reason) ?? 0) + here);
    count(v, here);
  }
  // A trace in the apiserver's log that shows a request's storage read etcd is what happened, whatever the rule
  // says for its query (a cache not ready after a restart, a gate off): those move from cache to etcd.
  const proven = g.fromLog?.observedEtcd ?? 0;
  if (proven > etcd && cacheN > 0) {
    const k = Math.min(proven - etcd, cacheN);
    cacheN -= k;
    etcd += k;
    bump(TRACE_ETCD_REASON, k);
    // The moved reads leave their cache reasons (which requests the traces were is not known: the largest first),
    // so the reasons still add up to the requests.
    let left = k;
    for (const [reason, n] of [...cacheReasons].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]))) {
      const off = Math.min(n, left);
      const stays = (reasons.get(reason) ?? 0) - off;
      if (stays > 0) reasons.set(reason, stays);
      else reasons.delete(reason);
      left -= off;
      if (left === 0) break;
    }
    etcdScope ??= etcdScopeOf(g.resource, ns, selStub);
  }
  function count(v: ServingVerdict, n: number): void {
    if (n === 0) return;
    if (v.servedFrom === 'etcd') {
      etcd += n;
      etcdScope = v.etcdScope;
    } else if (v.servedFrom === 'cache') cacheN += n;
    else rejected += n;
  }
  const red = o.redactor ?? null;
  const base: GroupReport = {
    verb: g.verb,
    watchLists: g.watchLists,
    userAgent: g.userAgent,
    username: red ? red.user(g.username) : g.username,
    resource: g.resource,
    apiGroup: g.apiGroup,
    namespace: g.scope === 'cluster' ? null : g.namespaces.size === 1 ? (red ? red.namespace([...g.namespaces][0]!) : [...g.namespaces][0]!) : '*',
    namespaces: g.namespaces.size,
    selector: g.selector,
    requests: g.requests,
    nodes: g.nodes.size,
    withoutResourceVersion: withoutRv,
    servedFrom: { etcd, cache: cacheN, unknown, rejected },
    rejectedInitializing: g.initRejected,
    reasons: toObj(reasons),
    objectsReadPerRequest: null,
    objectsReturnedPerRequest: g.returnedN > 0 ? round1(g.returnedSum / g.returnedN) : null,
    bytesReadPerRequest: null,
    bytesReadTotal: null,
    amplification: null,
    estimated: false,
    figureSources: { objectsRead: null, objectsReturned: g.returnedN > 0 ? (g.fromLog !== undefined ? 'apiserver-trace' : 'audit-response') : null, bytesRead: null },
    codes: toObj(g.codes),
    firstSeen: formatTimestamp(g.firstMs),
    lastSeen: formatTimestamp(g.lastMs),
    latencyMs: latencyFigures(g.latency),
    etcdLatencyMs: latencyFigures(g.etcdLatency),
    apfQueueWaitMs: latencyFigures(g.apfWait),
    ...(g.fromLog === undefined
      ? {}
      : {
          apiserverLog: {
            httplog: g.fromLog.httplog,
            trace: g.fromLog.trace,
            timeout: g.fromLog.timeout,
            traced: g.fromLog.traced,
            observedEtcd: g.fromLog.observedEtcd,
            flowSchema: g.flowSchema ?? null,
            priorityLevel: g.fromLog.priorityLevel.length > 0 ? g.fromLog.priorityLevel : null,
            sourceIPs: g.fromLog.sourceIPs.size,
          },
        }),
  };
  // etcdScope is set by the first request served from etcd, so null means none was
  if (g.verb !== 'list' || etcdScope === null) return base;
  amplify(base, g, etcdScope, aggs, state, clusterNodes, o, facts);
  return base;
}

/** Fills objects read/returned, bytes and the ratio for an etcd-served list group. */
function amplify(r: GroupReport, g: ReadGroup, scope: 'all' | 'namespace' | 'single', aggs: EtcdAgg[], state: ScanState, clusterNodes: number, o: ReportOptions, facts: MetricsFacts | null = null): void {
  const rk = resourceKeyOf(g.apiGroup, g.resource);
  if (scope === 'single') {
    r.objectsReadPerRequest = 1;
    r.objectsReturnedPerRequest ??= 1;
    r.figureSources.objectsRead = 'single-object';
    r.figureSources.objectsReturned ??= 'single-object';
    r.amplification = round1(1 / Math.max(r.objectsReturnedPerRequest, 1));
    return;
  }
  const nsSet = g.namespaces;
  const matching = aggs.filter(
    (a) => a.internal === null && a.resourceKey === rk && a.scope === scope && (scope === 'all' || (a.namespace !== null && nsSet.has(a.namespace))),
  );
  // Prefer reads inside the group's time window (±1 minute), then any time.
  const lo = g.firstMs === null ? -Infinity : Math.floor(g.firstMs / 60000) - 1;
  const hi = g.lastMs === null ? Infinity : Math.floor(g.lastMs / 60000) + 1;
  const inWindow = matching.filter((a) => a.minute === -1 || (a.minute >= lo && a.minute <= hi));
  const pool = inWindow.length > 0 ? inWindow : matching;
  const unlimited = pool.filter((a) => !a.limited);
  let objects: number | null = null;
  let bytes: number | null = null;
  const sumO = unlimited.reduce((s, a) => s + a.objectsSum, 0);
  const nO = unlimited.reduce((s, a) => s + a.objectsN, 0);
  if (nO > 0) objects = sumO / nO;
  else {
    const tk = Math.max(0, ...pool.map((a) => a.totalKeysMax));
    if (tk > 0) objects = tk;
  }
  const sumB = unlimited.reduce((s, a) => s + a.bytesSum, 0);
  const nB = unlimited.reduce((s, a) => s + a.bytesN, 0);
  if (nB > 0) bytes = sumB / nB;
  let readSource: FigureSource | null = objects !== null ? 'etcd-log' : null;
  const given = o.objectsGiven.get(g.resource) ?? o.objectsGiven.get(rk);
  if (given !== undefined) {
    objects = given;
    readSource = 'given';
  }
  // No etcd log (managed control planes): the apiserver's own count of the objects under the prefix, which a
  // list of the whole resource reads from etcd.
  const counted = scope === 'all' ? facts?.resources.get(rk) : undefined;
  if (objects === null && counted?.objects != null) {
    objects = counted.objects.count;
    readSource = 'metrics';
  }
  if (objects === null && scope === 'all') {
    const full = state.fullListObjects.get(rk);
    if (full !== undefined) {
      objects = full;
      readSource = 'audit-full-list';
    }
  }
  let bytesSource: GroupReport['figureSources']['bytesRead'] = bytes !== null ? 'etcd-log' : null;
  if (objects !== null && (bytes === null || readSource === 'given')) {
    // bytes per object from any read of this resource
    const all = aggs.filter((a) => a.resourceKey === rk && a.objectsSum > 0 && a.objectsN === a.bytesN);
    const ob = all.reduce((s, a) => s + a.objectsSum, 0);
    const bb = all.reduce((s, a) => s + a.bytesSum, 0);
    if (ob > 0) {
      bytes = (objects * bb) / ob;
      bytesSource = 'estimate-bytes-per-object';
    } else if (readSource === 'given') {
      bytes = null;
      bytesSource = null;
    }
  }
  // Stryker disable next-line OptionalChaining: readSource 'metrics' is set only when counted?.objects != null, so counted is defined here
  if (bytes === null && readSource === 'metrics' && counted?.sizeEstimateBytes != null && counted.sizeEstimateBytes > 0) {
    // apiserver_resource_size_estimate_bytes (1.34+): the bytes of all the resource's objects, what a full list reads
    bytes = counted.sizeEstimateBytes;
    bytesSource = 'metrics';
  }
  r.objectsReadPerRequest = objects === null ? null : round1(objects);
  r.figureSources.objectsRead = readSource;
  r.bytesReadPerRequest = bytes === null ? null : Math.round(bytes);
  r.figureSources.bytesRead = bytesSource;
  if (r.bytesReadPerRequest !== null) r.bytesReadTotal = r.bytesReadPerRequest * r.servedFrom.etcd;
  if (r.objectsReturnedPerRequest === null && objects !== null) {
    if (g.selector.includes('<node>') && scope === 'all') {
      const nodes = Math.max(clusterNodes, g.nodes.size);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a <node> selector names a node, so its group has seen one
      if (nodes > 0) {
        r.objectsReturnedPerRequest = round1(objects / nodes);
        r.figureSources.objectsReturned = 'estimate-objects-per-node';
      }
    } else if (g.selector === '') {
      r.objectsReturnedPerRequest = round1(objects);
      r.figureSources.objectsReturned = 'unfiltered-list';
    }
  }
  if (objects !== null && r.objectsReturnedPerRequest !== null) {
    r.amplification = round1(objects / Math.max(r.objectsReturnedPerRequest, 1));
  }
  r.estimated =
    r.figureSources.objectsReturned === 'estimate-objects-per-node' || r.figureSources.objectsRead === 'given' || r.figureSources.bytesRead === 'estimate-bytes-per-object';
}

/** etcd aggregates → one row per range (all minutes together), client reads first, most objects read first. */
export function summarizeEtcd(aggs: EtcdAgg[]): EtcdRangeReport[] {
  const m = new Map<string, EtcdAgg>();
  for (const a of aggs) {
    // Stryker disable next-line StringLiteral: any stand-in for no reason that no reason equals
    const k = `${a.internal ?? ''}|${a.keyLabel}|${a.limited ? 1 : 0}`;
    const b = m.get(k);
    if (b === undefined) {
      m.set(k, { ...a });
      continue;
    }
    mergeAgg(b, a);
  }
  return [...m.values()]
    .map((a) => ({
      key: a.keyLabel,
      resource: a.resource,
      scope: a.scope,
      limited: a.limited,
      internal: a.internal,
      reads: a.reads,
      objectsPerRead: a.objectsN > 0 ? round1(a.objectsSum / a.objectsN) : null,
      objectsMax: a.objectsN > 0 ? a.objectsMax : null,
      bytesPerRead: a.bytesN > 0 ? Math.round(a.bytesSum / a.bytesN) : null,
      tookMsAvg: a.tookN > 0 ? round1(a.tookSum / 1000 / a.tookN) : null,
      tookMsMax: a.tookN > 0 ? round1(a.tookMax) : null,
      errors: a.errors,
      firstSeen: formatTimestamp(a.firstMs),
      lastSeen: formatTimestamp(a.lastMs),
    }))
    .sort((x, y) => {
      if ((x.internal === null) !== (y.internal === null)) return x.internal === null ? -1 : 1;
      const ox = x.reads * (x.objectsPerRead ?? 0);
      const oy = y.reads * (y.objectsPerRead ?? 0);
      if (ox !== oy) return oy - ox;
      if (x.reads !== y.reads) return y.reads - x.reads;
      return cmp(x.key, y.key);
    });
}

/** true when no input gave anything to analyse (the wrong files, or empty ones): the report must not read as an all-clear. */
export function nothingRead(r: Pick<ScanReport, 'inputs'>): boolean {
  return r.inputs.every((i) => i.looksLike !== null || i.error !== null);
}
