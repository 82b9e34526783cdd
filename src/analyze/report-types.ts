/*! One job: the shape of the report (the documented JSON contract, schemaVersion 1), apart from the code that
 * builds it (report.ts) and chooses its findings (report-findings.ts), so both read one definition. */

import type { AssumedVersion } from '../model/kube-version.js';
import type { InputStats } from '../aggregate/scan-state.js';
import type { AnyFinding, EtcdRangeReport, GroupReport } from './findings.js';
import type { IncidentEvent, Method, Summary, WhatIf } from './postmortem.js';
import type { Timeline } from './time-analysis.js';
import type { ApiserversReport } from './apiservers.js';
import type { ApiserverLogReport } from './apiserver-log-report.js';

/** Follow mode: the last `--window` of log time (it ends at the latest request read, so a log replayed later
 * reads as it did live). Requests are counted from the per-bucket series; where each was served is its group's
 * share over the whole run (served-from is not kept per bucket), so `etcdRequests` is an estimate. */
export interface LiveWindow {
  seconds: number;
  /** the part of the window the log covers (shorter when the log began inside it): what the rates are over */
  coveredSeconds: number;
  from: string | null;
  to: string | null;
  requests: number;
  perSecond: number;
  /** over the last 10 s of the window */
  nowPerSecond: number;
  etcdRequests: number;
  etcdShare: number | null;
  top: Array<{ client: string; userAgent: string; username: string; verb: string; resource: string; selector: string; requests: number; perSecond: number; etcdShare: number | null }>;
}

export interface ScanReport {
  schemaVersion: 1;
  tool: { name: 'audit-scan'; version: string };
  kubernetes: {
    version: string;
    source: AssumedVersion['source'];
    reason: string;
    etcdVersion: string | null;
    etcdProgressNotify: boolean | null;
    /** the etcd key prefixes the reads sat under, most reads first; given by --etcd-prefix, or inferred per key */
    etcdPrefix: { prefixes: string[]; source: 'given' | 'default' | 'inferred'; reason: string };
  };
  inputs: InputReport[];
  totals: {
    requests: number;
    listRequests: number;
    listWithoutResourceVersion: number;
    listFromEtcd: number;
    getRequests: number;
    getFromEtcd: number;
    watchRequests: number;
    tokenRequests: number;
    /** requests left out by the filters */
    filteredOut: number;
    etcdSlowRanges: number;
    etcdInternalRanges: number;
    etcdInternalByReason: Record<string, number>;
    clusterNodes: number;
    skippedLines: number;
    pendingEvicted: number;
    /** requests left out because an earlier input holds the same ones (a copy of the same log) */
    duplicateRequests: number;
    /** lists, gets and watches whose query string the log did not keep (GKE Cloud Logging): served from where,
     * and how much etcd read for them, is unknown */
    readsQueryUnknown: number;
    firstSeen: string | null;
    lastSeen: string | null;
  };
  listGroups: GroupReport[];
  listGroupsTotal: number;
  /** set when the group cap folded small groups away (--max-groups): their count and requests */
  groupsCapped: { foldedGroups: number; foldedRequests: Record<string, number>; maxCountError: number } | null;
  getGroups: GroupReport[];
  /** get groups before --top (added within schemaVersion 1: a report of an older audit-scan lacks it) */
  getGroupsTotal: number;
  etcdRanges: EtcdRangeReport[];
  topUserAgents: Array<{ userAgent: string; requests: number }>;
  findings: AnyFinding[];
  timeline: Timeline;
  /** what to read first: the audit window, the peak rate, the offending clients with their fix, what etcd read */
  summary: Summary;
  /** restarts, gaps, storms and token waves, in time order */
  incident: IncidentEvent[];
  /** every proposed fix at once */
  whatIf: WhatIf;
  /** which figures are measured and which estimated, and the Kubernetes version assumed */
  method: Method;
  /** --follow only: the last --window (the follow command moves it to live.window) */
  liveWindow?: LiveWindow;
  /** what the apiserver's /metrics dumps say, per resource; null when no input held any */
  metrics: MetricsReport | null;
  /** the filters given, and what they left out; null when none was given */
  filters: FiltersReport | null;
  /** each apiserver's inputs and share of the requests, when the inputs say which apiserver wrote them */
  apiservers: ApiserversReport;
  /** present when an input held the apiserver's own log: what it showed, its release and verbosity, its limits */
  apiserverLog?: ApiserverLogReport;
}

/** What the filters did: the requests (and etcd lines) they left out of a log that covers `totals.firstSeen` to
 * `totals.lastSeen`. Versions, nodes and object counts are taken from every line read, filtered or not. */
export interface FiltersReport {
  applied: string[];
  requestsLeftOut: number;
  etcdLinesLeftOut: number;
}

/** The metrics dumps: object counts, and between two dumps of one apiserver what its LISTs fetched and returned. */
export interface MetricsReport {
  dumps: number;
  apiservers: number;
  kubernetesVersion: string | null;
  resources: Array<{
    resource: string;
    objects: number | null;
    objectsAt: string | null;
    /** LISTs served from etcd between dumps (apiserver_storage_list_*): measured objects fetched per list */
    etcdLists: MetricsListReport | null;
    /** LISTs served from the watch cache between dumps (apiserver_cache_list_*) */
    cacheLists: MetricsListReport | null;
    sizeEstimateBytes: number | null;
  }>;
  /** why there are no deltas, when there are none: one dump, or dumps of different apiservers */
  deltasReason: string | null;
}

export interface MetricsListReport {
  lists: number;
  fetchedPerList: number | null;
  returnedPerList: number | null;
  amplification: number | null;
  from: string;
  to: string;
  resets: number;
}

// Stryker disable next-line EqualityOperator: map keys are unique, so two keys are never equal

/** An input's counts in the JSON contract: InputStats with maps as objects and times as RFC 3339. */
export type InputReport = Omit<InputStats, 'skipReasons' | 'otherKinds' | 'firstMs' | 'lastMs' | 'implausibleKinds' | 'sketch' | 'fingerprint' | 'sample' | 'wrappers' | 'engineRead' | 'engineDeclined' | 'metrics' | 'fileTimeMs' | 'apiserverLog'> & {
  skipReasons: Record<string, number>;
  /** wrapper → lines (or document items) read through it: "cri", "docker", "gke", … ({} for plain lines) */
  wrappers: Record<string, number>;
  otherKinds: Record<string, number>;
  implausibleKinds: Record<string, number>;
  firstSeen: string | null;
  lastSeen: string | null;
  /** set when the input gave no audit event and no etcd entry: what it looked like (the wrong file?) */
  looksLike: string | null;
};
