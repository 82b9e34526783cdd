/*! JSON records that wrap a log line or an event: container runtimes (Docker json-file), shippers (Fluent Bit,
 * Vector, Filebeat, the Datadog agent, Loki, Splunk), cloud exports (CloudWatch via the AWS CLI and Logs
 * Insights, Datadog's logs API, OpenTelemetry, Azure Log Analytics, GKE Cloud Logging) and journald's JSON.
 * unwrapRecord() says what a record holds; the scan reads what it holds as it reads a line or an event, so the
 * counting rules do not change with the wrapper. Plain data in, plain data out: no streams, no state. */

/** What a wrapper record holds. */
export interface Unwrapped {
  /** a short name for the wrapper, for inputs[].wrappers: docker, fluent-bit, message, loki, splunk-hec, … */
  wrapper: string;
  /** lines to read as lines (an event's JSON text, an etcd log line, …) */
  texts?: string[];
  /** values to read as JSON values (an event object, another wrapper) */
  values?: unknown[];
  /** the start of a line a runtime split (Docker json-file without the trailing \n): joined with the next */
  partial?: string;
  /** the record says its text was cut (CloudWatch's "[Truncated...]"): the reason */
  truncated?: string;
  /** the apiserver the record names (apiserverOfRecord), when it names one */
  apiserver?: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Says what a record that is not an audit event wraps, or null when it wraps nothing this reads; with the
 * apiserver the record names, when it names one. */
export function unwrapRecord(o: Record<string, unknown>): Unwrapped | null {
  const u = unwrapOnly(o);
  if (u === null || Array.isArray(o.resourceLogs) || Array.isArray(o.data) || Array.isArray(o.events)) return u; // lists: named per item
  const a = apiserverOfRecord(o);
  if (a !== null) u.apiserver = a;
  return u;
}

/** Where wrappers name the apiserver (or its pod or host) that wrote the line, most specific first: a pod's name
 * (Fluent Bit's and Vector's kubernetes metadata, Filebeat's), a CloudWatch log stream (EKS writes one stream per
 * apiserver, kube-apiserver-audit-<id>), a Loki label, the host that shipped it (Vector, Filebeat, Splunk,
 * journald, the Datadog agent). GKE's resource labels name the cluster, not an apiserver: not read. */
const NAMED_AT: ReadonlyArray<readonly string[]> = [
  ['kubernetes', 'pod_name'],
  ['kubernetes', 'pod', 'name'],
  ['logStreamName'],
  ['@logStream'],
  ['logStream'],
  ['labels', 'pod'],
  ['labels', 'pod_name'],
  ['labels', 'host'],
  ['labels', 'hostname'],
  ['labels', 'node'],
  ['labels', 'node_name'],
  ['kubernetes', 'host'],
  ['kubernetes', 'node', 'name'],
  ['host'],
  ['host', 'name'],
  ['host', 'hostname'],
  ['_HOSTNAME'],
  ['result', 'host'],
  ['attributes', 'host'],
];

/** The apiserver identity a wrapper record names (NAMED_AT), or null. Control characters are dropped and the
 * name is cut at 200 characters. */
export function apiserverOfRecord(o: Record<string, unknown>): string | null {
  for (const path of NAMED_AT) {
    let v: unknown = o;
    for (const k of path) v = isObj(v) ? v[k] : undefined;
    const name = cleanName(v);
    if (name !== null) return name;
  }
  return null;
}

/** A name fit to identify an apiserver: a non-empty string without control characters, at most 200 long. */
export function cleanName(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const t = v.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200);
  return t.length > 0 ? t : null;
}

function unwrapOnly(o: Record<string, unknown>): Unwrapped | null {
  // Docker json-file: {"log":"<line>\n","stream":"stdout","time":"…"}; a line over 16 KiB comes in parts,
  // each without the \n but the last. Fluent Bit's tail of such files keeps "log" (and drops stream/time when
  // it parsed them): the same reading, without parts.
  const log = str(o.log);
  if (log !== null) {
    const docker = typeof o.stream === 'string' && typeof o.time === 'string';
    if (docker && !log.endsWith('\n')) return { wrapper: 'docker', partial: log };
    return { wrapper: docker ? 'docker' : 'fluent-bit', texts: [log.endsWith('\n') ? log.slice(0, log.endsWith('\r\n') ? -2 : -1) : log] };
  }
  // Loki (logcli query -o jsonl): {"labels":{…},"line":"<line>","timestamp":"…"}
  if (typeof o.line === 'string' && (isObj(o.labels) || 'timestamp' in o)) return { wrapper: 'loki', texts: [o.line] };
  // Splunk HEC: {"time":…,"sourcetype":…,"event":{…}|"<line>"}
  if ('event' in o && ('sourcetype' in o || 'time' in o || 'host' in o || 'source' in o)) {
    const ev = o.event;
    if (typeof ev === 'string') return { wrapper: 'splunk-hec', texts: [ev] };
    if (isObj(ev)) return { wrapper: 'splunk-hec', values: [ev] };
  }
  // Splunk search export: {"preview":false,"result":{"_raw":"<line>",…}}
  if (isObj(o.result) && typeof o.result._raw === 'string') return { wrapper: 'splunk-export', texts: [o.result._raw] };
  // journalctl -o json: {"MESSAGE":"<line>","__REALTIME_TIMESTAMP":"…",…}; a binary message is an array of bytes
  if ('MESSAGE' in o && ('__REALTIME_TIMESTAMP' in o || '_HOSTNAME' in o || 'SYSLOG_IDENTIFIER' in o)) {
    const m = o.MESSAGE;
    if (typeof m === 'string') return { wrapper: 'journald', texts: [m] };
    if (Array.isArray(m) && m.every((b) => typeof b === 'number')) return { wrapper: 'journald', texts: [Buffer.from(m as number[]).toString('utf8')] };
  }
  // OpenTelemetry logs (OTLP JSON, e.g. OpenShift Logging's OTLP output): resourceLogs[].scopeLogs[].logRecords[].body
  if (Array.isArray(o.resourceLogs)) return unwrapOtlp(o.resourceLogs);
  // Datadog logs API (v2 list/search): {"data":[{"type":"log","attributes":{"attributes":{…},"message":"…"}}]}
  if (Array.isArray(o.data) && o.data.some((d) => isObj(d) && isObj(d.attributes))) return { wrapper: 'datadog-api', values: o.data };
  if (o.type === 'log' && isObj(o.attributes)) return unwrapDatadogItem(o);
  // aws logs filter-log-events / get-log-events --output json: {"events":[{"timestamp":…,"message":"…"}],…}
  if (Array.isArray(o.events) && ('searchedLogStreams' in o || 'nextForwardToken' in o || 'nextToken' in o || o.events.every((e) => isObj(e) && 'message' in e))) {
    return { wrapper: 'cloudwatch', values: o.events.map((e) => (isObj(e) ? { ...e, __cloudwatch: true } : e)) };
  }
  if (o.__cloudwatch === true || (typeof o.message === 'string' && typeof o.timestamp === 'number' && ('ingestionTime' in o || 'logStreamName' in o || 'eventId' in o))) {
    return cloudWatchMessage(str(o.message) ?? '');
  }
  // CloudWatch Logs Insights (JSON export): {"@timestamp":"…","@message":"<line>"}
  if (typeof o['@message'] === 'string') return cloudWatchMessage(o['@message'], 'logs-insights');
  // Vector, Filebeat / Elastic Agent, the Datadog agent: {"message":"<line>",…}
  if (typeof o.message === 'string') return { wrapper: 'message', texts: [o.message] };
  return null;
}

/** A CloudWatch message; "[Truncated...]" marks one CloudWatch cut at its 256 KB event limit. */
function cloudWatchMessage(m: string, wrapper = 'cloudwatch'): Unwrapped {
  if (m.endsWith('[Truncated...]')) return { wrapper, truncated: `${wrapper === 'cloudwatch' ? 'CloudWatch' : 'Logs Insights'} message truncated ([Truncated...])` };
  return { wrapper, texts: [m] };
}

function unwrapDatadogItem(o: Record<string, unknown>): Unwrapped {
  const a = o.attributes as Record<string, unknown>;
  // The agent parsed a JSON log into attributes.attributes; the raw line stays in attributes.message.
  if (isObj(a.attributes) && ('auditID' in a.attributes || 'stage' in a.attributes || 'msg' in a.attributes)) return { wrapper: 'datadog-api', values: [a.attributes] };
  if (typeof a.message === 'string') return { wrapper: 'datadog-api', texts: [a.message] };
  return { wrapper: 'datadog-api', values: [] };
}

/** OTLP AnyValue → a JS value (stringValue, kvlistValue, arrayValue, …). */
function anyValue(v: unknown): unknown {
  if (!isObj(v)) return v;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if (isObj(v.arrayValue)) return Array.isArray(v.arrayValue.values) ? v.arrayValue.values.map(anyValue) : [];
  if (isObj(v.kvlistValue)) {
    const out: Record<string, unknown> = {};
    // Stryker disable next-line ArrayDeclaration: a stand-in list of a string holds no key-value object, as [] holds none
    for (const kv of Array.isArray(v.kvlistValue.values) ? v.kvlistValue.values : []) if (isObj(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
    return out;
  }
  return null;
}

function unwrapOtlp(resourceLogs: unknown[]): Unwrapped {
  const texts: string[] = [];
  const values: unknown[] = [];
  for (const rl of resourceLogs) {
    // Stryker disable next-line ArrayDeclaration: a stand-in list of a string holds no scope, as [] holds none
    const scopes = isObj(rl) && Array.isArray(rl.scopeLogs) ? rl.scopeLogs : [];
    for (const sl of scopes) {
      // Stryker disable next-line ArrayDeclaration: as above, no record
      const records = isObj(sl) && Array.isArray(sl.logRecords) ? sl.logRecords : [];
      for (const r of records) {
        const body = isObj(r) ? anyValue(r.body) : null;
        if (typeof body === 'string') texts.push(body);
        else if (body !== null && body !== undefined) values.push(body);
      }
    }
  }
  return { wrapper: 'otlp', texts, values };
}
