/*! AuditEvent: the fixed-shape record every audit input is reduced to (decode/audit-event.ts normalizeAuditEvent
 * makes it from a parsed Event; the engine, decode/engine, from its records).
 * Field mapping (audit.k8s.io/v1 Event → AuditEvent):
 *   auditID → auditID, stage → stage, verb → verb, requestURI → requestURI,
 *   user.username → username, user.extra["authentication.kubernetes.io/node-name"][0] → nodeName,
 *   userAgent → userAgent, objectRef.{resource,apiGroup,namespace,name,subresource} → same names
 *   (falling back to the parsed requestURI), responseStatus.code → code,
 *   requestReceivedTimestamp → receivedMs, stageTimestamp → stageMs (legacy `timestamp` as fallback),
 *   len(responseObject.items) → returnedItems, responseObject.metadata.remainingItemCount → remainingItems,
 *   annotations["apiserver.latency.k8s.io/etcd" | ".../apf-queue-wait"] → etcdLatencyMs, apfQueueWaitMs.
 * Request and response bodies are never kept: only the item counts are taken from them. */

/** The query parameters that decide where a read is served from. */
export interface ListQuery {
  fieldSelector: string | null;
  labelSelector: string | null;
  resourceVersion: string | null; // null = absent (the same as "" for the apiserver)
  resourceVersionMatch: string | null;
  limit: number; // 0 = absent or invalid
  continueToken: boolean;
  watch: boolean;
  sendInitialEvents: boolean;
  /** 1.36 sharded list or watch (KEP-5866): the shard's range; absent when the client did not shard */
  shardSelector?: string | null;
}

export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';


/** One audit event, normalised. */
export interface AuditEvent {
  auditID: string;
  stage: Stage;
  level: string;
  verb: string;
  requestURI: string;
  username: string;
  userAgent: string;
  nodeName: string | null;
  resource: string;
  apiGroup: string;
  namespace: string;
  name: string;
  subresource: string;
  code: number | null;
  receivedMs: number | null;
  stageMs: number | null;
  returnedItems: number | null;
  remainingItems: number | null;
  /** TokenRequest spec.expirationSeconds (Request level or above), else null; the token itself is never read */
  tokenExpirationSeconds: number | null;
  /** for an apiserver identity lease (kube-system/leases/apiserver-*), requestObject.spec.holderIdentity when the
   * audit level shows it: a new holder is a restarted apiserver */
  leaseHolder: string | null;
  /** false when the event was rebuilt without its query string (GKE Cloud Logging): where it was served, and
   * what it read, cannot be known */
  queryKnown: boolean;
  /** apiserver.latency.k8s.io/etcd: time spent in etcd (a sum over its etcd calls), in ms; the apiserver
   * writes it only for requests over 500 ms (DOMAIN.md §3) */
  etcdLatencyMs: number | null;
  /** apiserver.latency.k8s.io/apf-queue-wait (1.31+): time queued by API Priority and Fairness, in ms */
  apfQueueWaitMs: number | null;
  /** for a 429 only: true when the watch cache rejected it while (re)initialising ("storage is (re)initializing",
   * ResilientWatchCacheInitialization, 1.31+), false when something else did (API Priority and Fairness) */
  cacheInitializing?: boolean;
  /** the list query, when the reader parsed it already (the engine); else it is parsed from requestURI */
  query?: ListQuery;
  /** a number naming the (fieldSelector, labelSelector) pair, when the reader has one: their description is
   * then worked out once per pair */
  selectorKey?: number;
  /** the apiserver the record's wrapper names (a CloudWatch log stream, a shipper's pod or host field), set by the
   * scan (scan-state.ts); absent when the wrapper names none, and the input's path says which apiserver */
  apiserver?: string;
  /** set for a request read from the apiserver's own log (decode/apiserver-log-reader.ts), not from audit: its
   * httplog line, a trace block (a slow request), or a timeout line. Such a record has no user (username ''). */
  evidence?: 'httplog' | 'trace' | 'timeout';
  /** the client's address (httplog srcIP, a trace's client), without its port */
  srcIP?: string;
  /** API Priority and Fairness: the flow schema and priority level httplog names (apf_fs, apf_pl) */
  apfFlowSchema?: string;
  apfPriorityLevel?: string;
  /** a trace of the request shows its storage read etcd (a nested "List etcd3" trace) */
  observedEtcd?: boolean;
  /** the request was slow enough to be traced (over 500 ms for a list), and its trace was read */
  traced?: boolean;
  /** the apiserver logged that the request timed out or was aborted */
  timedOut?: boolean;
}

/** true for the stages after which an event for this auditID is final. */
export function isTerminalStage(s: Stage): boolean {
  return s === 'ResponseComplete' || s === 'Panic';
}
