/*! etcd server log lines → EtcdEntry. Both formats (DOMAIN.md §4):
 * zap JSON ("apply request took too long", "trace[N] range", "request stats") and
 * capnslog text ("etcdserver: read-only range request "…" with result "…" took too long (X) to execute"). */

import { parseGoDurationMs, parseTimestampMs } from './time.js';

/** One slow read as one log line describes it. Several lines may describe the same read. */
export interface EtcdRangeEntry {
  kind: 'range';
  /** which line type said it: lines of different types are merged into one read */
  via: 'apply' | 'trace' | 'stats' | 'capnslog';
  tsMs: number | null;
  tookMs: number | null;
  key: string;
  rangeEnd: string | null;
  limit: number;
  countOnly: boolean;
  keysOnly: boolean;
  revision: number;
  /** keys returned (range_response_count / response_count); null when unknown */
  objects: number | null;
  /** total keys in the range (request stats "response count"), even for a limited read */
  totalKeys: number | null;
  bytes: number | null;
  error: string | null;
  /** the threshold the line states (zap's "expected-duration"), when it states one */
  expectedMs?: number | null;
}

/** A line that is recognised but carries no slow read. */
export interface EtcdOtherEntry {
  kind: 'other';
  what: string; // e.g. "slow write", "wal sync", "version"
  version?: string;
  tsMs: number | null;
  tookMs?: number | null;
  /** the threshold the line states (zap's "expected-duration"): what etcd counted as slow */
  expectedMs?: number | null;
}

export type EtcdEntry = EtcdRangeEntry | EtcdOtherEntry;

/** Reads a Go/proto quoted string starting at s[i] === '"'. Returns the value and the index after it. */
function readQuoted(s: string, i: number): { value: string; next: number } | null {
  let out = '';
  let j = i + 1;
  // Stryker disable next-line EqualityOperator: a round past the end appends to a value that is then dropped (null)
  while (j < s.length) {
    const c = s[j]!;
    if (c === '"') return { value: out, next: j + 1 };
    if (c !== '\\') {
      out += c;
      j++;
      continue;
    }
    const n = s[j + 1];
    // Stryker disable next-line ConditionalExpression: without it the loop ends at once and returns the same null
    if (n === undefined) return null;
    if (n >= '0' && n <= '7') {
      // octal escape, gogoproto text (e.g. "\000" at the end of continue keys)
      // Stryker disable next-line Regex: the slice starts with the octal digit just tested
      const oct = /^[0-7]{1,3}/.exec(s.slice(j + 1, j + 4))![0];
      out += String.fromCharCode(parseInt(oct, 8));
      j += 1 + oct.length;
      continue;
    }
    if (n === 'x') {
      out += String.fromCharCode(parseInt(s.slice(j + 2, j + 4), 16));
      j += 4;
      continue;
    }
    if (n === 'u') {
      out += String.fromCharCode(parseInt(s.slice(j + 2, j + 6), 16));
      j += 6;
      continue;
    }
    out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n;
    j += 2;
  }
  return null;
}

/** gogoproto compact text of a RangeRequest → its fields. `key:"/a" range_end:"/b" limit:500 count_only:true ` */
export function parseRangeRequestText(text: string): { key: string; rangeEnd: string | null; limit: number; countOnly: boolean; keysOnly: boolean; revision: number } | null {
  // Stryker disable next-line StringLiteral: the key is set whenever it is read; without one the answer is null
  const r = { key: '', rangeEnd: null as string | null, limit: 0, countOnly: false, keysOnly: false, revision: 0 };
  let sawKey = false;
  let i = 0;
  // Stryker disable next-line EqualityOperator: a round at the end finds no colon and stops
  while (i < text.length) {
    while (text[i] === ' ') i++;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: past the end no colon is found either
    if (i >= text.length) break;
    const colon = text.indexOf(':', i);
    if (colon < 0) break;
    const name = text.slice(i, colon);
    i = colon + 1;
    let value: string;
    if (text[i] === '"') {
      const q = readQuoted(text, i);
      if (q === null) return null;
      value = q.value;
      i = q.next;
    } else if (text[i] === '<') {
      const close = text.indexOf('>', i);
      // Stryker disable next-line EqualityOperator: '>' is searched from the '<' on, never at 0
      i = close < 0 ? text.length : close + 1;
      continue;
    } else {
      const sp = text.indexOf(' ', i);
      // Stryker disable next-line EqualityOperator: a space is searched after a colon, never at 0
      value = text.slice(i, sp < 0 ? undefined : sp);
      // Stryker disable next-line EqualityOperator: as above
      i = sp < 0 ? text.length : sp;
    }
    switch (name) {
      case 'key':
        r.key = value;
        sawKey = true;
        break;
      case 'range_end':
        r.rangeEnd = value;
        break;
      case 'limit':
        r.limit = Number(value) || 0;
        break;
      case 'count_only':
        r.countOnly = value === 'true';
        break;
      case 'keys_only':
        r.keysOnly = value === 'true';
        break;
      case 'revision':
        r.revision = Number(value) || 0;
        break;
    }
  }
  return sawKey ? r : null;
}

/** "range_response_count:7130 size:13313287" (or a txn's "responses:<range_response_count:3 > size:615"). */
export function parseRangeResponseText(text: string): { objects: number | null; bytes: number | null; error: string | null } {
  if (text.startsWith('error:')) return { objects: null, bytes: null, error: text.slice(6).trim() };
  const c = /range_response_count:(\d+)/.exec(text);
  const s = /(?:^|[\s>])size:(\d+)/.exec(text);
  return { objects: c ? Number(c[1]) : null, bytes: s ? Number(s[1]) : null, error: null };
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

const TRACE_RANGE = /^trace\[\d+\] range$/;

/** A zap JSON object from an etcd log → an entry, or null when it is not an etcd line. */
export function parseEtcdZap(o: Record<string, unknown>): EtcdEntry | null {
  const msg = o.msg;
  if (typeof msg !== 'string' || typeof o.level !== 'string' || !('ts' in o)) return null;
  const tsMs = parseTimestampMs(o.ts);
  if (msg === 'apply request took too long') {
    const prefix = typeof o.prefix === 'string' ? o.prefix : '';
    const req = typeof o.request === 'string' ? parseRangeRequestText(o.request) : null;
    const tookMs = parseGoDurationMs(o.took);
    const expectedMs = parseGoDurationMs(o['expected-duration']);
    // (the threshold only when the line states one: an entry has the fields it read, no more)
    const stated = expectedMs === null ? {} : { expectedMs };
    if (!prefix.startsWith('read-only range') || req === null) return { kind: 'other', what: 'slow write', tsMs, tookMs, ...stated };
    const resp = parseRangeResponseText(typeof o.response === 'string' ? o.response : '');
    const error = typeof o.error === 'string' ? o.error : resp.error;
    return { kind: 'range', via: 'apply', tsMs, tookMs, ...req, objects: resp.objects, totalKeys: null, bytes: resp.bytes, error, ...stated };
  }
  if (TRACE_RANGE.test(msg)) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: a detail that is no string, or any stand-in for it, holds no range_begin
    const detail = typeof o.detail === 'string' ? o.detail : '';
    const get = (k: string): string | null => {
      const m = new RegExp(`(?:\\{|; )${k}:([^;]*);`).exec(detail);
      return m ? m[1]! : null;
    };
    const key = get('range_begin');
    if (key === null) return { kind: 'other', what: 'trace', tsMs };
    const end = get('range_end');
    const count = get('response_count');
    return {
      kind: 'range',
      via: 'trace',
      tsMs,
      tookMs: parseGoDurationMs(o.duration),
      key,
      rangeEnd: end === null || end.length === 0 ? null : end,
      limit: 0,
      countOnly: false,
      keysOnly: false,
      revision: 0,
      objects: count === null ? null : Number(count),
      totalKeys: null,
      bytes: null,
      error: null,
    };
  }
  if (msg === 'request stats') {
    if (o['response type'] !== '/etcdserverpb.KV/Range') return { kind: 'other', what: 'request stats', tsMs };
    const req = typeof o['request content'] === 'string' ? parseRangeRequestText(o['request content']) : null;
    if (req === null) return { kind: 'other', what: 'request stats', tsMs };
    return {
      kind: 'range',
      via: 'stats',
      tsMs,
      tookMs: parseGoDurationMs(o['time spent']),
      ...req,
      objects: null,
      totalKeys: num(o['response count']),
      bytes: num(o['response size']),
      error: null,
    };
  }
  if (typeof o['etcd-version'] === 'string') return { kind: 'other', what: 'version', version: o['etcd-version'], tsMs };
  // Other zap lines are etcd's only when their caller is one of etcd's packages: controllers and operators log
  // the same level/ts/msg shape, and their logs must not pass for an etcd log.
  // Stryker disable next-line ConditionalExpression: a caller that is no string reads as "undefined" or a number, no etcd package
  if (typeof o.caller !== 'string' || !ETCD_CALLER.test(o.caller)) return null;
  // raft's messages name the member and the term ("e314aa37237fd5ad became leader at term 2"): one kind for all of
  // them, or each election of a long log would add kinds to the input's otherKinds
  // slow fdatasync, a late heartbeat and the like: keep how long they took and what etcd expected
  const took = parseGoDurationMs(o.took);
  const expected = parseGoDurationMs(o['expected-duration']);
  return { kind: 'other', what: o.caller.startsWith('raft/') ? 'raft' : msg.slice(0, 80), tsMs, ...(took === null ? {} : { tookMs: took }), ...(expected === null ? {} : { expectedMs: expected }) };
}

// etcd's zap callers are package/file.go:line in its own tree (3.4–3.6): embed/etcd.go:301, etcdserver/util.go:170.
const ETCD_CALLER =
  /^(?:etcdserver|etcdmain|embed|rafthttp|raft|v3rpc|v2http|v3compactor|traceutil|mvcc|backend|wal|membership|snap|auth|lease|api|etcdhttp|fileutil|osutil|schedule|txn|apply|etcdutil|verify|logutil|transport|v3election|v3lock|grpcproxy|rpctypes|cindex|version|storage|server)(?:\/[\w.-]+)*\/[\w.-]+\.go:\d+$/;

// capnslog PrettyFormatter: "2021-05-14 16:47:40.074621 W | etcdserver: message"
const CAPNSLOG = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) ([DINWEC]) \| ([\w./-]+): (.*)$/;
const CAPNS_RANGE = /^read-only range request ("(?:[^"\\]|\\.)*") (?:with result ("(?:[^"\\]|\\.)*") )?took too long [([]([^)\]]+)[)\]] to execute$/;

/** true when a text line has capnslog's "date time L | pkg: " prefix. */
export function isCapnslogLine(line: string): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: a shortcut; the pattern requires all three
  return line.length > 30 && line.charCodeAt(4) === 45 && line.charCodeAt(10) === 32 && CAPNSLOG.test(line);
}

/** A capnslog text line → an entry, or null when it is not capnslog. Times carry no zone: read as UTC. */
export function parseEtcdCapnslog(line: string): EtcdEntry | null {
  const m = CAPNSLOG.exec(line);
  if (!m) return null;
  const tsMs = parseTimestampMs(m[1]!.replace(' ', 'T') + 'Z');
  return parseEtcdMessage(m[3]!, m[4]!, tsMs);
}

/** A capnslog message without its header (package and time given): syslog and journald replace capnslog's own
 * "date time L | pkg: " with theirs, so `Aug 17 17:37:30 host etcd: read-only range request …` reaches here. */
export function parseEtcdMessage(pkg: string, msg: string, tsMs: number | null): EtcdEntry | null {
  if (pkg === 'etcdserver') {
    const r = CAPNS_RANGE.exec(msg);
    if (r) {
      // Stryker disable next-line OptionalChaining: the pattern matched a whole quoted string, which reads
      const reqText = readQuoted(r[1]!, 0)?.value ?? '';
      const req = parseRangeRequestText(reqText);
      if (req !== null) {
        // Stryker disable next-line OptionalChaining: as above
        const resp = r[2] === undefined ? { objects: null, bytes: null, error: null } : parseRangeResponseText(readQuoted(r[2], 0)?.value ?? '');
        return { kind: 'range', via: 'capnslog', tsMs, tookMs: parseGoDurationMs(r[3]), ...req, objects: resp.objects, totalKeys: null, bytes: resp.bytes, error: resp.error };
      }
    }
    if (msg.includes('took too long')) {
      // "apply entries took too long [157.2ms for 1 entries]", "… took too long (141ms) to execute": a write or a slow apply
      const t = /took too long[^\d]*(\d+(?:\.\d+)?(?:ns|µs|us|ms|s))/.exec(msg);
      return { kind: 'other', what: 'slow request', tsMs, ...(t === null ? {} : { tookMs: parseGoDurationMs(t[1]) }) };
    }
  }
  const v = /^etcd Version: (\S+)/.exec(msg);
  if (v) return { kind: 'other', what: 'version', version: v[1]!, tsMs };
  if (pkg === 'wal' && msg.startsWith('sync duration')) {
    // "sync duration of 1.2s, expected less than 1s"
    const t = /^sync duration of (\S+?),/.exec(msg);
    return { kind: 'other', what: 'wal sync', tsMs, ...(t === null ? {} : { tookMs: parseGoDurationMs(t[1]) }) };
  }
  return { kind: 'other', what: `${pkg}`, tsMs };
}
