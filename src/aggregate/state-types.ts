/*! One job: the shapes ScanState hands out and takes back (segments, snapshots, the time state, options) and the
 * keys its maps use (an apiserver named inside an input, a client on an input, a resource's join key with etcd):
 * what workers, parts and the analysis read, apart from the counting in scan-state.ts and the aggregates beside it. */

import { type AuditEvent } from '../model/audit-event.js';
import { type ListQuery } from '../decode/request-uri.js';
import { type SelectorInfo } from '../model/selector.js';
import { type VersionEvidence } from '../model/kube-version.js';
import { type GroupOverflow, type ReadGroup } from './read-groups.js';
import { TimeSeries } from './time-series.js';
import { NO_FILTER, type FilterSpec } from './filters.js';
import { type EtcdAgg, type EtcdRead, type EtcdSegmentEdges } from './etcd-reads.js';
import { type SkipWindows } from './fingerprint.js';
import { type IdTail } from '../decode/id-keys.js';
import type { LogEvidenceEntry } from './log-evidence.js';
import { type SpacingHistogram } from './gaps.js';
import type { InputStats } from './input-stats.js';
/** What a counted request looked like, for the DuckDB store. Reads carry their parsed query. */
export interface RequestRow {
  e: AuditEvent;
  input: number;
  resource: string;
  apiGroup: string;
  namespace: string;
  query: ListQuery | null;
  selector: SelectorInfo | null;
  node: string | null;
}

/** Receives counted requests and finished etcd reads (the DuckDB store's loader). */
export interface ScanSink {
  request(r: RequestRow): void;
  etcdRead(r: EtcdRead): void;
}

/** The start of the name given to an event without an auditID. */
export const NO_ID = '(no auditID ';

export { bump } from '../model/tally.js';

/** How requests without a user agent are listed among the user agents. */
export const NO_UA = '(no user agent) ';


/** Totals over all inputs (before the report adds derived figures). */
export interface Counters {
  requests: number;
  /** requests left out by --since/--until/--user/--verb/--resource/--namespace */
  filteredOut: number;
  /** etcd lines the filters left out (--since/--until, --resource/--namespace) */
  etcdFilteredOut: number;
  pendingEvicted: number;
  /** segments whose first events could not all be measured again at reconcile (replayHead) */
  timingInexact: number;
  byVerb: Map<string, number>;
  tokenRequests: number;
}

/** The event times of one named apiserver in a segment: gaps in its own stream, as a segment's for its input. */
export interface StreamTiming {
  firstT: number | null;
  lastT: number | null;
  gaps: Array<[number, number]>;
  spacing: SpacingHistogram;
  events: number;
  /** the first HEAD_TIMES event times, for replayHead(); the gaps measured at them (kept whole until the segment
   * ends); whether later events were not kept */
  headTimes?: number[];
  headGaps?: Array<[number, number]>;
  headDropped?: boolean;
}

/** Event times a segment keeps from its start, so that reconcile() can measure them as one thread does. */
export const HEAD_TIMES = 4096;

/** The holders of one apiserver identity lease within a segment (Request-level audit shows them). */
export interface LeaseHolders {
  first: string;
  firstT: number;
  last: string;
}

/** Options for the time analysis (issue 5), shared with workers. */
export interface TimeOptions {
  filter: FilterSpec;
  bucketMs: number;
  /** a pause in one input's events this long is a gap (apiserver restart or log loss); null: adaptive (gaps.ts) */
  gapMs: number | null;
  /** "now", for the rule that a time more than a day ahead cannot be real */
  nowMs: number;
  /** --syslog-year: the year of syslog and journald short dates (they carry none); undefined or null: inferred */
  syslogYear?: number | null;
  /** keep per-minute fingerprints of the requests (only worth it with two inputs or more) */
  fingerprint?: boolean;
  /** the apiserver's own log read beside an audit log: its requests are kept as evidence (LogEvidence), not
   * counted (the scan reads the inputs again so when the first read finds both) */
  logAsEvidence?: boolean;
  /** when the inputs are read again after copies were found: input index → windows of its requests to leave out */
  skipCopies?: Array<[number, SkipWindows]>;
}

export const DEFAULT_TIME_OPTIONS: TimeOptions = { filter: NO_FILTER, bucketMs: 1000, gapMs: null, nowMs: Date.now() };

/** Time series kept for the time analysis; all mergeable. */
export interface TimeState {
  all: TimeSeries;
  tokens: TimeSeries;
  /** namespace/serviceaccount → TokenRequests */
  tokenAccounts: Map<string, number>;
  /** TokenRequest expirationSeconds → count (seen at Request level and above) */
  tokenTtls: Map<number, number>;
  /** resource key → list requests */
  listsByResource: Map<string, TimeSeries>;
  /** input index → list requests / final stages of watches */
  inputLists: Map<number, TimeSeries>;
  inputWatchEnds: Map<number, TimeSeries>;
  /** `${input}\u0000${resourceKey}` → 429s "storage is (re)initializing": when that apiserver's cache of that
   * resource was not ready (1.31+) */
  initRejects: Map<string, TimeSeries>;
  /** input index → candidate gaps [from, to] in its event stream (filled by reconcile; the longest MAX_GAPS) */
  inputGaps: Map<number, Array<[number, number]>>;
  /** input index → spacing between its events, for the adaptive gap threshold */
  inputSpacing: Map<number, SpacingHistogram>;
  /** input index → restart signs other than gaps ([time, what]) */
  inputSigns: Map<number, Array<[number, string]>>;
  /** input index → every request it holds, filtered or not: each apiserver's share over time (apiservers.ts) */
  inputRequests: Map<number, TimeSeries>;
  /** clientInputKey(input, user agent, user) → that client's requests on that input, in coarse buckets: where an
   * apiserver's clients went after it restarted. At most MAX_CLIENT_INPUTS keys; past it, counted in
   * clientInputsOverflow */
  clientInputs: Map<string, ClientCounts>;
  /** requests of (client, input) pairs past MAX_CLIENT_INPUTS, not tracked per client */
  clientInputsOverflow: number;
  /** streamKey(input, apiserver) → the requests of an apiserver a wrapper's records name inside an input (a
   * CloudWatch log stream, a pod): as inputRequests, inputLists and inputWatchEnds, per named apiserver. Its
   * requests count in the input's series too; the clients of its requests are keyed by its streamKey */
  streamRequests: Map<string, TimeSeries>;
  streamLists: Map<string, TimeSeries>;
  streamWatchEnds: Map<string, TimeSeries>;
  /** streamKey → its gaps, its spacing and [first, last] event time (filled by reconcile, as inputGaps) */
  streamGaps: Map<string, Array<[number, number]>>;
  streamSpacing: Map<string, SpacingHistogram>;
  streamSpan: Map<string, [number, number]>;
  /** input index → records naming an apiserver past MAX_NAMED_APISERVERS: the input's names are then not used */
  streamOverflow: Map<number, number>;
}

/** Most apiservers a wrapper may name in one input; more, and the field names something else (apiservers.ts
 * then maps the input by its path). */
export const MAX_NAMED_APISERVERS = 32;

/** The key of an apiserver named inside input `input` (TimeState.stream*; clientInputKey's source). */
export function streamKey(input: number, apiserver: string): string {
  return `${input}\u0001${apiserver}`;
}

/** The parts of a streamKey(), or of an input index as a string (apiserver null). */
export function parseStreamKey(k: string): { input: number; apiserver: string | null } {
  const i = k.indexOf('\u0001');
  return i < 0 ? { input: Number(k), apiserver: null } : { input: Number(k.slice(0, i)), apiserver: k.slice(i + 1) };
}

/** One client's requests on one input: all of them, and its lists and watch-lists (the relists of a storm). */
export interface ClientCounts {
  all: TimeSeries;
  lists: TimeSeries | null;
}

/** Buckets kept per input for its share of requests (TimeState.inputRequests). */
export const INPUT_REQUEST_BUCKETS = 20_000;
/** Most (client, input) pairs kept: a kubelet per node on each apiserver is 15,000 on a 5,000-node cluster. */
export const MAX_CLIENT_INPUTS = 20_000;
/** Buckets kept per (client, input) series, at least a minute wide: 2 h at a minute, then coarser. */
export const CLIENT_SERIES_BUCKETS = 120;
export const CLIENT_SERIES_MIN_MS = 60_000;

/** Inputs whose wrappers name apiservers (TimeState.stream*), each with the streamKeys of the apiservers named,
 * sorted. An input past MAX_NAMED_APISERVERS is left out: the field names something else, and its path says. */
export function namedApiservers(time: Partial<Pick<TimeState, 'streamSpan' | 'streamRequests' | 'streamOverflow'>>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const k of new Set([...(time.streamSpan?.keys() ?? []), ...(time.streamRequests?.keys() ?? [])])) {
    const { input } = parseStreamKey(k);
    const ks = out.get(input);
    if (ks === undefined) out.set(input, [k]);
    else ks.push(k);
  }
  for (const [i, ks] of out) {
    if ((time.streamOverflow?.get(i) ?? 0) > 0 || ks.length > MAX_NAMED_APISERVERS) out.delete(i);
    else ks.sort();
  }
  return out;
}

/** The key of one client (user agent and user) on one input (or one apiserver named in it: a streamKey) in
 * TimeState.clientInputs. */
export function clientInputKey(input: number | string, userAgent: string, username: string): string {
  return `${input}\u0000${userAgent}\u0000${username}`;
}

/** The parts of a clientInputKey(); `source` is the input index as a string, or the streamKey. */
export function parseClientInputKey(k: string): { input: number; source: string; userAgent: string; username: string } {
  const a = k.indexOf('\u0000');
  const b = k.indexOf('\u0000', a + 1);
  const source = k.slice(0, a);
  return { input: parseStreamKey(source).input, source, userAgent: k.slice(a + 1, b), username: k.slice(b + 1) };
}

/** What a finished segment hands to reconcile(): its counts, its open requests and its edges. */
export interface SegmentResult {
  inputIndex: number;
  input: InputStats;
  /** requests seen only at a non-final stage in this segment */
  leftovers: Map<string, AuditEvent>;
  /** final-stage events of requests received before this segment began (plus slack), not counted yet */
  head: Map<string, AuditEvent>;
  /** the segment's last RECENT_TERMINALS final-stage auditIDs, oldest first: the next segment's look-back */
  tail: IdTail;
  etcdEdges: EtcdSegmentEdges;
  /** `fromBefore`: the segment's gaps were measured from the latest time before it, so they include the cut */
  timing: {
    firstT: number | null;
    lastT: number | null;
    gaps: Array<[number, number]>;
    fromBefore: boolean;
    spacing: SpacingHistogram;
    /** the segment's first event times (absent in parts written before them: then `fromBefore` says how its
     * gaps were measured) */
    headTimes?: number[];
    /** more events came than headTimes keeps */
    headDropped?: boolean;
    signs: Array<[number, string]>;
    leases: Map<string, LeaseHolders>;
    /** per apiserver a wrapper named: its own event times; and the records past the cap */
    streams?: Map<string, StreamTiming>;
    namedOverflow?: number;
  };
}

/** The aggregates of a ScanState, as a worker posts them (structured clone keeps Maps and Sets). */
export interface StateSnapshot {
  groups: Map<string, ReadGroup>;
  groupOverflow: GroupOverflow;
  etcd: { aggs: Map<string, EtcdAgg>; clientReads: number; internalReads: number; internalByReason: Map<string, number>; prefixes: Map<string, number>; zapSeconds: Map<number, number> };
  versions: VersionEvidence[];
  etcdVersions: Map<string, number>;
  etcdSlow: Map<string, EtcdSlowAgg>;
  etcdThresholds: Map<number, number>;
  clusterNodes: Set<string>;
  fullListObjects: Map<string, number>;
  counters: Counters;
  userAgents: Map<string, number>;
  time: TimeState;
  /** absent in parts written before it */
  logEvidence?: { entries: Map<string, LogEvidenceEntry>; overflow: number };
}

/** A segment taken out of the state while another input's is read (follow mode); opaque outside. */
export interface SuspendedSegment {
  readonly __suspended: unique symbol;
}

/** What etcd being slow without a read looked like, per kind. */
export interface EtcdSlowAgg {
  n: number;
  tookMaxMs: number | null;
  firstMs: number | null;
  lastMs: number | null;
}

/** The join key between audit reads and etcd ranges: etcd keys carry the group only for custom resources. */
export function resourceKeyOf(apiGroup: string, resource: string): string {
  return isBuiltinGroup(apiGroup) ? resource : `${apiGroup}/${resource}`;
}

// Groups served by kube-apiserver's built-in storage (key has no group). CRD groups that end in k8s.io
// (gateway.networking.k8s.io, snapshot.storage.k8s.io) are stored with their group, so list them explicitly.
const BUILTIN_GROUPS = new Set([
  '', 'apps', 'batch', 'autoscaling', 'policy', 'extensions', 'admissionregistration.k8s.io', 'apiextensions.k8s.io',
  'apiregistration.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'certificates.k8s.io', 'coordination.k8s.io',
  'discovery.k8s.io', 'events.k8s.io', 'flowcontrol.apiserver.k8s.io', 'internal.apiserver.k8s.io', 'networking.k8s.io',
  'node.k8s.io', 'rbac.authorization.k8s.io', 'resource.k8s.io', 'scheduling.k8s.io', 'storage.k8s.io', 'storagemigration.k8s.io',
]);

function isBuiltinGroup(g: string): boolean {
  return BUILTIN_GROUPS.has(g);
}
