// Table-driven tests for the readers of wrapped logs (issue 15): wrapper records, cloud exports' reshaped
// events, and Logs Insights CSV. The fixtures in fixtures/wrapped cover the whole path; these pin each rule.
import { describe, expect, it } from 'vitest';
import { unwrapRecord } from '../../src/decode/wrappers.js';
import { fromAksLogAnalyticsRow, fromGkeEntry, isAksLogAnalyticsRow, isGkeEntry, QUERY_UNKNOWN } from '../../src/decode/cloud-events.js';
import { normalizeAuditEvent } from '../../src/decode/audit-event.js';
import { logsInsightsColumn, parseCsvRecord } from '../../src/decode/csv.js';

const ev = { kind: 'Event', auditID: 'a1', stage: 'ResponseComplete', verb: 'list' };
const line = JSON.stringify(ev);

describe('unwrapRecord', () => {
  it.each<[string, Record<string, unknown>, unknown]>([
    ['Docker json-file', { log: `${line}\n`, stream: 'stdout', time: '2026-11-30T12:00:01.1Z' }, { wrapper: 'docker', texts: [line] }],
    ['Docker json-file, CRLF', { log: `${line}\r\n`, stream: 'stderr', time: 't' }, { wrapper: 'docker', texts: [line] }],
    ['Docker part (no \\n): held for the next', { log: '{"kind":"Ev', stream: 'stdout', time: 't' }, { wrapper: 'docker', partial: '{"kind":"Ev' }],
    ['Fluent Bit (no stream/time)', { date: 1764504001.1, log: line }, { wrapper: 'fluent-bit', texts: [line] }],
    ['Fluent Bit keeping the \\n', { log: `${line}\n` }, { wrapper: 'fluent-bit', texts: [line] }],
    ['Fluent Bit with stream but no time is not Docker', { log: 'abc', stream: 'stdout' }, { wrapper: 'fluent-bit', texts: ['abc'] }],
    ['Fluent Bit with time but no stream is not Docker', { log: 'abc', time: 't' }, { wrapper: 'fluent-bit', texts: ['abc'] }],
    ['Docker needs both as strings', { log: 'abc', stream: 1, time: 't' }, { wrapper: 'fluent-bit', texts: ['abc'] }],
    ['Loki with labels', { labels: { job: 'x' }, line, timestamp: 't' }, { wrapper: 'loki', texts: [line] }],
    ['Loki with a timestamp only', { line, timestamp: 't' }, { wrapper: 'loki', texts: [line] }],
    ['a "line" field alone is no Loki record', { line }, null],
    ['Loki labels must be an object, not a list', { labels: ['job'], line }, null],
    ['Splunk HEC, the event an object', { time: 1, sourcetype: 's', event: ev }, { wrapper: 'splunk-hec', values: [ev] }],
    ['Splunk HEC, the event a string', { host: 'h', event: line }, { wrapper: 'splunk-hec', texts: [line], apiserver: 'h' }],
    ['Splunk HEC with source only', { source: 'x', event: ev }, { wrapper: 'splunk-hec', values: [ev] }],
    ['Splunk HEC with sourcetype only', { sourcetype: 's', event: ev }, { wrapper: 'splunk-hec', values: [ev] }],
    ['Splunk HEC with time only', { time: 1, event: line }, { wrapper: 'splunk-hec', texts: [line] }],
    ['Splunk HEC, an event that is a list', { time: 1, event: [ev] }, null],
    ['an "event" field without HEC fields', { event: ev }, null],
    ['Splunk HEC, an event neither object nor string', { time: 1, event: 5 }, null],
    ['Splunk export', { preview: false, result: { _raw: line, host: 'h' } }, { wrapper: 'splunk-export', texts: [line], apiserver: 'h' }],
    ['Splunk export without _raw', { result: { host: 'h' } }, null],
    ['journald JSON', { __REALTIME_TIMESTAMP: '1', MESSAGE: line }, { wrapper: 'journald', texts: [line] }],
    ['journald JSON by hostname', { _HOSTNAME: 'm1', MESSAGE: line }, { wrapper: 'journald', texts: [line], apiserver: 'm1' }],
    ['journald JSON by identifier', { SYSLOG_IDENTIFIER: 'etcd', MESSAGE: line }, { wrapper: 'journald', texts: [line] }],
    ['journald binary MESSAGE (bytes)', { __REALTIME_TIMESTAMP: '1', MESSAGE: [123, 125] }, { wrapper: 'journald', texts: ['{}'] }],
    ['journald MESSAGE of bytes and text is neither', { __REALTIME_TIMESTAMP: '1', MESSAGE: [123, 'x'] }, null],
    ['journald MESSAGE of another type', { __REALTIME_TIMESTAMP: '1', MESSAGE: 5 }, null],
    ['a MESSAGE field alone', { MESSAGE: line }, null],
    ['CloudWatch CLI output', { events: [{ timestamp: 1, message: line }], searchedLogStreams: [] }, { wrapper: 'cloudwatch', values: [{ timestamp: 1, message: line, __cloudwatch: true }] }],
    ['CloudWatch get-log-events (tokens)', { events: [], nextForwardToken: 'f' }, { wrapper: 'cloudwatch', values: [] }],
    ['CloudWatch filter-log-events, a later page', { events: [5], nextToken: 'n' }, { wrapper: 'cloudwatch', values: [5] }],
    ['CloudWatch filter-log-events, by its searched streams', { events: [5], searchedLogStreams: [] }, { wrapper: 'cloudwatch', values: [5] }],
    ['CloudWatch get-log-events, by its forward token', { events: [5], nextForwardToken: 'f' }, { wrapper: 'cloudwatch', values: [5] }],
    ['CloudWatch events without the CLI fields: every one has a message', { events: [{ message: 'a' }, { message: 'b', timestamp: 2 }] }, { wrapper: 'cloudwatch', values: [{ message: 'a', __cloudwatch: true }, { message: 'b', timestamp: 2, __cloudwatch: true }] }],
    ['an "events" list that is not CloudWatch’s: one without a message', { events: [{ message: 'a' }, { kind: 'Event' }] }, null],
    ['an "events" list of other things', { events: [5] }, null],
    ['CloudWatch event, a message that is not text', { __cloudwatch: true, message: 5 }, { wrapper: 'cloudwatch', texts: [''] }],
    ['CloudWatch event by its stream name', { message: line, timestamp: 1, logStreamName: 's' }, { wrapper: 'cloudwatch', texts: [line], apiserver: 's' }],
    ['CloudWatch event by its id', { message: line, timestamp: 1, eventId: 'e' }, { wrapper: 'cloudwatch', texts: [line] }],
    ['a CloudWatch event’s timestamp is a number', { message: line, timestamp: '1', ingestionTime: 2 }, { wrapper: 'message', texts: [line] }],
    ['a CloudWatch-shaped record whose message is not text', { message: 5, timestamp: 1, ingestionTime: 2 }, null],
    ['CloudWatch event', { __cloudwatch: true, message: line }, { wrapper: 'cloudwatch', texts: [line] }],
    ['CloudWatch event by its fields', { message: line, timestamp: 1, ingestionTime: 2 }, { wrapper: 'cloudwatch', texts: [line] }],
    ['CloudWatch cut', { __cloudwatch: true, message: `${line.slice(0, 9)}[Truncated...]` }, { wrapper: 'cloudwatch', truncated: 'CloudWatch message truncated ([Truncated...])' }],
    ['Logs Insights JSON', { '@timestamp': 't', '@message': line }, { wrapper: 'logs-insights', texts: [line] }],
    ['Logs Insights cut', { '@message': 'x[Truncated...]' }, { wrapper: 'logs-insights', truncated: 'Logs Insights message truncated ([Truncated...])' }],
    ['Vector / Filebeat', { message: line, host: 'h' }, { wrapper: 'message', texts: [line], apiserver: 'h' }],
    ['Filebeat (log is an object, not the line)', { '@timestamp': 't', log: { file: { path: '/p' } }, message: line }, { wrapper: 'message', texts: [line] }],
    ['a message with a timestamp but no CloudWatch field', { message: line, timestamp: 1 }, { wrapper: 'message', texts: [line] }],
    // the apiserver a record names (issue 23): a pod first, then a stream, a Loki label, a host
    ['Fluent Bit with the kubernetes filter', { log: line, kubernetes: { pod_name: 'kube-apiserver-m1', host: 'm1' } }, { wrapper: 'fluent-bit', texts: [line], apiserver: 'kube-apiserver-m1' }],
    ['Fluent Bit, the node only', { log: line, kubernetes: { host: 'm1' } }, { wrapper: 'fluent-bit', texts: [line], apiserver: 'm1' }],
    ['Filebeat with kubernetes metadata', { message: line, kubernetes: { pod: { name: 'kube-apiserver-m2' } }, host: { name: 'm2' } }, { wrapper: 'message', texts: [line], apiserver: 'kube-apiserver-m2' }],
    ['Filebeat, the host only', { message: line, host: { name: 'm2' } }, { wrapper: 'message', texts: [line], apiserver: 'm2' }],
    ['Loki with a node label', { labels: { job: 'audit', node: 'm3' }, line }, { wrapper: 'loki', texts: [line], apiserver: 'm3' }],
    ['Logs Insights with @logStream', { '@message': line, '@logStream': 'kube-apiserver-audit-1' }, { wrapper: 'logs-insights', texts: [line], apiserver: 'kube-apiserver-audit-1' }],
    ['a name of control characters only names nothing', { message: line, host: '\u0001 ' }, { wrapper: 'message', texts: [line] }],
    ['nothing known', { kind: 'Pod', metadata: {} }, null],
  ])('%s', (_name, rec, want) => {
    expect(unwrapRecord(rec)).toStrictEqual(want);
  });

  it('reads Datadog API pages and items', () => {
    expect(unwrapRecord({ data: [{ type: 'log', attributes: { attributes: ev } }] })).toStrictEqual({ wrapper: 'datadog-api', values: [{ type: 'log', attributes: { attributes: ev } }] });
    expect(unwrapRecord({ data: [1, 2] })).toBeNull();
    expect(unwrapRecord({ data: [{}] })).toBeNull();
    // a page is Datadog's when any item is a log item
    expect(unwrapRecord({ data: [1, { type: 'log', attributes: {} }] })).toStrictEqual({ wrapper: 'datadog-api', values: [1, { type: 'log', attributes: {} }] });
    // an item is a log item by its type and its attributes, both
    expect(unwrapRecord({ attributes: { message: line } })).toBeNull();
    expect(unwrapRecord({ type: 'log', message: line })).toStrictEqual({ wrapper: 'message', texts: [line] });
    // a parsed event by its auditID or its stage alone
    expect(unwrapRecord({ type: 'log', attributes: { attributes: { auditID: 'a' }, message: 'm' } })).toStrictEqual({ wrapper: 'datadog-api', values: [{ auditID: 'a' }] });
    expect(unwrapRecord({ type: 'log', attributes: { attributes: { stage: 'ResponseComplete' }, message: 'm' } })).toStrictEqual({ wrapper: 'datadog-api', values: [{ stage: 'ResponseComplete' }] });
    expect(unwrapRecord({ type: 'log', attributes: { attributes: ev, message: 'm' } })).toStrictEqual({ wrapper: 'datadog-api', values: [ev] });
    // a parsed zap line (msg) is read as the value too
    expect(unwrapRecord({ type: 'log', attributes: { attributes: { msg: 'apply request took too long' } } })).toStrictEqual({ wrapper: 'datadog-api', values: [{ msg: 'apply request took too long' }] });
    // not parsed: the raw line in attributes.message
    expect(unwrapRecord({ type: 'log', attributes: { attributes: { service: 'x' }, message: line } })).toStrictEqual({ wrapper: 'datadog-api', texts: [line] });
    expect(unwrapRecord({ type: 'log', attributes: {} })).toStrictEqual({ wrapper: 'datadog-api', values: [] });
  });

  it('reads OTLP bodies of every AnyValue kind', () => {
    const rec = (body: unknown) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body }] }] }] });
    expect(unwrapRecord(rec({ stringValue: line }))).toStrictEqual({ wrapper: 'otlp', texts: [line], values: [] });
    const kv = { kvlistValue: { values: [{ key: 'kind', value: { stringValue: 'Event' } }, { key: 'code', value: { intValue: '200' } }, { key: 'ok', value: { boolValue: true } }, { key: 'f', value: { doubleValue: 1.5 } }, { key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }] } } }, { key: 'e', value: { arrayValue: {} } }, { key: 'n', value: {} }, { value: { stringValue: 'no key' } }] } };
    expect(unwrapRecord(rec(kv))).toStrictEqual({ wrapper: 'otlp', texts: [], values: [{ kind: 'Event', code: 200, ok: true, f: 1.5, a: ['x'], e: [], n: null }] });
    expect(unwrapRecord(rec(undefined))).toStrictEqual({ wrapper: 'otlp', texts: [], values: [] });
    expect(unwrapRecord(rec({}))).toStrictEqual({ wrapper: 'otlp', texts: [], values: [] }); // an AnyValue of no known kind
    expect(unwrapRecord(rec({ kvlistValue: {} }))).toStrictEqual({ wrapper: 'otlp', texts: [], values: [{}] });
    // levels without their list, or not objects at all
    expect(unwrapRecord({ resourceLogs: [{}, null, { scopeLogs: [{}, null, 5] }] })).toStrictEqual({ wrapper: 'otlp', texts: [], values: [] });
    // records spread over resources and scopes, in order; broken levels are passed over
    const many = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'a' } }, { body: { stringValue: 'b' } }] }, { logRecords: 'x' }] }, { scopeLogs: [{ logRecords: [{ body: { stringValue: 'c' } }] }] }, 5] };
    expect(unwrapRecord(many)).toStrictEqual({ wrapper: 'otlp', texts: ['a', 'b', 'c'], values: [] });
  });
});

describe('GKE Cloud Logging entries', () => {
  const entry = (p: Record<string, unknown>, top: Record<string, unknown> = {}) => ({ insertId: 'i-1', timestamp: '2026-11-30T12:00:01.5Z', protoPayload: { '@type': 'type.googleapis.com/google.cloud.audit.AuditLog', serviceName: 'k8s.io', ...p }, ...top });
  it('recognises entries by protoPayload and a LogEntry field', () => {
    expect(isGkeEntry(entry({}))).toBe(true);
    expect(isGkeEntry({ protoPayload: {}, logName: 'l' })).toBe(true);
    expect(isGkeEntry({ protoPayload: {}, receiveTimestamp: 't' })).toBe(true);
    expect(isGkeEntry({ protoPayload: {} })).toBe(false);
    expect(isGkeEntry({ protoPayload: 'x', insertId: 'i' })).toBe(false);
    expect(isGkeEntry({ protoPayload: [], insertId: 'i' })).toBe(false);
  });
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['a core list', { methodName: 'io.k8s.core.v1.pods.list', resourceName: 'core/v1/pods' }, { verb: 'list', requestURI: '/api/v1/pods' }],
    ['a namespaced get in a group', { methodName: 'io.k8s.coordination.v1.leases.get', resourceName: 'coordination.k8s.io/v1/namespaces/kube-node-lease/leases/w1' }, { verb: 'get', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/w1' }],
    ['a non-resource URL', { methodName: 'io.k8s.get', resourceName: 'readyz' }, { verb: 'get', requestURI: '/readyz' }],
    ['a non-resource URL with a slash', { methodName: 'io.k8s.get', resourceName: '/livez' }, { verb: 'get', requestURI: '/livez' }],
    // a resource request needs three segments, the second a version
    ['discovery of a group version (two segments)', { methodName: 'io.k8s.get', resourceName: 'apis/v1' }, { verb: 'get', requestURI: '/apis/v1' }],
    ['a non-resource URL of two segments', { methodName: 'io.k8s.get', resourceName: 'metrics/slis' }, { verb: 'get', requestURI: '/metrics/slis' }],
    ['a second segment that only contains a version', { methodName: 'io.k8s.get', resourceName: 'logs/kv2/x' }, { verb: 'get', requestURI: '/logs/kv2/x' }],
  ])('%s', (_n, p, want) => {
    const r = fromGkeEntry(entry(p));
    expect(r).toMatchObject({ event: { kind: 'Event', apiVersion: 'audit.k8s.io/v1', auditID: 'i-1', stage: 'ResponseComplete', requestReceivedTimestamp: '2026-11-30T12:00:01.5Z', stageTimestamp: '2026-11-30T12:00:01.5Z', [QUERY_UNKNOWN]: true, ...want } });
  });
  it('takes the user, source, agent, status and level from the entry', () => {
    const r = fromGkeEntry(entry({ methodName: 'io.k8s.core.v1.pods.list', resourceName: 'core/v1/pods', authenticationInfo: { principalEmail: 'system:serviceaccount:vector:vector' }, requestMetadata: { callerIp: '10.0.0.1', callerSuppliedUserAgent: 'vector/0.34.1' }, status: { code: 7 } }));
    expect(r).toMatchObject({ event: { user: { username: 'system:serviceaccount:vector:vector' }, sourceIPs: ['10.0.0.1'], userAgent: 'vector/0.34.1', responseStatus: { code: 403 }, level: 'Metadata' } });
    // gRPC codes become HTTP codes; an HTTP code in the response wins; an unknown gRPC code is a 500
    const code = (p: Record<string, unknown>) => ((fromGkeEntry(entry({ methodName: 'io.k8s.core.v1.pods.get', resourceName: 'core/v1/pods/x', ...p })) as { event: { responseStatus: { code: number } } }).event.responseStatus.code);
    expect([code({}), code({ status: { code: 5 } }), code({ status: { code: 8 } }), code({ status: { code: 99 } }), code({ response: { code: 410 } }), code({ response: { code: 3 }, status: { code: 6 } })]).toStrictEqual([200, 404, 429, 500, 410, 409]);
    expect(fromGkeEntry(entry({ methodName: 'io.k8s.core.v1.pods.get', resourceName: 'core/v1/pods/x', response: {} }))).toMatchObject({ event: { level: 'RequestResponse' } });
    // the receive time when the entry has no timestamp; the operation id when it has no insertId
    expect(fromGkeEntry({ receiveTimestamp: 'r', operation: { id: 'op-1' }, protoPayload: { serviceName: 'k8s.io', methodName: 'io.k8s.core.v1.pods.get', resourceName: 'core/v1/pods/x' } })).toMatchObject({ event: { auditID: 'op-1', requestReceivedTimestamp: 'r' } });
  });
  it('the whole event of a bare entry: no user, source or agent, one stage, the query unknown', () => {
    const r = fromGkeEntry(entry({ methodName: 'io.k8s.core.v1.pods.list', resourceName: 'core/v1/pods', authenticationInfo: { principalEmail: 5 }, requestMetadata: [] }));
    expect(r).toStrictEqual({ event: { kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: 'i-1', stage: 'ResponseComplete', requestURI: '/api/v1/pods', verb: 'list', user: { username: '' }, sourceIPs: [], userAgent: '', responseStatus: { code: 200 }, requestReceivedTimestamp: '2026-11-30T12:00:01.5Z', stageTimestamp: '2026-11-30T12:00:01.5Z', __queryUnknown: true } });
  });
  it('the event’s time, id, level and code when the entry’s fields are missing or of the wrong type', () => {
    const get = { serviceName: 'k8s.io', methodName: 'io.k8s.core.v1.pods.get', resourceName: 'core/v1/pods/x' };
    const ev = (o: Record<string, unknown>) => (fromGkeEntry(o) as { event: Record<string, unknown> }).event;
    // a timestamp that is not text: the receive time
    expect(ev({ timestamp: 5, receiveTimestamp: 'r', insertId: 'i', protoPayload: get }).requestReceivedTimestamp).toBe('r');
    expect(ev({ timestamp: 5, insertId: 'i', protoPayload: get }).requestReceivedTimestamp).toBeUndefined();
    expect(ev({ timestamp: 5, receiveTimestamp: 7, insertId: 'i', protoPayload: get }).requestReceivedTimestamp).toBeUndefined();
    // null parts are no parts
    expect(ev({ insertId: 'i', protoPayload: { ...get, authenticationInfo: null, requestMetadata: null, status: null, response: null } })).toMatchObject({ user: { username: '' }, sourceIPs: [], userAgent: '', responseStatus: { code: 200 }, level: 'RequestResponse' });
    // no insertId and no usable operation id: none
    expect(ev({ logName: 'l', protoPayload: get }).auditID).toBeUndefined();
    expect(ev({ logName: 'l', operation: { id: 7 }, protoPayload: get }).auditID).toBeUndefined();
    expect(ev({ insertId: 3, logName: 'l', operation: { id: 'op' }, protoPayload: get }).auditID).toBe('op');
    // a request body alone makes it RequestResponse
    expect(ev({ insertId: 'i', protoPayload: { ...get, request: {} } }).level).toBe('RequestResponse');
    // an HTTP code from 100, as a number; anything else falls back to the gRPC status
    expect(ev({ insertId: 'i', protoPayload: { ...get, response: { code: 100 } } }).responseStatus).toStrictEqual({ code: 100 });
    expect(ev({ insertId: 'i', protoPayload: { ...get, response: { code: 99 }, status: { code: 5 } } }).responseStatus).toStrictEqual({ code: 404 });
    expect(ev({ insertId: 'i', protoPayload: { ...get, response: { code: '410' } } }).responseStatus).toStrictEqual({ code: 200 });
    expect(ev({ insertId: 'i', protoPayload: { ...get, status: { code: '5' } } }).responseStatus).toStrictEqual({ code: 200 });
  });
  it('the query-unknown mark is its own key: a native event with an empty key is still read by its query', () => {
    const r = normalizeAuditEvent({ '': true, kind: 'Event', apiVersion: 'audit.k8s.io/v1', auditID: 'a', stage: 'ResponseComplete', verb: 'list', requestURI: '/api/v1/pods?resourceVersion=0', objectRef: { resource: 'pods' }, requestReceivedTimestamp: '2026-11-30T12:00:00Z', stageTimestamp: '2026-11-30T12:00:00Z' }, () => 'x');
    expect(r.ok && r.value.queryKnown).toBe(true);
  });
  it('says why an entry holds no Kubernetes request', () => {
    expect(fromGkeEntry(entry({ serviceName: 'a-very-long-service-name-that-goes-on.googleapis.com' }))).toStrictEqual({ reason: 'GKE Cloud Logging entry of a-very-long-service-name-that-goes-on.go (not a Kubernetes API request)' });
    expect(fromGkeEntry(entry({ serviceName: 'container.googleapis.com' }))).toStrictEqual({ reason: 'GKE Cloud Logging entry of container.googleapis.com (not a Kubernetes API request)' });
    expect(fromGkeEntry({ insertId: 'i', protoPayload: {} })).toStrictEqual({ reason: 'GKE Cloud Logging entry of an unknown service (not a Kubernetes API request)' });
    expect(fromGkeEntry(entry({ methodName: 'io.k8s.core.v1.pods.list' }))).toStrictEqual({ reason: 'GKE Cloud Logging entry without methodName or resourceName' });
    expect(fromGkeEntry(entry({ resourceName: 'core/v1/pods' }))).toStrictEqual({ reason: 'GKE Cloud Logging entry without methodName or resourceName' });
  });
});

describe('AKS Log Analytics rows', () => {
  const row = { AuditId: 'a1', Level: 'Metadata', Stage: 'ResponseComplete', RequestUri: '/api/v1/pods', Verb: 'list', User: '{"username":"u"}', ImpersonatedUser: '', SourceIps: '["10.0.0.1"]', UserAgent: 'ua', ObjectRef: '{"resource":"pods"}', ResponseStatus: '{"code":200}', RequestObject: '', ResponseObject: 'not json {', RequestReceivedTime: '2026-11-30T12:00:01.1Z', StageReceivedTime: '2026-11-30T12:00:01.2Z', Annotations: ' ', TableName: 'PrimaryResult' };
  it('recognises rows', () => {
    expect(isAksLogAnalyticsRow(row)).toBe(true);
    expect(isAksLogAnalyticsRow({ AuditId: 'a', RequestUri: '/x', StageReceivedTime: 't' })).toBe(true);
    expect(isAksLogAnalyticsRow({ AuditId: 'a', Verb: 'get', RequestReceivedTime: 't' })).toBe(true);
    expect(isAksLogAnalyticsRow({ AuditId: 'a', Verb: 'get' })).toBe(false);
    expect(isAksLogAnalyticsRow({ AuditId: 'a', Stage: 'x' })).toBe(false);
    expect(isAksLogAnalyticsRow({ AuditId: 1, Verb: 'get', Stage: 'x' })).toBe(false);
    // a request (by its verb or its URI) and a stage (by name or by either time), each on its own
    expect(isAksLogAnalyticsRow({ AuditId: 'a', Verb: 'get', Stage: 'x' })).toBe(true);
    expect(isAksLogAnalyticsRow({ AuditId: 'a', RequestUri: '/x', Stage: 'x' })).toBe(true);
    expect(isAksLogAnalyticsRow({ AuditId: 'a', Verb: 'get', StageReceivedTime: 't' })).toBe(true);
    expect(isAksLogAnalyticsRow({ AuditId: 'a', Stage: 'x', StageReceivedTime: 't' })).toBe(false);
  });
  it('rebuilds the event: dynamic columns parsed, empty ones dropped, text that is not JSON kept', () => {
    expect(fromAksLogAnalyticsRow(row)).toStrictEqual({
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: 'a1', stage: 'ResponseComplete', requestURI: '/api/v1/pods', verb: 'list',
      user: { username: 'u' }, sourceIPs: ['10.0.0.1'], userAgent: 'ua', objectRef: { resource: 'pods' }, responseStatus: { code: 200 }, responseObject: 'not json {',
      requestReceivedTimestamp: '2026-11-30T12:00:01.1Z', stageTimestamp: '2026-11-30T12:00:01.2Z',
    });
    // objects as az writes them with --output json for some columns; TimeGenerated when StageReceivedTime is missing
    expect(fromAksLogAnalyticsRow({ AuditId: 'a', User: { username: 'v' }, TimeGenerated: 'tg', Stage: 'ResponseComplete' })).toMatchObject({ user: { username: 'v' }, stageTimestamp: 'tg' });
    // empty text and null columns are left out; text that does not open like JSON is kept as it is, and so is
    // text that opens like JSON but is not
    expect(fromAksLogAnalyticsRow({ AuditId: 'a', Level: null, UserAgent: '', Annotations: '42', RequestObject: '"x"', ResponseObject: '{not json', SourceIps: '[ "10.0.0.2" ]' })).toStrictEqual({
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', auditID: 'a', annotations: '42', requestObject: '"x"', responseObject: '{not json', sourceIPs: ['10.0.0.2'],
    });
  });
});

describe('Logs Insights CSV', () => {
  it.each<[string, string[] | null]>([
    ['a,b,c', ['a', 'b', 'c']],
    ['', ['']],
    ['a,', ['a', '']],
    [',a', ['', 'a']],
    ['"x,y",z', ['x,y', 'z']],
    ['"say ""hi""",2', ['say "hi"', '2']],
    ['"",""', ['', '']],
    ['"a"b,c', ['ab', 'c']],
    ['"a"b', ['ab']],
    ['"open,field', null],
    ['"two\nlines",x', ['two\nlines', 'x']],
    ['t,"{""kind"":""Event""}"', ['t', '{"kind":"Event"}']],
    ['"a""', null], // the doubled quote is a quote, and the field is still open
    ['"a"""', ['a"']],
    ['a,"b",c"d"', ['a', 'b', 'c"d"']], // a quote inside an unquoted field is text
  ])('%j', (rec, want) => {
    expect(parseCsvRecord(rec)).toStrictEqual(want);
  });
  it.each<[string, number | null]>([
    ['@timestamp,@message', 1],
    ['@message', 0],
    ['"@timestamp","@message","@logStream"', 1],
    ['\ufeff@timestamp,@message\r', 1],
    ['@timestamp,@log', null],
    ['timestamp,@message', null],
    ['@timestamp,@message,some field', null],
    ['"@timestamp,@message', null],
    ['@timestamp, @message', 1], // spaces around a name
    ['@timestamp,@message,verb', 1], // a field of the parsed message, without @
    ['@timestamp,@mes\ufeffsage', null],
  ])('header %j → @message column %j', (h, want) => {
    expect(logsInsightsColumn(h)).toBe(want);
  });
});
