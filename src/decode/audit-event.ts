/*! normalizeAuditEvent(): a parsed audit.k8s.io Event (or a cloud export's reshaped one) made into the AuditEvent
 * record of model/audit-event.ts, with the field mapping written there. Never throws. */

import { parseGoDurationMs, parseTimestampMs } from './time.js';
import { QUERY_UNKNOWN } from './cloud-events.js';
import { fail, ok, type ParseResult } from './result.js';
import type { AuditEvent, Stage } from '../model/audit-event.js';
import type { ListQuery } from './request-uri.js';

const STAGES = new Set<string>(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** true when an object looks like an audit Event (so a failure to normalise it is an "invalid event"). */
export function looksLikeAuditEvent(o: Record<string, unknown>): boolean {
  return o.kind === 'Event' || 'auditID' in o || 'requestURI' in o || ('stage' in o && 'verb' in o);
}

/** spec.expirationSeconds of a TokenRequest body, if positive. */
function expirationSecondsOf(body: unknown): number | null {
  if (body === null || typeof body !== 'object') return null;
  const spec = (body as Record<string, unknown>).spec;
  if (spec === null || typeof spec !== 'object') return null;
  const x = (spec as Record<string, unknown>).expirationSeconds;
  return typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : null;
}

/** Validates and flattens a parsed audit Event. Never throws. */
/** `fallbackId` names an event that has no auditID; it is called only then (so the hot path builds no string). */
export function normalizeAuditEvent(o: Record<string, unknown>, fallbackId: () => string): ParseResult<AuditEvent> {
  const apiVersion = o.apiVersion;
  if (apiVersion !== undefined && apiVersion !== 'audit.k8s.io/v1' && apiVersion !== 'audit.k8s.io/v1beta1' && apiVersion !== 'audit.k8s.io/v1alpha1') {
    return fail('unknown apiVersion');
  }
  if (o.kind !== undefined && o.kind !== 'Event') return fail('kind is not Event');
  const stage = o.stage;
  if (typeof stage !== 'string') return fail(stage === undefined ? 'no stage' : 'stage is not a string');
  if (!STAGES.has(stage)) return fail('unknown stage');
  const verb = o.verb;
  if (typeof verb !== 'string') return fail(verb === undefined ? 'no verb' : 'verb is not a string');
  const requestURI = o.requestURI;
  if (typeof requestURI !== 'string') return fail(requestURI === undefined ? 'no requestURI' : 'requestURI is not a string');
  const user = o.user;
  if (user !== undefined && (typeof user !== 'object' || user === null || Array.isArray(user))) return fail('user is not an object');
  const objectRef = o.objectRef;
  if (objectRef !== undefined && objectRef !== null && (typeof objectRef !== 'object' || Array.isArray(objectRef))) return fail('objectRef is not an object');
  const auditID = typeof o.auditID === 'string' && o.auditID.length > 0 ? o.auditID : fallbackId();

  const u = (user ?? {}) as Record<string, unknown>;
  let nodeName: string | null = null;
  const extra = u.extra;
  if (extra !== null && typeof extra === 'object') {
    const nn = (extra as Record<string, unknown>)['authentication.kubernetes.io/node-name'];
    if (Array.isArray(nn) && typeof nn[0] === 'string') nodeName = nn[0];
  }
  const ref = (objectRef ?? {}) as Record<string, unknown>;
  const status = o.responseStatus;
  let code: number | null = null;
  if (status !== null && typeof status === 'object') {
    const c = (status as Record<string, unknown>).code;
    if (typeof c === 'number' && Number.isFinite(c)) code = c;
  }
  // cacher.go/delegator.go: errors.NewTooManyRequests("storage is (re)initializing", 1)
  const cacheInitializing = code === 429 ? /initializing/i.test(str((status as Record<string, unknown>).message)) : undefined;
  let returnedItems: number | null = null;
  let remainingItems: number | null = null;
  const resp = o.responseObject;
  if (resp !== null && typeof resp === 'object' && !Array.isArray(resp)) {
    const items = (resp as Record<string, unknown>).items;
    if (Array.isArray(items)) returnedItems = items.length;
    const md = (resp as Record<string, unknown>).metadata;
    if (md !== null && typeof md === 'object') {
      const r = (md as Record<string, unknown>).remainingItemCount;
      if (typeof r === 'number' && Number.isFinite(r)) remainingItems = r;
    }
  }
  // The response's TTL wins over the request's (the apiserver may shorten it); bodies are rare, so no array here.
  const tokenExpirationSeconds = expirationSecondsOf(resp) ?? expirationSecondsOf(o.requestObject);
  let etcdLatencyMs: number | null = null;
  let apfQueueWaitMs: number | null = null;
  const ann = o.annotations;
  if (ann !== null && typeof ann === 'object') {
    const a = ann as Record<string, unknown>;
    etcdLatencyMs = parseGoDurationMs(a['apiserver.latency.k8s.io/etcd']);
    apfQueueWaitMs = parseGoDurationMs(a['apiserver.latency.k8s.io/apf-queue-wait']);
  }
  const stageMs = parseTimestampMs(o.stageTimestamp) ?? parseTimestampMs(o.timestamp);
  const resource = str(ref.resource);
  const namespace = str(ref.namespace);
  const name = str(ref.name);
  let leaseHolder: string | null = null;
  if (resource === 'leases' && namespace === 'kube-system' && (name.startsWith('apiserver-') || name.startsWith('kube-apiserver-'))) {
    const spec = (o.requestObject as Record<string, unknown> | undefined)?.spec;
    const h = spec !== null && typeof spec === 'object' ? (spec as Record<string, unknown>).holderIdentity : undefined;
    if (typeof h === 'string') leaseHolder = h;
  }
  return ok({
    auditID,
    stage: stage as Stage,
    level: str(o.level),
    verb,
    requestURI,
    username: str(u.username),
    userAgent: str(o.userAgent),
    nodeName,
    resource,
    apiGroup: str(ref.apiGroup),
    namespace,
    name,
    subresource: str(ref.subresource),
    code,
    receivedMs: parseTimestampMs(o.requestReceivedTimestamp) ?? stageMs,
    stageMs,
    returnedItems,
    remainingItems,
    tokenExpirationSeconds,
    leaseHolder,
    queryKnown: o[QUERY_UNKNOWN] !== true,
    etcdLatencyMs,
    apfQueueWaitMs,
    ...(cacheInitializing === undefined ? {} : { cacheInitializing }),
  });
}
