// A reference oracle for the figures of a report that can be stated exactly (issue 26). Deliberately simple and
// slow: it reads plain audit.k8s.io/v1 Event lines with JSON.parse, one line at a time, and counts. It imports
// nothing from src/: every rule below is written from the semantics (the Kubernetes audit Event, RequestInfo,
// Go's url.Values, docs/json-output.md and "Groups" in docs/how-it-decides.md), and each comment names the place in src where the CLI
// implements it (paths under src/ as of 6d1fa0b, after the layers restructure; look a function up by its name).
//
// What it computes over one or more inputs (files) read together:
//   per input   lines, auditEvents, blankLines, duplicateEvents         → report.inputs[i]
//   totals      requests, tokenRequests, listRequests, getRequests, watchRequests, listWithoutResourceVersion
//                                                                      → report.totals
//   user agents requests per user agent, all verbs                      → report.topUserAgents (with --top large)
//   groups      each list or get group (verb, user agent, user pattern, apiGroup, resource, scope, selector shape)
//               with requests, watchLists, withoutResourceVersion, namespace, namespaces, codes
//                                                                      → report.listGroups, report.getGroups
//               and the same summed over the selector shapes ("coarse" groups)
//
// Where it stops:
// - An input is "plain" when every line is blank, a JSON object read as it is (no wrapper, no batch), or text that
//   carries no event. Anything else (a wrapper, a prefix, a batch array, a JSON document, CSV, a gzip stream that
//   does not inflate whole) makes readInputs answer { applies: false, reason }: the test then only compares the
//   engines and thread counts with each other on that input.
// - Inputs read together must not share an auditID (readInputs throws): the CLI's rules across inputs (copies,
//   a request split over two files) are outside the oracle, and with disjoint IDs the figures of inputs read
//   together are the sums of their figures read alone.
// - Inside a plain input, a read whose selector shape the oracle cannot state (a selector outside the small
//   grammar below, a selector whose %-escape is not UTF-8) is counted in its coarse group only; a read whose resource
//   or verb it cannot state (an odd path without objectRef, a query key that does not decode) is counted in
//   `uncertainReads` only, and the test then compares groups within bounds.

import { gunzipSync } from 'node:zlib';

/** One input for the oracle. */
export interface OracleFile {
  name: string;
  bytes: Buffer;
}

/** What the oracle says about one input (report.inputs[i]). */
export interface OracleInput {
  name: string;
  lines: number;
  auditEvents: number;
  blankLines: number;
  duplicateEvents: number;
}

/** One list or get group, with the report's field names. */
export interface OracleGroup {
  verb: 'list' | 'get';
  userAgent: string;
  username: string;
  apiGroup: string;
  resource: string;
  /** null = cluster-wide, a name when the group saw one namespace, "*" when several (docs/json-output.md) */
  namespace: string | null;
  namespaces: number;
  selector: string;
  requests: number;
  watchLists: number;
  /** null when some read's query could not say */
  withoutResourceVersion: number | null;
  codes: Record<string, number>;
}

/** A group summed over its selector shapes: what is known of reads whose shape is not. */
export interface OracleCoarseGroup {
  verb: 'list' | 'get';
  userAgent: string;
  username: string;
  apiGroup: string;
  resource: string;
  cluster: boolean;
  requests: number;
  /** withoutResourceVersion over the group; null when some read's query could not say */
  withoutResourceVersion: number | null;
  /** reads of the group whose selector shape the oracle cannot state: 0 = its groups are all in `groups` */
  shapeUnknown: number;
}

export interface OracleReport {
  applies: true;
  inputs: OracleInput[];
  requests: number;
  tokenRequests: number;
  /** reads (list, get, watch of a resource), by the report's verb; reads in uncertainReads are in none */
  listRequests: number;
  getRequests: number;
  watchRequests: number;
  /** null when some list's query could not say */
  listWithoutResourceVersion: number | null;
  /** reads whose resource or verb the oracle cannot state; 0 for most inputs */
  uncertainReads: number;
  /** user agent (or NO_UA + username) → requests */
  userAgents: Map<string, number>;
  /** the list and get groups of the reads whose shape is known */
  groups: OracleGroup[];
  coarse: OracleCoarseGroup[];
}

export type OracleAnswer = OracleReport | { applies: false; reason: string };

// ---------------------------------------------------------------------------------------------------------------
// Lines

/** Splits decoded text into physical lines: on "\n"; a last line without its newline is a line too. */
function physicalLines(text: string): string[] {
  if (text.length === 0) return [];
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

// The fields of an audit.k8s.io/v1 Event (k8s.io/apiserver/pkg/apis/audit/v1/types.go), with v1beta1's legacy
// `timestamp` and `metadata`. An object whose keys are all among them and that does not look like an event is
// no wrapper either: it is a bad line, never an event.
const EVENT_FIELDS = new Set([
  'kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'impersonatedUser', 'sourceIPs',
  'userAgent', 'objectRef', 'responseStatus', 'requestObject', 'responseObject', 'requestReceivedTimestamp',
  'stageTimestamp', 'annotations', 'timestamp', 'metadata',
]);

// Keys by which the CLI takes a JSON object for something else than one plain event before it asks whether it is
// an event (a batch: items, records, logEvents; AKS: properties; GKE: protoPayload; a Prometheus result: status;
// Fluent Bit's merged record: kubernetes; shippers: log, message). CLI: decode/line-decoder.ts addJsonValue. An
// input with any of them is not plain: the oracle does not apply.
const WRAPPER_KEYS = ['items', 'records', 'logEvents', 'properties', 'protoPayload', 'Entry', 'status', 'kubernetes', 'log', 'message'];

/** The CLI's own marker (decode/cloud-events.ts QUERY_UNKNOWN) on an event rebuilt without its query string (GKE):
 * the query then counts as unknown, so the read is not in withoutResourceVersion. A top-level key of that name in
 * a line is read the same way (test/generated-logs.ts escapeLines writes it). */
const QUERY_UNKNOWN_KEY = '__queryUnknown';

/** An event reduced to what the oracle's figures need. */
interface Ev {
  /** null: no auditID (absent, not a string, or empty), so a request of its own */
  id: string | null;
  terminal: boolean;
  verb: string;
  requestURI: string;
  username: string;
  userAgent: string;
  resource: string;
  apiGroup: string;
  namespace: string;
  subresource: string;
  code: number | null;
  queryKnown: boolean;
}

const STAGES = new Set(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

type LineResult = { kind: 'blank' } | { kind: 'event'; ev: Ev } | { kind: 'not-event' } | { kind: 'not-plain'; why: string };

/**
 * One physical line.
 * - NUL characters are removed first (a crashed writer's preallocated blocks; CLI: decode/line-decoder.ts
 *   addLine), then one leading U+FEFF (a byte order mark; CLI: decode/line-kind.ts classifyLine).
 * - Blank: nothing but whitespace (String.prototype.trim). CLI: classifyLine 'blank'.
 * - JSON is read only when the line's first character is "{" (CLI: classifyLine's first test). Whitespace before
 *   the "{" is not a prefix the CLI strips: an indented JSON line is no event (classifyLine gives 'unknown' for
 *   spaces, 'go-panic' for a tab). Text before "{" that is not whitespace may be a prefix (syslog, journald,
 *   kubectl, a hostname): not plain. A line without "{" carries no event (garbage, klog).
 * - "[" opens a batch array: not plain.
 * - A parsed value that is not an object is no event; an object with a wrapper key is not plain.
 * - An object is an event when it looks like one (kind "Event", or an auditID or requestURI key, or both stage
 *   and verb; CLI: decode/audit-event.ts looksLikeAuditEvent) and passes the checks of the Event type (below).
 */
function readLine(raw: string): LineResult {
  let s = raw.indexOf('\u0000') >= 0 ? raw.replace(/\u0000/g, '') : raw;
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  if (s.charCodeAt(0) !== 123 /* { */) {
    if (s.trim().length === 0) return { kind: 'blank' };
    if (s.charCodeAt(0) === 91 /* [ */) return { kind: 'not-plain', why: 'a line opens with "[" (a batch?)' };
    const brace = s.indexOf('{');
    if (brace < 0) return { kind: 'not-event' };
    if (s.slice(0, brace).trim().length === 0) return { kind: 'not-event' }; // indented JSON
    return { kind: 'not-plain', why: `text before "{" (a prefix?): ${JSON.stringify(s.slice(0, 40))}` };
  }
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch {
    return { kind: 'not-event' }; // garbage after the value, a cut line, raw control characters in a string
  }
  if (Array.isArray(v)) return { kind: 'not-plain', why: 'a JSON array' };
  if (!isObj(v)) return { kind: 'not-event' };
  for (const k of WRAPPER_KEYS) if (k in v) return { kind: 'not-plain', why: `a JSON object with "${k}"` };
  const looksLikeEvent = v.kind === 'Event' || 'auditID' in v || 'requestURI' in v || ('stage' in v && 'verb' in v);
  if (!looksLikeEvent) {
    for (const k of Object.keys(v)) if (!EVENT_FIELDS.has(k)) return { kind: 'not-plain', why: `a JSON object that is no event, with "${k}"` };
    return { kind: 'not-event' };
  }
  const ev = toEvent(v);
  return ev === null ? { kind: 'not-event' } : { kind: 'event', ev };
}

/**
 * The checks an Event must pass, from its type (CLI: decode/audit-event.ts normalizeAuditEvent): apiVersion absent
 * or audit.k8s.io/v1, v1beta1 or v1alpha1; kind absent or "Event"; stage one of the four stages; verb and
 * requestURI strings; user absent or an object; objectRef absent, null or an object. Every other field is read
 * leniently: a string field of another type reads as "", responseStatus.code counts only as a finite number.
 */
function toEvent(o: Record<string, unknown>): Ev | null {
  const av = o.apiVersion;
  if (av !== undefined && av !== 'audit.k8s.io/v1' && av !== 'audit.k8s.io/v1beta1' && av !== 'audit.k8s.io/v1alpha1') return null;
  if (o.kind !== undefined && o.kind !== 'Event') return null;
  if (typeof o.stage !== 'string' || !STAGES.has(o.stage)) return null;
  if (typeof o.verb !== 'string' || typeof o.requestURI !== 'string') return null;
  if (o.user !== undefined && !isObj(o.user)) return null;
  if (o.objectRef !== undefined && o.objectRef !== null && !isObj(o.objectRef)) return null;
  const user = (o.user ?? {}) as Record<string, unknown>;
  const ref = (o.objectRef ?? {}) as Record<string, unknown>;
  let code: number | null = null;
  if (o.responseStatus !== null && typeof o.responseStatus === 'object') {
    const c = (o.responseStatus as Record<string, unknown>).code;
    if (typeof c === 'number' && Number.isFinite(c)) code = c;
  }
  return {
    id: typeof o.auditID === 'string' && o.auditID.length > 0 ? o.auditID : null,
    terminal: o.stage === 'ResponseComplete' || o.stage === 'Panic',
    verb: o.verb,
    requestURI: o.requestURI,
    username: str(user.username),
    userAgent: str(o.userAgent),
    resource: str(ref.resource),
    apiGroup: str(ref.apiGroup),
    namespace: str(ref.namespace),
    subresource: str(ref.subresource),
    code,
    queryKnown: o[QUERY_UNKNOWN_KEY] !== true,
  };
}

/** Why an input is not plain at the level of the whole file, or null. */
function wholeFileGuard(text: string): string | null {
  // A JSON document (pretty-printed): the first line opens JSON and stops at "{", "[", "," or ":" (CLI: scan/scan.ts
  // sniffDocumentMode reads such a file as one document, not line by line).
  const m = /^\ufeff?[ \t\r\n]*([{[][^\n]*)/.exec(text);
  if (m !== null) {
    const first = m[1]!.trim();
    let parses = true;
    try {
      JSON.parse(first);
    } catch {
      parses = false;
    }
    if (!parses && /[{[,:]$/.test(first)) return 'a JSON document (its first line opens JSON and does not close it)';
  }
  // A CloudWatch Logs Insights CSV export (CLI: segment/source.ts sniffCsv): its header names @message.
  const nl = text.indexOf('\n');
  if ((nl < 0 ? text : text.slice(0, nl)).includes('@message')) return 'a CSV export';
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Requests: one per auditID

/**
 * The requests of one input, in the order they become final, with the event whose fields count for each. Rules
 * (CLI: aggregate/scan-state.ts addAuditEvent, reconcile, finishPending; aggregate/dedup.ts admit, holdOpen):
 * 1. A final stage (ResponseComplete or Panic) counts the request with that event's fields, the first time its
 *    auditID shows a final stage. A later final line of the same auditID is a copy: skipped, and counted in
 *    inputs[].duplicateEvents.
 * 2. An earlier stage (RequestReceived, ResponseStarted) is held; a later earlier stage of the same auditID replaces
 *    it. A final stage drops what is held for its auditID. An earlier stage logged after the final one is ignored
 *    (not a duplicate).
 * 3. At the end, every request still held counts once, with the fields of its latest held event (a cut log, a
 *    long watch).
 * 4. An event without an auditID (absent, not a string, or "") is a request of its own, whatever its stage.
 * The CLI's bounds (65,536 remembered final IDs per segment, 250,000 held requests) are far above the inputs here.
 */
function requestsOf(events: Ev[]): { requests: Ev[]; duplicates: number } {
  const final = new Set<string>();
  const held = new Map<string, Ev>();
  const requests: Ev[] = [];
  let duplicates = 0;
  for (const e of events) {
    if (e.id === null) {
      requests.push(e);
      continue;
    }
    if (e.terminal) {
      if (final.has(e.id)) {
        duplicates++;
        continue;
      }
      final.add(e.id);
      held.delete(e.id);
      requests.push(e);
    } else if (!final.has(e.id)) {
      held.delete(e.id);
      held.set(e.id, e);
    }
  }
  for (const e of held.values()) requests.push(e);
  return { requests, duplicates };
}

// ---------------------------------------------------------------------------------------------------------------
// Requests → groups

/** An answer the oracle cannot state exactly. */
const UNKNOWN = Symbol('unknown');
type Maybe<T> = T | typeof UNKNOWN;

/**
 * The query as Go's url.Values reads it (net/url ParseQuery, what the apiserver's req.URL.Query() gives): pairs
 * split on "&", key and value split at the first "=", each QueryUnescape'd ("+" is a space, %XX a byte); Get gives
 * the first value. A "#" is an ordinary character there (a request line carries no fragment: ParseRequestURI keeps
 * it in RawQuery). Where the oracle stops: a key whose escape does not decode to UTF-8 text could be any parameter
 * (`anyKey`); a value that does not (Go drops the pair, the CLI keeps what it can: decode/request-uri.ts
 * decodeQueryComponent) makes its key UNKNOWN; a ";" in a pair (Go 1.17+ refuses the pair) the same.
 * CLI: decode/request-uri.ts parseListQuery.
 */
function queryOf(uri: string): { get: (k: string) => Maybe<string | undefined> } {
  const q = uri.indexOf('?');
  const first = new Map<string, Maybe<string>>();
  let anyKey = false;
  const dec = (s: string): Maybe<string> => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return UNKNOWN;
    }
  };
  for (const pair of q < 0 ? [] : uri.slice(q + 1).split('&')) {
    if (pair.length === 0) continue;
    const eq = pair.indexOf('=');
    const key = dec(eq < 0 ? pair : pair.slice(0, eq));
    if (key === UNKNOWN) {
      anyKey = true;
      continue;
    }
    const value = pair.includes(';') ? UNKNOWN : dec(eq < 0 ? '' : pair.slice(eq + 1));
    if (value === UNKNOWN) first.set(key, UNKNOWN);
    else if (!first.has(key)) first.set(key, value);
  }
  return { get: (k) => (anyKey ? UNKNOWN : first.get(k)) };
}

/** apimachinery's Convert_Slice_string_To_bool: false when absent, for "0" and for "false" in any case; else true. */
const boolParam = (v: string | undefined): boolean => v !== undefined && v !== '0' && v.toLowerCase() !== 'false';

const NO_PATH = { resource: '', apiGroup: '', namespace: '', subresource: '' };

/**
 * The path of a request without objectRef.resource, as k8s.io/apiserver RequestInfoFactory reads it: /api/{v} or
 * /apis/{group}/{v}, an optional watch/ verb prefix, then [namespaces/{ns}/]{resource}[/{name}[/{subresource}]];
 * anything else is no resource request. CLI: decode/request-uri.ts parsePath. UNKNOWN for: a %-escape (the apiserver
 * splits the decoded path, so %2F is a "/"; the CLI splits first, then decodes), an empty segment inside the path
 * (RequestInfo keeps it, the CLI drops it), the namespace object itself (RequestInfo gives it a namespace, the CLI
 * none), proxy/ (RequestInfo reads no subresource after it), the "core/" form (the CLI's, for a cloud export).
 */
function pathOf(uri: string): Maybe<typeof NO_PATH> {
  const q = uri.indexOf('?');
  const path = q < 0 ? uri : uri.slice(0, q);
  if (path.includes('%')) return UNKNOWN;
  const trimmed = path.replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed.length === 0) return NO_PATH;
  const parts = trimmed.split('/');
  if (parts.includes('')) return UNKNOWN;
  if (parts.length < 3) return NO_PATH;
  let rest: string[];
  let apiGroup = '';
  if (parts[0] === 'api') rest = parts.slice(2);
  else if (parts[0] === 'apis') {
    if (parts.length < 4) return NO_PATH;
    apiGroup = parts[1]!;
    rest = parts.slice(3);
  } else if (parts[0] === 'core') return UNKNOWN;
  else return NO_PATH;
  if (rest[0] === 'proxy') return UNKNOWN;
  if (rest[0] === 'watch') {
    rest = rest.slice(1);
    if (rest.length === 0) return NO_PATH;
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    if (rest.length === 2 || rest[2] === 'status' || rest[2] === 'finalize') return UNKNOWN;
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  return { resource: rest[0]!, apiGroup, namespace, subresource: rest[2] ?? '' };
}

// The selector shape, for a small grammar only (docs/how-it-decides.md "Groups": per-instance values become placeholders, so one
// DaemonSet on 64 nodes is one group). Field terms: key=value, key==value, key!=value; label terms the same, and
// key in (a,b), key notin (a,b); keys and values of [A-Za-z0-9._/-]. Keys are limited to those whose rule is
// certain: the per-instance ones (a placeholder) and a few that name no instance (null). Anything else is UNKNOWN
// (e.g. a field selector without an operator, which the apiserver refuses). CLI: model/selector.ts describeSelectors.
const FIELD_KEYS: Record<string, string | null> = { 'spec.nodeName': '<node>', 'metadata.name': '<name>', 'metadata.namespace': '<namespace>', 'status.phase': null };
const LABEL_KEYS: Record<string, string | null> = { 'kubernetes.io/hostname': '<node>', app: null, tier: null, component: null };
const PLAIN = /^[A-Za-z0-9._/-]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One term → its shape: "k=v" with a per-instance value replaced by its placeholder when the operator is = or ==
 * (an empty value stays: `spec.nodeName=` means unscheduled), "k!=v" as written; "k in (a, b)" with the blanks in
 * its set removed. */
function termShape(t: string, keys: Record<string, string | null>, sets: boolean): Maybe<string> {
  const set = sets ? /^([A-Za-z0-9._/-]+)\s+(in|notin)\s+\(([^()]*)\)$/.exec(t) : null;
  if (set !== null) return set[1]! in keys ? `${set[1]} ${set[2]} (${set[3]!.replace(/\s+/g, '')})` : UNKNOWN;
  const m = /^([^=!]+?)\s*(==|!=|=)\s*([^=!]*?)$/.exec(t);
  if (m === null) return UNKNOWN;
  const [, key, op, value] = m as unknown as [string, string, string, string];
  if (!PLAIN.test(key) || !PLAIN.test(value) || !Object.hasOwn(keys, key) || UUID.test(value)) return UNKNOWN;
  const ph = keys[key];
  return `${key}${op === '!=' ? '!=' : '='}${op !== '!=' && value.length > 0 && ph !== null && ph !== undefined ? ph : value}`;
}

/** Terms: split on commas outside parentheses, trimmed, empty ones dropped. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth = Math.max(0, depth - 1);
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((t) => t.trim()).filter((t) => t.length > 0);
}

/** The shape of a (fieldSelector, labelSelector) pair: "" for none (absent or blank is none); field terms sorted
 * and joined by ","; label terms the same, inside labels(…); the two joined by a space. */
function selectorShape(field: Maybe<string | undefined>, label: Maybe<string | undefined>): Maybe<string> {
  if (field === UNKNOWN || label === UNKNOWN) return UNKNOWN;
  const parts: string[] = [];
  for (const [sel, keys, sets] of [[field, FIELD_KEYS, false], [label, LABEL_KEYS, true]] as const) {
    if (sel === undefined || sel.trim().length === 0) continue;
    const terms = splitTerms(sel).map((t) => termShape(t, keys, sets));
    if (terms.includes(UNKNOWN)) return UNKNOWN;
    const joined = (terms as string[]).sort().join(',');
    parts.push(sets ? `labels(${joined})` : joined);
  }
  return parts.join(' ');
}

/** A user with the per-node identity taken out: every kubelet is one user (docs/how-it-decides.md "Groups"). */
const userPattern = (u: string): string => (u.startsWith('system:node:') ? 'system:node:<node>' : u);

/** responseStatus.code → its class in a group's codes{}: none, 429, 2xx, 4xx, 5xx, else the number itself. */
function codeClass(c: number | null): string {
  if (c === null) return 'none';
  if (c === 429) return '429';
  if (c >= 200 && c < 300) return '2xx';
  if (c >= 400 && c < 500) return '4xx';
  if (c >= 500) return '5xx';
  return String(c);
}

/** What the report shows for a request with no user agent (docs/json-output.md, topUserAgents): this + username. */
export const NO_UA = '(no user agent) ';

interface Read {
  verb: 'list' | 'get' | 'watch';
  watchList: boolean;
  userAgent: string;
  username: string;
  apiGroup: string;
  resource: string;
  namespace: string;
  shape: Maybe<string>;
  withoutRv: Maybe<boolean>;
  code: number | null;
}

/**
 * Where one request goes (CLI: aggregate/request-counts.ts count, countRead; aggregate/read-groups.ts
 * ReadGroups.add, isWatchList):
 * - Only list, get and watch of a resource are reads; the other verbs count in totals.requests and the user agents.
 * - The resource is objectRef's (resource, apiGroup, namespace) when objectRef names a resource, and then a
 *   subresource in objectRef makes it no read. Without objectRef.resource the path gives them (pathOf), and a
 *   subresource in objectRef or in the path makes it no read.
 * - A watch with sendInitialEvents=true is a watch-list: a list (counted in watchLists too), unless the server
 *   refused it (code 400 or 422: its WatchList gate is off).
 * - The group is (verb, user agent, user pattern, apiGroup, resource, scope: namespaced when a namespace is named,
 *   selector shape).
 * - withoutResourceVersion: resourceVersion absent or empty and no continue token (a continue page carries its
 *   revision in the token); not counted for a read whose query is unknown to the CLI (QUERY_UNKNOWN_KEY).
 * Returns null for no read, UNKNOWN when the oracle cannot state the read's resource or verb.
 */
function readOf(e: Ev): Read | null | typeof UNKNOWN {
  if (e.verb !== 'list' && e.verb !== 'get' && e.verb !== 'watch') return null;
  let where: { resource: string; apiGroup: string; namespace: string };
  if (e.resource.length > 0) {
    if (e.subresource.length > 0) return null;
    where = e;
  } else {
    const p = pathOf(e.requestURI);
    if (p === UNKNOWN) return UNKNOWN;
    if (p.resource.length === 0 || e.subresource.length > 0 || p.subresource.length > 0) return null;
    where = p;
  }
  const q = queryOf(e.requestURI);
  if (q.get('shardSelector') !== undefined) return UNKNOWN; // 1.36 sharded reads: outside the oracle
  let watchList = false;
  if (e.verb === 'watch') {
    const sie = q.get('sendInitialEvents');
    if (sie === UNKNOWN) return UNKNOWN;
    watchList = boolParam(sie) && e.code !== 400 && e.code !== 422;
  }
  const rv = q.get('resourceVersion');
  const cont = q.get('continue');
  return {
    verb: watchList ? 'list' : e.verb,
    watchList,
    userAgent: e.userAgent,
    username: userPattern(e.username),
    apiGroup: where.apiGroup,
    resource: where.resource,
    namespace: where.namespace,
    shape: selectorShape(q.get('fieldSelector'), q.get('labelSelector')),
    withoutRv: !e.queryKnown ? false : rv === UNKNOWN || cont === UNKNOWN ? UNKNOWN : (rv ?? '') === '' && (cont ?? '') === '',
    code: e.code,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The whole answer

/** Decodes an input: gunzip when it starts with the gzip magic (every member), then UTF-8 with U+FFFD for invalid
 * bytes (the WHATWG decoder, as Buffer.toString; a "\n" is never inside a character, so decoding the whole input or
 * line by line is the same). A gzip stream that does not inflate whole is not plain (the CLI keeps what inflated
 * before the error). */
function decode(f: OracleFile): string | { reason: string } {
  let b = f.bytes;
  if (b[0] === 0x1f && b[1] === 0x8b) {
    try {
      b = gunzipSync(b);
    } catch (err) {
      return { reason: `gzip does not inflate whole (${(err as Error).message})` };
    }
  }
  return b.toString('utf8');
}

/** The oracle's answer for these inputs read together (in one CLI call). */
export function readInputs(files: OracleFile[]): OracleAnswer {
  const inputs: OracleInput[] = [];
  const all: Ev[] = [];
  const owner = new Map<string, number>();
  for (const [i, f] of files.entries()) {
    const text = decode(f);
    if (typeof text !== 'string') return { applies: false, reason: `${f.name}: ${text.reason}` };
    const guard = wholeFileGuard(text);
    if (guard !== null) return { applies: false, reason: `${f.name}: ${guard}` };
    const lines = physicalLines(text);
    const events: Ev[] = [];
    let blank = 0;
    for (const l of lines) {
      const r = readLine(l);
      if (r.kind === 'not-plain') return { applies: false, reason: `${f.name}: ${r.why}` };
      if (r.kind === 'blank') blank++;
      else if (r.kind === 'event') {
        events.push(r.ev);
        if (r.ev.id !== null) {
          const o = owner.get(r.ev.id);
          if (o !== undefined && o !== i) throw new Error(`oracle: ${files[o]!.name} and ${f.name} share auditID ${r.ev.id}: read them apart`);
          owner.set(r.ev.id, i);
        }
      }
    }
    const { requests, duplicates } = requestsOf(events);
    inputs.push({ name: f.name, lines: lines.length, auditEvents: events.length, blankLines: blank, duplicateEvents: duplicates });
    all.push(...requests);
  }

  const out: OracleReport = { applies: true, inputs, requests: all.length, tokenRequests: 0, listRequests: 0, getRequests: 0, watchRequests: 0, listWithoutResourceVersion: 0, uncertainReads: 0, userAgents: new Map(), groups: [], coarse: [] };
  const groups = new Map<string, OracleGroup & { nsSet: Set<string> }>();
  const coarse = new Map<string, OracleCoarseGroup>();
  for (const e of all) {
    // Every request counts for its user agent, or for its user when it has no user agent; one with neither, for
    // none (CLI: countRequest).
    if (e.userAgent.length > 0 || e.username.length > 0) {
      const ua = e.userAgent.length > 0 ? e.userAgent : NO_UA + e.username;
      out.userAgents.set(ua, (out.userAgents.get(ua) ?? 0) + 1);
    }
    // A TokenRequest: a create of serviceaccounts/token, as objectRef names it (CLI: countRequest).
    if (e.verb === 'create' && e.resource === 'serviceaccounts' && e.subresource === 'token') out.tokenRequests++;
    const r = readOf(e);
    if (r === null) continue;
    if (r === UNKNOWN) {
      out.uncertainReads++;
      continue;
    }
    if (r.verb === 'watch') {
      out.watchRequests++; // the report lists no watch groups: only their sum
      continue;
    }
    if (r.verb === 'list') {
      out.listRequests++;
      if (out.listWithoutResourceVersion !== null) out.listWithoutResourceVersion = r.withoutRv === UNKNOWN ? null : out.listWithoutResourceVersion + (r.withoutRv ? 1 : 0);
    } else out.getRequests++;
    const cluster = r.namespace.length === 0;
    const ck = JSON.stringify([r.verb, r.userAgent, r.username, r.apiGroup, r.resource, cluster]);
    let c = coarse.get(ck);
    if (c === undefined) coarse.set(ck, (c = { verb: r.verb, userAgent: r.userAgent, username: r.username, apiGroup: r.apiGroup, resource: r.resource, cluster, requests: 0, withoutResourceVersion: 0, shapeUnknown: 0 }));
    c.requests++;
    if (c.withoutResourceVersion !== null) c.withoutResourceVersion = r.withoutRv === UNKNOWN ? null : c.withoutResourceVersion + (r.withoutRv ? 1 : 0);
    if (r.shape === UNKNOWN) {
      c.shapeUnknown++;
      continue;
    }
    const k = JSON.stringify([ck, r.shape]);
    let g = groups.get(k);
    if (g === undefined) groups.set(k, (g = { verb: r.verb, userAgent: r.userAgent, username: r.username, apiGroup: r.apiGroup, resource: r.resource, namespace: null, namespaces: 0, selector: r.shape, requests: 0, watchLists: 0, withoutResourceVersion: 0, codes: {}, nsSet: new Set() }));
    g.requests++;
    if (r.watchList) g.watchLists++;
    if (g.withoutResourceVersion !== null) g.withoutResourceVersion = r.withoutRv === UNKNOWN ? null : g.withoutResourceVersion + (r.withoutRv ? 1 : 0);
    if (!cluster) g.nsSet.add(r.namespace);
    const cc = codeClass(r.code);
    g.codes[cc] = (g.codes[cc] ?? 0) + 1;
  }
  for (const { nsSet, ...g } of groups.values()) out.groups.push({ ...g, namespaces: nsSet.size, namespace: nsSet.size === 0 ? null : nsSet.size === 1 ? [...nsSet][0]! : '*' });
  out.coarse = [...coarse.values()];
  return out;
}
