/*! Cloud exports that reshape an audit event: GKE Cloud Logging entries (protoPayload of type AuditLog) and
 * Azure Log Analytics rows (the AKSAudit and AKSAuditAdmin tables, PascalCase columns). Each becomes an object
 * in the audit.k8s.io/v1 Event shape, read by the same code as a native event. GKE drops the query string, so
 * its events are marked: what depends on the query (resourceVersion, limit, selectors) is unknown, not guessed. */

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Set on an event object rebuilt without its query string (GKE): normalizeAuditEvent reads it. */
export const QUERY_UNKNOWN = '__queryUnknown';

/** true for a GKE Cloud Logging entry (gcloud logging read, a sink's export) of any service. */
export function isGkeEntry(o: Record<string, unknown>): boolean {
  return isObj(o.protoPayload) && ('insertId' in o || 'logName' in o || 'receiveTimestamp' in o);
}

// google.rpc.Code → HTTP, for the status GKE records in protoPayload.status.code.
const GRPC_TO_HTTP: Record<number, number> = { 0: 200, 1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 10: 409, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401 };

/** A GKE entry → an event object, or a reason it holds none. methodName is io.k8s.<group>.<version>.<resource>.<verb>
 * and resourceName <group>/<version>/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]] (core for the core group). */
export function fromGkeEntry(o: Record<string, unknown>): { event: Record<string, unknown> } | { reason: string } {
  const p = o.protoPayload as Record<string, unknown>;
  if (p.serviceName !== 'k8s.io') return { reason: `GKE Cloud Logging entry of ${String(p.serviceName ?? 'an unknown service').slice(0, 40)} (not a Kubernetes API request)` };
  const method = typeof p.methodName === 'string' ? p.methodName : '';
  const verb = method.slice(method.lastIndexOf('.') + 1);
  const resourceName = typeof p.resourceName === 'string' ? p.resourceName : '';
  if (verb.length === 0 || resourceName.length === 0) return { reason: 'GKE Cloud Logging entry without methodName or resourceName' };
  const segs = resourceName.split('/');
  // A resource request names <group>/<version>/…; anything else (readyz, healthz, /version) is a non-resource URL.
  const resource = segs.length >= 3 && /^v\d/.test(segs[1]!);
  const uri = !resource ? `/${resourceName.replace(/^\//, '')}` : segs[0] === 'core' ? `/api/${segs.slice(1).join('/')}` : `/apis/${segs.join('/')}`;
  const auth = isObj(p.authenticationInfo) ? p.authenticationInfo : {};
  const meta = isObj(p.requestMetadata) ? p.requestMetadata : {};
  const status = isObj(p.status) ? p.status : {};
  const response = isObj(p.response) ? p.response : {};
  const grpc = typeof status.code === 'number' ? status.code : 0;
  const code = typeof response.code === 'number' && response.code >= 100 ? response.code : (GRPC_TO_HTTP[grpc] ?? 500);
  const ts = typeof o.timestamp === 'string' ? o.timestamp : typeof o.receiveTimestamp === 'string' ? o.receiveTimestamp : undefined;
  const id = typeof o.insertId === 'string' ? o.insertId : isObj(o.operation) && typeof o.operation.id === 'string' ? o.operation.id : undefined;
  return {
    event: {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'request' in p || 'response' in p ? 'RequestResponse' : 'Metadata',
      auditID: id,
      stage: 'ResponseComplete',
      requestURI: uri,
      verb,
      user: { username: typeof auth.principalEmail === 'string' ? auth.principalEmail : '' },
      sourceIPs: typeof meta.callerIp === 'string' ? [meta.callerIp] : [],
      userAgent: typeof meta.callerSuppliedUserAgent === 'string' ? meta.callerSuppliedUserAgent : '',
      responseStatus: { code },
      requestReceivedTimestamp: ts,
      stageTimestamp: ts,
      [QUERY_UNKNOWN]: true,
    },
  };
}

/** true for a row of AKSAudit or AKSAuditAdmin as `az monitor log-analytics query` writes it. */
export function isAksLogAnalyticsRow(o: Record<string, unknown>): boolean {
  return typeof o.AuditId === 'string' && ('Verb' in o || 'RequestUri' in o) && ('Stage' in o || 'StageReceivedTime' in o || 'RequestReceivedTime' in o);
}

/** Log Analytics writes dynamic columns as JSON text or as objects. */
function dyn(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t.length === 0) return undefined;
  if (t[0] !== '{' && t[0] !== '[') return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

/** An AKSAudit row → an event object. */
export function fromAksLogAnalyticsRow(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: o.Level,
    auditID: o.AuditId,
    stage: o.Stage,
    requestURI: o.RequestUri,
    verb: o.Verb,
    user: dyn(o.User),
    impersonatedUser: dyn(o.ImpersonatedUser),
    sourceIPs: dyn(o.SourceIps),
    userAgent: o.UserAgent,
    objectRef: dyn(o.ObjectRef),
    responseStatus: dyn(o.ResponseStatus),
    requestObject: dyn(o.RequestObject),
    responseObject: dyn(o.ResponseObject),
    requestReceivedTimestamp: o.RequestReceivedTime,
    stageTimestamp: o.StageReceivedTime ?? o.TimeGenerated,
    annotations: dyn(o.Annotations),
  };
  for (const k of Object.keys(out)) if (out[k] === undefined || out[k] === null || out[k] === '') delete out[k];
  return out;
}
