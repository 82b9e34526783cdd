/*! kube-apiserver Prometheus metrics → MetricSample: the text exposition format of `kubectl get --raw /metrics`
 * (one line at a time, so a 10 MB dump streams) and Prometheus HTTP API query results (`/api/v1/query`,
 * `/api/v1/query_range`). Managed control planes (EKS, GKE, AKS) give no etcd log; these metrics stand in for it. */

/** One sample: a metric name, its labels, a value and, when the source gave one, a time. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  /** may be NaN or ±Infinity, as the format allows */
  value: number;
  timestampMs: number | null;
}

/** The metrics the analysis reads; parseMetricLine drops every other name before looking at labels. */
export const USED_METRICS: ReadonlySet<string> = new Set([
  // object counts: 1.34+ (group, resource), 1.21–1.33 (resource="deployments.apps"), before 1.21
  'apiserver_resource_objects',
  'apiserver_storage_objects',
  'etcd_object_counts',
  // LISTs served from etcd (1.23+); apiserver_storage_list_requests_total is the name the storage-label rework uses
  'apiserver_storage_list_total',
  'apiserver_storage_list_requests_total',
  'apiserver_storage_list_fetched_objects_total',
  'apiserver_storage_list_evaluated_objects_total',
  'apiserver_storage_list_returned_objects_total',
  // LISTs served from the watch cache (1.23+)
  'apiserver_cache_list_total',
  'apiserver_cache_list_fetched_objects_total',
  'apiserver_cache_list_returned_objects_total',
  'apiserver_resource_size_estimate_bytes',
  'apiserver_storage_size_bytes',
  // gitVersion gives the Kubernetes version; feature_enabled{name,stage} 0/1 gives the gates
  'kubernetes_build_info',
  'kubernetes_feature_enabled',
  // names the process a dump without an instance label came from: two dumps of one apiserver give deltas
  'process_start_time_seconds',
]);

/** One exposition-format line → a sample, or null for comments, blanks, garbage and metrics the analysis does not use. */
export function parseMetricLine(line: string): MetricSample | null {
  // The fast path: most of a dump is histogram buckets of other metrics. Every used name starts with a, e, k or p.
  const c = line.charCodeAt(0);
  if (c !== 97 && c !== 101 && c !== 107 && c !== 112) return null;
  const end = nameEnd(line, 0);
  if (end === 0 || !USED_METRICS.has(line.slice(0, end))) return null;
  return parseSampleAt(line, end);
}

/** As parseMetricLine, for any metric name. */
export function parseAnyMetricLine(line: string): MetricSample | null {
  let i = 0;
  while (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9) i++;
  const end = nameEnd(line, i);
  if (end === i) return null;
  return i === 0 ? parseSampleAt(line, end) : parseSampleAt(line.slice(i), end - i);
}

const HELP_OR_TYPE = /^#\s+(?:HELP\s+[a-zA-Z_:][a-zA-Z0-9_:]*(?:\s|$)|TYPE\s+[a-zA-Z_:][a-zA-Z0-9_:]*\s+(?:counter|gauge|histogram|summary|untyped)\s*$)/;

/** true for `# HELP`, `# TYPE` and sample lines: recognises a metrics dump by its content. */
export function isMetricsTextLine(line: string): boolean {
  if (line.charCodeAt(0) === 35) return HELP_OR_TYPE.test(line);
  return parseAnyMetricLine(line) !== null;
}

/** The index after a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) that starts at `i`; `i` itself when there is none. */
function nameEnd(s: string, i: number): number {
  const first = s.charCodeAt(i);
  if (!(isAlpha(first) || first === 95 || first === 58)) return i;
  let j = i + 1;
  for (;;) {
    const ch = s.charCodeAt(j);
    if (isAlpha(ch) || (ch >= 48 && ch <= 57) || ch === 95 || ch === 58) j++;
    else return j;
  }
}

function isAlpha(ch: number): boolean {
  return (ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90);
}

function isSpace(ch: number): boolean {
  return ch === 32 || ch === 9;
}

/** The rest of a sample line after its name: optional {labels}, a value, an optional integer timestamp in ms. */
function parseSampleAt(s: string, nameEndAt: number): MetricSample | null {
  const name = s.slice(0, nameEndAt);
  const labels: Record<string, string> = {};
  let i = nameEndAt;
  while (isSpace(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) === 123) {
    i = parseLabels(s, i + 1, labels);
    if (i < 0) return null;
  } else if (i === nameEndAt) {
    // a name must be followed by '{' or blank space ("foo3" is not "foo 3")
    return null;
  }
  while (isSpace(s.charCodeAt(i))) i++;
  let j = i;
  while (j < s.length && !isSpace(s.charCodeAt(j))) j++;
  const value = parseValue(s.slice(i, j));
  if (value === null) return null;
  while (isSpace(s.charCodeAt(j))) j++;
  let timestampMs: number | null = null;
  if (j < s.length) {
    let k = j;
    while (k < s.length && !isSpace(s.charCodeAt(k))) k++;
    const ts = s.slice(j, k);
    if (!/^-?\d+$/.test(ts)) return null;
    timestampMs = Number(ts);
    while (isSpace(s.charCodeAt(k))) k++;
    // Stryker disable next-line ConditionalExpression: trailing text after a timestamp makes the line garbage
    if (k < s.length) return null;
  }
  return { name, labels, value, timestampMs };
}

/** Reads `a="b",c="d"}` from `i` (just after '{') into `out`; the index after '}', or -1 when malformed. */
function parseLabels(s: string, i: number, out: Record<string, string>): number {
  for (;;) {
    while (isSpace(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) === 125) return i + 1;
    const ne = nameEnd(s, i);
    if (ne === i) return -1;
    const key = s.slice(i, ne);
    i = ne;
    while (isSpace(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) !== 61) return -1;
    i++;
    while (isSpace(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) !== 34) return -1;
    i++;
    // Unescaped values (nearly all) are one slice; only a backslash sends the value through the slow loop.
    const close = s.indexOf('"', i);
    const bs = s.indexOf('\\', i);
    if (close < 0) return -1;
    let value: string;
    if (bs < 0 || bs > close) {
      value = s.slice(i, close);
      i = close + 1;
    } else {
      value = '';
      for (;;) {
        if (i >= s.length) return -1;
        const ch = s[i]!;
        if (ch === '"') break;
        if (ch === '\\') {
          const n = s[i + 1];
          // The format defines \\, \" and \n; any other escape is kept as written.
          value += n === 'n' ? '\n' : n === '\\' || n === '"' ? n : `\\${n ?? ''}`;
          i += 2;
        } else {
          value += ch;
          i++;
        }
      }
      i++;
    }
    out[key] = value;
    while (isSpace(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) === 44) i++;
    else if (s.charCodeAt(i) !== 125) return -1;
  }
}

const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A sample value: a Go float (1, 1.5e+06, -0.5), +Inf, -Inf, Inf or NaN. null when it is none of those. */
function parseValue(t: string): number | null {
  if (FLOAT.test(t)) return Number(t);
  switch (t) {
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
  }
  return null;
}

/** true when a parsed JSON value is a Prometheus HTTP API response or a bare array of its results. */
export function looksLikePromApiResult(doc: unknown): boolean {
  if (Array.isArray(doc)) return doc.length > 0 && isResultItem(doc[0]);
  if (doc === null || typeof doc !== 'object') return false;
  const o = doc as Record<string, unknown>;
  if (o.status === 'error') return typeof o.error === 'string' || typeof o.errorType === 'string';
  if (o.status !== 'success' || o.data === null || typeof o.data !== 'object') return false;
  const d = o.data as Record<string, unknown>;
  return typeof d.resultType === 'string' && Array.isArray(d.result);
}

function isResultItem(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return o.metric !== null && typeof o.metric === 'object' && (Array.isArray(o.value) || Array.isArray(o.values));
}

/** A Prometheus HTTP API response (vector or matrix) → samples, one per point; times in seconds become ms.
 * Names are not filtered (a query result is already what was asked for); a series without __name__ (rate(), sum())
 * gets the name ''. `status: "error"` and unsupported result types come back as `error`. */
export function parsePromApiResult(doc: unknown): { samples: MetricSample[]; error: string | null } {
  let result: unknown;
  if (Array.isArray(doc)) {
    result = doc;
  } else {
    if (doc === null || typeof doc !== 'object') return { samples: [], error: 'not a Prometheus API response' };
    const o = doc as Record<string, unknown>;
    if (o.status === 'error') {
      const kind = typeof o.errorType === 'string' ? `${o.errorType}: ` : '';
      return { samples: [], error: `${kind}${typeof o.error === 'string' ? o.error : 'unknown error'}` };
    }
    const d = o.data as Record<string, unknown> | null | undefined;
    if (o.status !== 'success' || d === null || typeof d !== 'object') return { samples: [], error: 'not a Prometheus API response' };
    if (d.resultType !== 'vector' && d.resultType !== 'matrix') return { samples: [], error: `result type ${String(d.resultType)} has no series` };
    result = d.result;
  }
  if (!Array.isArray(result)) return { samples: [], error: 'data.result is not an array' };
  const samples: MetricSample[] = [];
  let bad = 0;
  for (const item of result) {
    if (!isResultItem(item)) {
      bad++;
      continue;
    }
    const { metric, value, values } = item as { metric: Record<string, unknown>; value?: unknown; values?: unknown };
    let name = '';
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(metric)) {
      if (typeof v !== 'string') continue;
      if (k === '__name__') name = v;
      else labels[k] = v;
    }
    const points = Array.isArray(values) ? values : [value];
    for (const p of points) {
      const s = pointOf(p);
      if (s === null) {
        bad++;
        continue;
      }
      // Each point gets its own label object: callers may keep samples and must not see another's edits.
      samples.push({ name, labels: points.length === 1 ? labels : { ...labels }, value: s.value, timestampMs: s.timestampMs });
    }
  }
  return { samples, error: bad > 0 && samples.length === 0 ? `${bad} malformed result item(s)` : null };
}

/** [1733140000.123, "7130"] → value and ms; null when malformed. */
function pointOf(p: unknown): { value: number; timestampMs: number } | null {
  if (!Array.isArray(p) || p.length < 2) return null;
  const ts = typeof p[0] === 'number' ? p[0] : typeof p[0] === 'string' ? Number(p[0]) : NaN;
  const value = typeof p[1] === 'string' ? parseValue(p[1]) : typeof p[1] === 'number' ? p[1] : null;
  if (!Number.isFinite(ts) || value === null) return null;
  // seconds with millisecond decimals: round away float noise (1733140000.123 * 1000 = 1733140000122.9998)
  return { value, timestampMs: Math.round(ts * 1000) };
}
