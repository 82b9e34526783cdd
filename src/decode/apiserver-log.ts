/*! The apiserver's own log (klog, text or JSON) → what each message says: a request (httplog's "HTTP" line, a
 * timeout), a trace block's header or one of its lines, a restart marker, the apiserver's version, a cacher event.
 * Strings in, facts out, one message at a time; line-decoder.ts assembles trace blocks (trace-blocks.ts) and hands
 * requests to the aggregator as AuditEvents. The formats, by version and with sources, are in
 * docs/apiserver-log-formats.md. */

import { parseGoDurationMs } from './time.js';

/** One klog text header, `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg` (klog's formatHeader). */
export interface KlogHeader {
  severity: 'I' | 'W' | 'E' | 'F';
  /** month 1-12, day, and the time of day in ms: klog writes no year and no zone (the host's local time, UTC in
   * every apiserver image) */
  month: number;
  day: number;
  dayMs: number;
  caller: string;
  msg: string;
}

// klog's header; the thread id is padded to 7 characters, so there may be several spaces before it
const KLOG_HEADER = /^([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6})\s+\d+\s+([^\]\s]+)\] /;

/** The klog header of a line, or null. */
export function parseKlogHeader(line: string): KlogHeader | null {
  const m = KLOG_HEADER.exec(line);
  if (m === null) return null;
  const month = Number(m[2]);
  const day = Number(m[3]);
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || mi > 59 || s > 60) return null;
  return { severity: m[1] as KlogHeader['severity'], month, day, dayMs: ((h * 60 + mi) * 60 + s) * 1000 + Math.floor(Number(m[7]) / 1000), caller: m[8]!, msg: line.slice(m[0].length) };
}

/** A klog time (no year) as epoch ms: in `year` when given, else the latest year that does not put it more than
 * a day after `nowMs` (as a syslog date is read). */
export function klogTimeMs(h: Pick<KlogHeader, 'month' | 'day' | 'dayMs'>, nowMs: number, year: number | null): number {
  const at = (y: number): number => Date.UTC(y, h.month - 1, h.day) + h.dayMs;
  if (year !== null) return at(year);
  const y = new Date(nowMs).getUTCFullYear();
  return at(y) > nowMs + 86_400_000 ? at(y - 1) : at(y);
}

/** A structured klog message: its text and key/value pairs (klog's text form: `"msg" k1="v" k2=3 k3=<\n\t…\n >`). */
export interface KlogMessage {
  text: string;
  kv: Map<string, string>;
  /** a value written over several lines (`key=<` at the end of the line): its key, its lines follow */
  openKey: string | null;
}

// The next backslash at or after a position of the message being read, kept between its values: one search a
// message, not one a value to its end (a 5 MB statusStack line has many values)
let bsOf = '';
let bsFrom = 0;
let bsAt = -1;
function nextBackslash(s: string, from: number): number {
  if (s !== bsOf || from < bsFrom || (bsAt >= 0 && bsAt < from)) {
    bsOf = s;
    bsFrom = from;
    bsAt = s.indexOf('\\', from);
  }
  return bsAt;
}

/** Reads a Go-quoted string (strconv.Quote, as klog writes string values) at `i` (at its opening quote); returns
 * the value and the index after the closing quote, or null when the line ends first. */
function readQuoted(s: string, i: number): [string, number] | null {
  // most values hold no escape: one slice up to the closing quote
  const q = s.indexOf('"', i + 1);
  if (q < 0) return null;
  const b = nextBackslash(s, i + 1);
  if (b < 0 || b > q) return [s.slice(i + 1, q), q + 1];
  let out = '';
  let j = i + 1;
  let from = j;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 34 /* " */) return [out + s.slice(from, j), j + 1];
    if (c === 92 /* \ */) {
      out += s.slice(from, j);
      const e = s[j + 1];
      if (e === undefined) return null;
      if (e === 'n') out += '\n';
      else if (e === 't') out += '\t';
      else if (e === 'r') out += '\r';
      else if (e === 'x' || e === 'u' || e === 'U') {
        const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = s.slice(j + 2, j + 2 + n);
        const cp = /^[0-9a-fA-F]+$/.test(hex) ? parseInt(hex, 16) : NaN;
        out += Number.isFinite(cp) && cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
        j += n;
      } else out += e; // \" \\ and anything else: the character itself
      j += 2;
      from = j;
      continue;
    }
    j++;
  }
  return null;
}

/** Parses a structured klog message (InfoS/ErrorS in text form). A message that is not structured comes back as
 * its whole text with no pairs. */
export function parseKlogMessage(msg: string): KlogMessage {
  const kv = new Map<string, string>();
  let i = 0;
  let text = msg;
  if (msg.charCodeAt(0) === 34) {
    const q = readQuoted(msg, 0);
    if (q === null) return { text: msg, kv, openKey: null };
    text = q[0];
    i = q[1];
  } else return { text: msg, kv, openKey: null };
  let openKey: string | null = null;
  while (i < msg.length) {
    if (msg.charCodeAt(i) !== 32) break;
    i++;
    const eq = msg.indexOf('=', i);
    if (eq < 0) break;
    const key = msg.slice(i, eq);
    if (key.length === 0 || key.indexOf(' ') >= 0) break;
    i = eq + 1;
    if (msg.charCodeAt(i) === 34) {
      const q = readQuoted(msg, i);
      if (q === null) {
        kv.set(key, msg.slice(i + 1));
        i = msg.length;
        break;
      }
      kv.set(key, q[0]);
      i = q[1];
    } else if (msg.charCodeAt(i) === 60 /* < */ && i === msg.length - 1) {
      openKey = key; // `key=<`: the value's lines follow, each after a tab, then " >"
      i = msg.length;
    } else {
      const sp = msg.indexOf(' ', i);
      const end = sp < 0 ? msg.length : sp;
      kv.set(key, msg.slice(i, end));
      i = end;
    }
  }
  return { text, kv, openKey };
}

/** What httplog and the timeout handler say of one request. `verb` is the Kubernetes verb (list, get, watch,
 * create…), worked out from the method and the URI as RequestInfo does where the log gives the HTTP method. */
export interface LogRequest {
  verb: string;
  uri: string;
  userAgent: string;
  auditID: string;
  srcIP: string;
  code: number | null;
  latencyMs: number | null;
  apfPriorityLevel: string;
  apfFlowSchema: string;
  /** APF's seats and queue wait where httplog has them */
  apfSeats: number | null;
  apfQueueWaitMs: number | null;
  /** the request was hijacked (an upgrade: exec, attach, port-forward) */
  hijacked: boolean;
}

/** The Kubernetes verb of a request from httplog's verb (a canonical verb from 1.22: LIST, WATCH, APPLY…; the raw
 * HTTP method before) and its URI. */
export function kubeVerbOf(logVerb: string, uri: string): string {
  const v = logVerb.toUpperCase();
  const q = uri.indexOf('?');
  const path = q < 0 ? uri : uri.slice(0, q);
  const query = q < 0 ? '' : uri.slice(q + 1);
  const watch = /(?:^|&)watch=(?:true|1)(?:&|$)/i.test(query) || /^\/apis?\/(?:[^/]+\/){0,2}watch\//.test(path);
  switch (v) {
    case 'GET':
    case 'LIST':
    case 'WATCH':
    case 'WATCHLIST':
      if (watch || v === 'WATCH' || v === 'WATCHLIST') return 'watch';
      return isCollectionPath(path) ? 'list' : 'get';
    case 'POST':
    case 'CREATE':
      return 'create';
    case 'PUT':
    case 'UPDATE':
      return 'update';
    case 'PATCH':
    case 'APPLY':
      return 'patch';
    case 'DELETE':
      return isCollectionPath(path) ? 'deletecollection' : 'delete';
    case 'DELETECOLLECTION':
      return 'deletecollection';
    case 'CONNECT':
      return 'connect';
    default:
      return v.toLowerCase();
  }
}

/** Whether an API path names a collection (list) rather than one object (RequestInfo's rule: an odd number of
 * parts after the group version, counting namespaces/NS as a pair). Non-resource paths are not collections. */
function isCollectionPath(path: string): boolean {
  // the path's parts, empty ones left out, counted without splitting it (every list and get the JavaScript path
  // reads asks this)
  let n = 0; // parts seen
  let i = 0; // the parts after the group version begin at this part
  let rest = 0;
  let firstRest = -1;
  let firstRestEnd = -1;
  let watch = false;
  for (let p = 0; p < path.length; ) {
    if (path.charCodeAt(p) === 47 /* / */) {
      p++;
      continue;
    }
    let e = path.indexOf('/', p);
    if (e < 0) e = path.length;
    if (n === 0) {
      if (e - p === 3 && path.startsWith('api', p)) i = 2;
      else if (e - p === 4 && path.startsWith('apis', p)) i = 3;
      else return false;
    } else if (n === i && !watch && e - p === 5 && path.startsWith('watch', p)) {
      watch = true; // (one `watch` part at most: /api/v1/watch/watch is a collection named watch)
      i++;
    } else if (n >= i) {
      if (rest === 0) {
        firstRest = p;
        firstRestEnd = e;
      }
      rest++;
    }
    n++;
    p = e;
  }
  if (rest === 0) return false;
  if (firstRestEnd - firstRest === 10 && path.startsWith('namespaces', firstRest)) {
    if (rest === 1) return true; // /api/v1/namespaces
    if (rest === 2) return false; // a namespace
    return rest === 3; // /namespaces/NS/pods
  }
  return rest === 1;
}

const num = (s: string | undefined): number | null => {
  if (s === undefined || s.length === 0) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
};

/** The "HTTP" line of httplog (1.19 on), from its key/value pairs; null when it lacks a verb or a URI. (1.18's
 * line has the same pairs without the "HTTP" message, its user agent as `UserAgent`: requestOf118.) */
export function requestOfHttplog(kv: Map<string, string>): LogRequest | null {
  const verb = kv.get('verb');
  const uri = kv.get('URI');
  if (verb === undefined || uri === undefined) return null;
  const resp = kv.get('resp');
  return {
    verb: kubeVerbOf(verb, uri),
    uri,
    userAgent: kv.get('userAgent') ?? kv.get('UserAgent') ?? '',
    auditID: kv.get('audit-ID') ?? kv.get('auditID') ?? '',
    srcIP: hostOf(kv.get('srcIP') ?? ''),
    code: num(resp),
    latencyMs: parseGoDurationMs(kv.get('latency')),
    apfPriorityLevel: kv.get('apf_pl') ?? '',
    apfFlowSchema: kv.get('apf_fs') ?? '',
    apfSeats: num(kv.get('apf_iseats')),
    apfQueueWaitMs: parseGoDurationMs(kv.get('apf_init_latency')),
    hijacked: kv.get('hijacked') === 'true',
  };
}

// httplog before 1.19 (unstructured): `GET /api/v1/pods?limit=500: (1.234ms) 200 [kubectl/v1.18.0 (linux/amd64)
// kubernetes/abc 10.0.0.1:54321]`; the status may be followed by a stack and added info before the bracket
const LEGACY_HTTP = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT) (\/\S*): \(([^)]+)\) (\d{3}|hijacked)(?:.*?)? \[(.*) (\S+)\]$/s;
const LEGACY_HTTP_HEAD = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT) (\/\S*): \(([^)]+)\) (\d{3})$/;

/** httplog's line in 1.18: `verb="GET" URI="/…" latency=12.3ms resp=200 UserAgent="…" srcIP="…": ` (no message;
 * after the colon, a stack and added info, or `hijacked`); null when it is not one. */
export function requestOf118(msg: string): LogRequest | null {
  if (!msg.startsWith('verb="')) return null;
  const { kv } = parseKlogMessage('"" ' + msg);
  const r = requestOfHttplog(kv);
  if (r === null) return null;
  if (/": hijacked$/.test(msg)) {
    r.hijacked = true;
    r.code = null;
  }
  return r;
}

/** An unstructured httplog line (before 1.18), or null. */
export function requestOfLegacyHttplog(msg: string): LogRequest | null {
  // a 5xx's record goes on with its stack on the next lines, the `[agent addr]` after it: the first line ends at the
  // status, and the client is unknown
  const m = LEGACY_HTTP.exec(msg) ?? LEGACY_HTTP_HEAD.exec(msg);
  if (m === null) return null;
  return {
    verb: kubeVerbOf(m[1]!, m[2]!),
    uri: m[2]!,
    userAgent: m[5] ?? '',
    auditID: '',
    srcIP: m[6] === undefined ? '' : hostOf(m[6]),
    code: m[4] === 'hijacked' ? null : Number(m[4]),
    latencyMs: parseGoDurationMs(m[3]),
    apfPriorityLevel: '',
    apfFlowSchema: '',
    apfSeats: null,
    apfQueueWaitMs: null,
    hijacked: m[4] === 'hijacked',
  };
}

/** An address without its port: "10.0.0.5:43210" → "10.0.0.5", "[fd00::1]:443" → "fd00::1". */
export function hostOf(addr: string): string {
  if (addr.startsWith('[')) {
    const e = addr.indexOf(']');
    return e < 0 ? addr : addr.slice(1, e);
  }
  const c = addr.lastIndexOf(':');
  return c > 0 && addr.indexOf(':') === c ? addr.slice(0, c) : addr;
}

/** What a trace block's header line says (utils/trace: `Trace[id]: "Name" k:v,k:v (date) (total time: 1.2s):`). */
export interface TraceHeader {
  id: string;
  name: string;
  fields: Map<string, string>;
  /** the trace's start, from its own date (which has a year), and its total time */
  startMs: number | null;
  totalMs: number | null;
  /** the form before 1.19 (`(started: …)`), whose END line is written only past a threshold: a block of it that
   * ends without one is not cut */
  legacy?: boolean;
}

/** The id and the rest of a `Trace[id]: …` line (`Trace[123]: rest`, the space optional), or null. Every line the
 * engine declines is asked, so it is read by hand, not by a regular expression. */
export function traceLineOf(msg: string): { id: string; rest: string } | null {
  if (!msg.startsWith('Trace[')) return null;
  let j = 6;
  while (j < msg.length && isDigit(msg.charCodeAt(j))) j++;
  if (j === 6 || msg.charCodeAt(j) !== 93 /* ] */ || msg.charCodeAt(j + 1) !== 58 /* : */) return null;
  const from = msg.charCodeAt(j + 2) === 32 ? j + 3 : j + 2;
  return { id: msg.slice(6, j), rest: msg.slice(from) };
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A trace header's rest (after `Trace[id]: `), or null when it is not one: the name, the fields, the start and
 * the total time. Forms: `"List" url:/api/v1/pods,user-agent:… (05-Jun-2024 10:00:00.897) (total time: 337ms):`
 * (1.20 on); `"List /api/v1/pods" (started: 2020-06-05 10:00:00.123 +0000 UTC m=+1.2) (total time: 1.2s):` (1.18). */
export function parseTraceHeader(id: string, rest: string): TraceHeader | null {
  if (rest.charCodeAt(0) !== 34) return null;
  const tt = rest.lastIndexOf(' (total time: ');
  if (tt < 0) return null;
  const totalEnd = rest.indexOf(')', tt);
  const totalMs = parseGoDurationMs(rest.slice(tt + 14, totalEnd < 0 ? undefined : totalEnd));
  const q = readQuoted(rest, 0);
  if (q === null) return null;
  let name = q[0];
  let body = rest.slice(q[1], tt);
  let startMs: number | null = null;
  // the start: "(05-Jun-2024 10:00:00.897)" or "(started: 2020-06-05 10:00:00.123456 +0000 UTC m=+1.2)"
  const open = body.lastIndexOf(' (');
  if (open >= 0 && body.endsWith(')')) {
    const d = body.slice(open + 2, -1);
    startMs = traceDateMs(d);
    if (startMs !== null || d.startsWith('started: ')) body = body.slice(0, open);
  }
  const fields = parseTraceFields(body.trim());
  // the old form names the URL in the name: "List /api/v1/pods"
  const sp = name.indexOf(' /');
  if (sp > 0 && !fields.has('url')) {
    fields.set('url', name.slice(sp + 1));
    name = name.slice(0, sp);
  }
  return { id, name, fields, startMs, totalMs, legacy: rest.includes(' (started: ') };
}

/** A trace header that a pager or a paste cut before its end (`…,user-agent:k3s/v1.25.13+k3s1 (linux/amd64) kubernet>`):
 * its name and the fields before the cut one; no start or total time. Only for a line trace.go wrote. */
export function parseCutTraceHeader(id: string, rest: string): TraceHeader | null {
  if (rest.charCodeAt(0) !== 34) return null;
  const q = readQuoted(rest, 0);
  if (q === null || q[0].length === 0) return null;
  const body = rest.slice(q[1]).trim();
  const cut = body.lastIndexOf(',');
  const fields = parseTraceFields(cut < 0 ? '' : body.slice(0, cut));
  let name = q[0];
  const sp = name.indexOf(' /');
  if (sp > 0 && !fields.has('url')) {
    fields.set('url', name.slice(sp + 1));
    name = name.slice(0, sp);
  }
  return { id, name, fields, startMs: null, totalMs: null, legacy: false };
}

/** "05-Jun-2024 10:00:00.897" or "started: 2020-06-05 10:00:00.123456 +0000 UTC m=+1.2" → epoch ms (UTC). */
function traceDateMs(d: string): number | null {
  let m = /^(\d\d)-([A-Z][a-z]{2})-(\d{4}) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$/.exec(d);
  if (m !== null) {
    const mon = MONTHS.indexOf(m[2]!);
    if (mon < 0) return null;
    return Date.UTC(Number(m[3]), mon, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])) + fracMs(m[7]);
  }
  m = /^started: (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))? ([+-])(\d\d)(\d\d)/.exec(d);
  if (m !== null) {
    const off = (Number(m[9]) * 60 + Number(m[10])) * 60_000 * (m[8] === '-' ? -1 : 1);
    return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fracMs(m[7]) - off;
  }
  return null;
}

const fracMs = (f: string | undefined): number => (f === undefined ? 0 : Math.floor(Number(f.padEnd(3, '0').slice(0, 3))));

/** A trace's fields, `k:v,k:v`: a comma starts a new field only when a key and a colon follow it (an accept
 * header holds ", "; a user agent may hold commas). */
export function parseTraceFields(s: string): Map<string, string> {
  // what /(?:^|,)([a-zA-Z][\w-]*):/g finds, by hand (a header has ten fields and a block a header and two steps)
  const out = new Map<string, string>();
  let key = '';
  let from = -1; // where the open field's value begins
  let i = 0; // where the next key may begin
  const first = traceKeyEnd(s, 0);
  if (first > 0) {
    key = s.slice(0, first);
    from = i = first + 1;
  }
  for (;;) {
    const c = s.indexOf(',', i);
    if (c < 0) break;
    const e = traceKeyEnd(s, c + 1);
    if (e < 0) {
      i = c + 1;
      continue;
    }
    if (from >= 0 && !out.has(key)) out.set(key, s.slice(from, c));
    key = s.slice(c + 1, e);
    from = i = e + 1;
  }
  if (from >= 0 && !out.has(key)) out.set(key, s.slice(from));
  return out;
}

/** Where the colon after a trace field's key at `p` is (a letter, then letters, digits, `_` or `-`), or -1. */
function traceKeyEnd(s: string, p: number): number {
  const c0 = s.charCodeAt(p) | 32;
  if (!(c0 >= 97 && c0 <= 122)) return -1;
  let j = p + 1;
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 58 /* : */) return j;
    const l = c | 32;
    if (!((l >= 97 && l <= 122) || isDigit(c) || c === 95 /* _ */ || c === 45 /* - */)) return -1;
  }
  return -1;
}

/** What one line inside a trace block says, for the request: the count a step gives, and whether a storage
 * trace shows the list read etcd (with its key, resourceVersion and limit). */
export interface TraceStep {
  /** "Writing http response done" count:N (1.19-1.35): the items returned */
  returned?: number;
  /** 1.36's cacher steps: "Listed items from cache" count:N, "Filtered items" count:N */
  cacheListed?: number;
  cacheFiltered?: number;
  /** a nested `"List(recursive=true) etcd3"` / `"List etcd3"` / `"Get etcd3"` trace: the list went to etcd */
  etcd?: { key: string; resourceVersion: string; resourceVersionMatch: string; limit: number; continue: boolean };
  /** the END line */
  end?: boolean;
}

/** Reads one line of a trace block (after `Trace[id]: `). */
export function parseTraceStep(rest: string): TraceStep {
  const s = rest.trimStart();
  if (s.endsWith('] END') && /^\[[^\]]*\] \[[^\]]*\] END$/.test(s)) return { end: true };
  const out: TraceStep = {};
  const count = s.includes('count:') ? /count:(\d+)/.exec(s) : null;
  if (count !== null) {
    const n = Number(count[1]);
    if (s.includes('"Writing http response done"')) out.returned = n;
    else if (s.includes('"Listed items from cache"')) out.cacheListed = n;
    else if (s.includes('"Filtered items"')) out.cacheFiltered = n;
  }
  const etcd = !s.includes(' etcd3"') ? null : /"(?:List(?:\(recursive=(?:true|false)\))? etcd3|Get etcd3|GetList etcd3)" ?(.*)$/.exec(s);
  if (etcd !== null) {
    const f = parseTraceFields(etcd[1]!.replace(/ \d[\w.µ]*s \([^)]*\)\]?$|\]$/, ''));
    const key = f.get('key');
    if (key !== undefined) out.etcd = { key, resourceVersion: f.get('resourceVersion') ?? '', resourceVersionMatch: f.get('resourceVersionMatch') ?? '', limit: Number(f.get('limit') ?? 0) || 0, continue: (f.get('continue') ?? '').length > 0 };
  }
  return out;
}

/** A trace's verb, from its name and fields: "List" → list; 1.26+ name the verb; "Get"/"Create"/"Update"/"Patch"/
 * "Delete" as such. */
export function traceVerbOf(h: TraceHeader): string | null {
  const v = h.fields.get('verb');
  const url = h.fields.get('url') ?? '';
  if (v !== undefined && v.length > 0) return kubeVerbOf(v, url);
  const n = h.name.toLowerCase();
  if (n === 'list' || n === 'get' || n === 'create' || n === 'update' || n === 'patch' || n === 'delete' || n === 'watch' || n === 'deletecollection') return n;
  if (n === 'apply') return 'patch';
  return null;
}

/** The kinds of apiserver message audit-scan reads beyond requests and traces. */
export type ApiserverNote =
  /** a restart: the secure port served, the version printed at start, the flag dump (one flag a line: its name
   * without the dashes, its value unquoted) */
  | { kind: 'start'; what: string; version?: string; flag?: { name: string; value: string } }
  /** a request that timed out or was aborted (timeout.go / panic.go), with what the line names */
  | { kind: 'timeout'; req: LogRequest }
  /** the cacher of a resource stopped all its watchers, or closed a slow one, or its ListAndWatch failed */
  | { kind: 'cacher'; what: string; resource: string | null }
  /** anything else the apiserver writes: recognised, not an event */
  | { kind: 'other'; what: string };

/** Reads an apiserver message that is neither httplog's nor a trace's. `kv` holds its structured pairs. */
export function noteOf(text: string, kv: Map<string, string>, caller: string): ApiserverNote {
  if (text.startsWith('Serving securely on ') || text === 'Serving securely on') return { kind: 'start', what: 'serving securely' };
  if (text.startsWith('Version: v') || text === 'Version info' || (text === 'Version' && kv.has('version'))) {
    const v = text.startsWith('Version: ') ? text.slice(9).trim() : kv.get('version') ?? kv.get('gitVersion') ?? '';
    return { kind: 'start', what: 'version', version: v };
  }
  if (text.startsWith('FLAG: --')) {
    const flag = flagOf(text);
    return flag === null ? { kind: 'start', what: 'flag' } : { kind: 'start', what: 'flag', flag };
  }
  if (/^timeout or abort while handling/i.test(text)) {
    // three forms: `timeout or abort while handling: method=GET URI="/…" audit-ID="…"` (unstructured, 1.19-1.22),
    // `"Timeout or abort while handling" method="GET" URI="/…" auditID="…"` (structured), and the oldest
    // `timeout or abort while handling: GET "/…"`
    const method = kv.get('method') ?? /method=(\w+)/.exec(text)?.[1] ?? /handling: (\w+) "/.exec(text)?.[1] ?? 'GET';
    const uri = kv.get('URI') ?? /URI="([^"]*)"/.exec(text)?.[1] ?? /handling: \w+ "([^"]*)"/.exec(text)?.[1] ?? '';
    const id = kv.get('auditID') ?? kv.get('audit-ID') ?? /audit-?ID="([^"]*)"/.exec(text)?.[1] ?? '';
    if (uri.length === 0) return { kind: 'other', what: 'apiserver timeout' };
    return { kind: 'timeout', req: { verb: kubeVerbOf(method, uri), uri, userAgent: '', auditID: id, srcIP: '', code: 504, latencyMs: null, apfPriorityLevel: '', apfFlowSchema: '', apfSeats: null, apfQueueWaitMs: null, hijacked: false } };
  }
  if (text.startsWith('Terminating all watchers from cacher')) return { kind: 'cacher', what: 'watchers terminated', resource: resourceOfCacher(text + ' ' + (kv.get('resource') ?? '')) };
  if (/^Forcing .*watcher close due to unresponsiveness/.test(text)) return { kind: 'cacher', what: 'slow watcher closed', resource: resourceOfCacher(text) };
  if (/^cacher \(.*\): unexpected ListAndWatch error/.test(text) || (text.startsWith('cacher') && text.includes('ListAndWatch'))) return { kind: 'cacher', what: 'ListAndWatch error', resource: resourceOfCacher(text) };
  if (/post-timeout activity/i.test(text)) return { kind: 'other', what: 'apiserver post-timeout activity' };
  if (/Handler timeout/.test(text) || /http: Handler timeout/.test(kv.get('err') ?? '')) return { kind: 'other', what: 'apiserver handler timeout' };
  if (/^caches? populated/i.test(text) || text === 'Caches populated') return { kind: 'other', what: 'apiserver caches populated' };
  return { kind: 'other', what: 'klog' };
}

/** A line of the flag dump, `FLAG: --goaway-chance="0.001"` (PrintFlags: `FLAG: --%s=%q`), as its name and its
 * value, or null when it is not one. A value that is not quoted is taken as written. */
export function flagOf(text: string): { name: string; value: string } | null {
  if (!text.startsWith('FLAG: --')) return null;
  const eq = text.indexOf('=', 8);
  if (eq <= 8) return null;
  const name = text.slice(8, eq);
  if (!/^[A-Za-z0-9][\w.-]*$/.test(name)) return null;
  if (text.charCodeAt(eq + 1) !== 34) return { name, value: text.slice(eq + 1) };
  const q = readQuoted(text, eq + 1);
  return q === null ? null : { name, value: q[0] };
}

/** The file of a klog caller ("httplog.go:134" → "httplog.go"). */
export function callerFile(caller: string): string {
  const c = caller.lastIndexOf(':');
  const f = c < 0 ? caller : caller.slice(0, c);
  const slash = f.lastIndexOf('/');
  return slash < 0 ? f : f.slice(slash + 1);
}

/** The resource a cacher's line names: "cacher (pods): …", "… from cacher *core.Pod", "resource=pods". */
function resourceOfCacher(text: string): string | null {
  const m = /cacher \(([^)]+)\)/.exec(text) ?? /from cacher \*?([\w.]+)/.exec(text);
  if (m === null) return null;
  const r = m[1]!;
  // "*core.Pod" → pods, "pods" stays; a group's resource ("deployments.apps") keeps its name
  const dot = r.lastIndexOf('.');
  return dot >= 0 && /^[A-Z]/.test(r.slice(dot + 1)) ? r.slice(dot + 1).toLowerCase() + 's' : r;
}

/** A klog JSON record (--logging-format=json): {ts (seconds), caller, msg, v?, …pairs}; null when it is not one. */
export interface KlogJson {
  tsMs: number | null;
  caller: string;
  msg: string;
  kv: Map<string, string>;
}

/** Whether a parsed JSON object is a klog JSON record (component-base/logs/json: "ts" a number of seconds,
 * "caller", "msg"; etcd's zap lines have a string "ts" and a "level"). */
export function klogJsonOf(o: Record<string, unknown>): KlogJson | null {
  if (typeof o.ts !== 'number' || typeof o.msg !== 'string' || (typeof o.caller !== 'string' && o.v === undefined)) return null;
  const kv = new Map<string, string>();
  for (const [k, v] of Object.entries(o)) {
    if (k === 'ts' || k === 'caller' || k === 'msg' || k === 'v') continue;
    kv.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return { tsMs: o.ts > 1e12 ? o.ts : Math.round(o.ts * 1000), caller: typeof o.caller === 'string' ? o.caller : '', msg: o.msg, kv };
}
