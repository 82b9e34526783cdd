/*! The shapes of the report's parts that the analysis modules hand each other: groups, etcd ranges and the
 * findings of every kind (report.ts assembles them; time-analysis.ts, apiservers.ts and postmortem.ts each make
 * or word some), and the two names they share. Here so that those modules import it, not each other. */

import type { LatencyFigures } from '../aggregate/latency.js';

/** Where a figure came from. */
export type FigureSource = 'etcd-log' | 'metrics' | 'given' | 'audit-full-list' | 'audit-response' | 'apiserver-trace' | 'estimate-objects-per-node' | 'unfiltered-list' | 'single-object';

export interface GroupReport {
  /** 'list' for lists and watch-lists (watches with sendInitialEvents=true) alike */
  verb: string;
  /** of `requests`, the watch-lists */
  watchLists: number;
  userAgent: string;
  username: string;
  resource: string;
  apiGroup: string;
  namespace: string | null;
  namespaces: number;
  selector: string;
  requests: number;
  nodes: number;
  withoutResourceVersion: number;
  /** unknown: reads whose query the log did not keep (GKE), so where they were served is not known; rejected:
   * answered 429 (API Priority and Fairness, or a watch cache still (re)initialising) or refused as invalid, so
   * read from neither */
  servedFrom: { etcd: number; cache: number; unknown: number; rejected: number };
  /** of the rejected, the 429s of a (re)initialising watch cache ("storage is (re)initializing", 1.31+) */
  rejectedInitializing: number;
  reasons: Record<string, number>;
  objectsReadPerRequest: number | null;
  objectsReturnedPerRequest: number | null;
  bytesReadPerRequest: number | null;
  bytesReadTotal: number | null;
  amplification: number | null;
  estimated: boolean;
  figureSources: { objectsRead: FigureSource | null; objectsReturned: FigureSource | null; bytesRead: FigureSource | 'estimate-bytes-per-object' | null };
  codes: Record<string, number>;
  firstSeen: string | null;
  lastSeen: string | null;
  /** stageTimestamp − requestReceivedTimestamp of the final stage: p50, p90, p99 (within 1%), the max, the count */
  latencyMs: LatencyFigures | null;
  /** the apiserver.latency.k8s.io/etcd annotation, over the requests that carry it (those over 500 ms) */
  etcdLatencyMs: LatencyFigures | null;
  /** apiserver.latency.k8s.io/apf-queue-wait (1.31+), over the requests that carry it */
  apfQueueWaitMs: LatencyFigures | null;
  /** present when the group was read from the apiserver's own log: its requests by line kind (httplog, a trace
   * alone, a timeout alone), how many were traced and how many a trace showed reading etcd, the APF flow schema
   * and priority level httplog names, and the distinct client addresses (null for an audit group, to which the
   * apiserver log's requests of the same client, verb, resource and selector were joined) */
  apiserverLog?: { httplog: number; trace: number; timeout: number; traced: number; observedEtcd: number; flowSchema: string | null; priorityLevel: string | null; sourceIPs: number | null };
}

export interface EtcdRangeReport {
  key: string;
  resource: string;
  scope: string;
  limited: boolean;
  internal: string | null;
  reads: number;
  objectsPerRead: number | null;
  objectsMax: number | null;
  bytesPerRead: number | null;
  tookMsAvg: number | null;
  tookMsMax: number | null;
  errors: number;
  firstSeen: string | null;
  lastSeen: string | null;
}

export interface Finding {
  kind: string;
  severity: 'critical' | 'high' | 'medium' | 'low' | 'info';
  summary: string;
  fix: string;
  client?: string;
  userAgent?: string;
  username?: string;
  resource?: string;
  /** the selector shape of its group (client findings): with kind, client, user and resource, which group it is */
  selector?: string;
  requests?: number;
  etcdRequests?: number;
  nodes?: number;
  amplification?: number | null;
  bytesReadTotal?: number | null;
  estimated?: boolean;
  apf?: string | null;
  /** why it matters, from how the apiserver works */
  why?: string;
  /** one of its requests, and the etcd reads of its range */
  evidence?: Evidence;
  /** what its fix would change, computed from this log; null when the fix is not a move to the watch cache */
  whatIf?: WhatIf | null;
}

/** Any finding in findings[]. */
export type AnyFinding = Finding | RestartFinding | StormFinding | TokenFinding | ImbalanceFinding;

/** What says a pause of one apiserver was its restart, when nothing else in the log does. */
export interface GapInference {
  /** the other apiservers' requests per second in the 10 minutes before the pause, and during it */
  peersRateBefore: number;
  peersRateDuring: number;
  /** its share in the 10 minutes before, and from the pause's end while it stayed low */
  shareBefore: number;
  shareAfter: number;
  evenShare: number;
  /** how long the share stayed low after the pause, in seconds */
  lowSeconds: number;
  endedAfterLog: boolean;
}

/** "vector/0.34.0 (linux)" → "vector"; falls back to the username. */
export function clientName(userAgent: string, username: string): string {
  const m = /^[^/\s]+/.exec(userAgent.trim());
  if (m) return m[0];
  const sa = /^system:serviceaccount:[^:]+:(.+)$/.exec(username);
  return sa ? sa[1]! : username.length > 0 ? username : 'unknown client';
}

export interface RestartFinding {
  /** apiserver-restart when the gap is followed by a relist burst or preceded by watches ending; else audit-gap */
  kind: 'apiserver-restart' | 'audit-gap';
  severity: 'medium' | 'info';
  summary: string;
  fix: string;
  input: string;
  start: string;
  end: string;
  gapSeconds: number;
  /** the pause that made a gap in this input: --gap, or 100× its median spacing (at least 5 s) */
  gapThresholdSeconds: number;
  listsInMinuteBefore: number;
  listsInMinuteAfter: number;
  watchesClosedBefore: number;
  /** requests this apiserver answered 429 in the minute after (API Priority and Fairness, or its watch cache
   * (re)initialising, which 1.31+ answers "storage is (re)initializing" for lists with selectors or without a
   * limit, and for watches) */
  rejectedInMinuteAfter: number;
  /** of those, the watch cache's */
  rejectedInitializing: number;
  /** who got them, most first (at most 5) */
  rejectedClients: Array<{ client: string; requests: number }>;
  /** audit-gap only, when an input had several quiet spells: each of them (start, end, gapSeconds are the first) */
  gaps?: Array<{ start: string; end: string; seconds: number }>;
  /** what says the apiserver restarted: 'relist burst after', 'watches ended before', 'identity lease created', 'identity lease taken over', 'inferred from gap' */
  signs: string[];
  /** apiserver-restart: 'seen' when the log shows a sign of the restart itself, 'inferred from gap' when only the
   * pause says so (its peers kept their rate, its share stayed low after: `inferred`); audit-gap: null */
  certainty: 'seen' | 'inferred from gap' | null;
  /** 'inferred from gap' only: the figures it was inferred from */
  inferred?: GapInference;
  /** why it matters, from how the apiserver works (postmortem.ts) */
  why?: string;
}

export interface StormClient {
  client: string;
  userAgent: string;
  username: string;
  requests: number;
  nodes: number;
  etcdShare: number | null;
}

export interface StormFinding {
  kind: 'list-storm';
  severity: 'high' | 'medium' | 'low';
  summary: string;
  fix: string;
  resource: string;
  start: string;
  end: string;
  requests: number;
  peakPerSecond: number;
  clients: StormClient[];
  /** of the storm's lists whose serving is known, the share etcd served; refused reads are known and never etcd's (serving.ts servingMix) */
  etcdShare: number | null;
  /** the share refused before storage (watch-lists while the server's WatchList gate is off, 429s while its cache initialised): read nothing */
  refusedShare: number | null;
  beganBeforeLog: boolean;
  endedAfterLog: boolean;
  sparkline: number[];
  /** after an apiserver went down: where the lists of its clients landed, per apiserver (apiservers.ts); null
   * when the storm followed no restart of an apiserver the logs name */
  afterRestart?: RelistLanding | null;
  /** why it matters, from how the apiserver works (postmortem.ts) */
  why?: string;
}

export interface Wave {
  start: string;
  end: string;
  requests: number;
  peakPerSecond: number;
}

export interface TokenFinding {
  kind: 'token-refresh-storm';
  severity: 'high' | 'medium' | 'low' | 'info';
  summary: string;
  fix: string;
  waves: Wave[];
  periodSeconds: number | null;
  periodSpreadSeconds: number | null;
  ttlSeconds: number;
  ttlSource: 'requests' | 'default';
  expectedPeriodSeconds: number;
  nextWaveAt: string | null;
  serviceAccounts: Array<{ serviceAccount: string; requests: number }>;
  namespaces: string[];
  jitter: { currentSeconds: number; predictedPeakPerSecond: number; proposedSeconds: number; predictedPeakWithProposed: number; peakReduction: number } | null;
  sparkline: number[];
  /** why it matters, from how the apiserver works (postmortem.ts) */
  why?: string;
}

/** How an apiserver named inside an input is named in findings: the input, and the name in brackets. */
export function streamName(input: string, apiserver: string): string {
  return `${input} [${apiserver}]`;
}

/** An apiserver whose share stayed far below an even one after it restarted. */
export interface ImbalanceFinding {
  kind: 'apiserver-imbalance';
  severity: 'medium';
  summary: string;
  fix: string;
  /** what the fix risks */
  risk: string;
  apiserver: string;
  inputs: string[];
  /** the end of the restart's gap, when it served again */
  restartAt: string;
  start: string;
  end: string;
  seconds: number;
  /** still low when the log ends */
  endedAfterLog: boolean;
  /** 1 / the apiservers serving after the restart */
  evenShare: number;
  /** its share of the requests in the 10 minutes before the restart, and while low */
  shareBefore: number | null;
  shareAfter: number;
  others: Array<{ apiserver: string; shareBefore: number | null; shareAfter: number }>;
  /** clients (user agent and user) it served in the 10 minutes before the restart */
  clientsBefore: number;
  /** of them, those that sent most of their requests to other apiservers while it was low */
  clientsMoved: number;
  movedTo: Array<{ apiserver: string; clients: number; requests: number }>;
  why?: string;
}

/** Where the relists of a restarted apiserver's clients went, on the storm that followed the restart. */
export interface RelistLanding {
  apiserver: string;
  restartStart: string;
  /** lists and watch-lists of its clients (those it served in the 10 minutes before), per apiserver, in the
   * whole minutes the storm touches */
  landedOn: Array<{ apiserver: string; lists: number; clients: number }>;
}

/** Before and after a fix, where the log says. */
export interface BeforeAfter {
  before: number | null;
  after: number | null;
}

/** What applying a fix would change, from this log: the fixed clients' etcd-served reads go to the watch cache. */
export interface WhatIf {
  etcdRequests: BeforeAfter;
  objectsRead: BeforeAfter;
  bytesRead: BeforeAfter;
  peakEtcdRequestsPerSecond: BeforeAfter;
}

/** A finding's evidence: one of its requests, and the etcd reads of its range. */
export interface Evidence {
  sampleRequestURI: string | null;
  etcd: { key: string; reads: number; objectsPerRead: number | null; bytesPerRead: number | null; tookMsMax: number | null } | null;
}
