// etcd log lines with every field asserted (toEqual): the gogoproto request text, the response text, each zap
// message kind and what makes a zap line etcd's, and capnslog lines in every form DOMAIN.md §4 shows.
import { describe, expect, it } from 'vitest';
import { isCapnslogLine, parseEtcdCapnslog, parseEtcdMessage, parseEtcdZap, parseRangeRequestText, parseRangeResponseText, type EtcdEntry } from '../../src/decode/etcd-line.js';

const T = Date.UTC(2026, 10, 30, 12, 0, 1, 131);
const req = (f: Partial<ReturnType<typeof parseRangeRequestText> & object> = {}) => ({ key: '/registry/pods/', rangeEnd: '/registry/pods0', limit: 0, countOnly: false, keysOnly: false, revision: 0, ...f });

describe('parseRangeRequestText: every field', () => {
  it.each<[string, ReturnType<typeof parseRangeRequestText>]>([
    ['key:"/registry/pods/" range_end:"/registry/pods0" ', req()],
    ['key:"/registry/pods/" range_end:"/registry/pods0" limit:500 revision:7 count_only:true keys_only:true ', req({ limit: 500, revision: 7, countOnly: true, keysOnly: true })],
    ['key:"/registry/pods/" count_only:false keys_only:false limit:abc revision:x ', req({ rangeEnd: null })],
    ['  key:"/a"   range_end:"/b"', req({ key: '/a', rangeEnd: '/b' })],
    // escapes: octal, hex, \u, and the rest as themselves
    ['key:"/r/p/n\\000" range_end:"\\x41\\u0042\\"\\\\\\n\\t\\r\\q" ', req({ key: '/r/p/n\u0000', rangeEnd: 'AB"\\\n\t\rq' })],
    ['key:"/r/\\1\\12\\123x" ', req({ key: '/r/\u0001\u000aSx', rangeEnd: null })],
    // a nested message is skipped, a value without quotes ends at a space
    ['key:"/a" range_end:<x:1 > limit:5 ', req({ key: '/a', rangeEnd: null, limit: 5 })],
    ['key:"/a" sort_order:ASCEND sort_target:MOD ', req({ key: '/a', rangeEnd: null })],
    ['key:"/a" limit:9', req({ key: '/a', rangeEnd: null, limit: 9 })],
    ['key:"/a" range_end:<unclosed', req({ key: '/a', rangeEnd: null })],
  ])('%j', (text, want) => {
    expect(parseRangeRequestText(text)).toEqual(want);
  });
  it.each(['range_end:"/b" ', '', 'key', 'key:"/unterminated ', 'key:"/a\\'])('no key, or a cut quote: null (%j)', (text) => {
    expect(parseRangeRequestText(text)).toBeNull();
  });
});

describe('parseRangeResponseText', () => {
  it.each<[string, ReturnType<typeof parseRangeResponseText>]>([
    ['range_response_count:7130 size:13313287', { objects: 7130, bytes: 13313287, error: null }],
    ['size:5', { objects: null, bytes: 5, error: null }],
    ['responses:<range_response_count:3 > size:615', { objects: 3, bytes: 615, error: null }],
    ['responses:<response_range:<range_response_count:3 > > size:615', { objects: 3, bytes: 615, error: null }],
    ['range_response_count:2 total_size:9', { objects: 2, bytes: null, error: null }],
    ['', { objects: null, bytes: null, error: null }],
    ['error: context deadline exceeded ', { objects: null, bytes: null, error: 'context deadline exceeded' }],
  ])('%j', (text, want) => {
    expect(parseRangeResponseText(text)).toEqual(want);
  });
});

const zap = (o: Record<string, unknown>) => parseEtcdZap({ level: 'warn', ts: '2026-11-30T12:00:01.131Z', caller: 'etcdserver/util.go:170', ...o });

describe('parseEtcdZap: every kind', () => {
  it.each<[string, Record<string, unknown>, EtcdEntry | null]>([
    [
      'apply, a range',
      { msg: 'apply request took too long', took: '130.5ms', prefix: 'read-only range ', request: 'key:"/registry/pods/" range_end:"/registry/pods0" limit:500 ', response: 'range_response_count:500 size:9' },
      { kind: 'range', via: 'apply', tsMs: T, tookMs: 130.5, ...req({ limit: 500 }), objects: 500, totalKeys: null, bytes: 9, error: null },
    ],
    [
      'apply, an error beside the response',
      { msg: 'apply request took too long', took: '3s', prefix: 'read-only range ', request: 'key:"/a" ', response: 'range_response_count:1 size:2', error: 'context deadline exceeded' },
      { kind: 'range', via: 'apply', tsMs: T, tookMs: 3000, ...req({ key: '/a', rangeEnd: null }), objects: 1, totalKeys: null, bytes: 2, error: 'context deadline exceeded' },
    ],
    ['apply, no response field', { msg: 'apply request took too long', took: '1s', prefix: 'read-only range ', request: 'key:"/a" ' }, { kind: 'range', via: 'apply', tsMs: T, tookMs: 1000, ...req({ key: '/a', rangeEnd: null }), objects: null, totalKeys: null, bytes: null, error: null }],
    ['apply, a write', { msg: 'apply request took too long', took: '200ms', prefix: '', request: 'header:<ID:1 > put:<key:"/a" >' }, { kind: 'other', what: 'slow write', tsMs: T, tookMs: 200 }],
    ['apply, a range whose request does not parse', { msg: 'apply request took too long', took: '2ms', prefix: 'read-only range ', request: 'nothing' }, { kind: 'other', what: 'slow write', tsMs: T, tookMs: 2 }],
    ['apply, a request that is not a string', { msg: 'apply request took too long', prefix: 'read-only range ', request: 5 }, { kind: 'other', what: 'slow write', tsMs: T, tookMs: null }],
    [
      'trace',
      { level: 'info', caller: 'traceutil/trace.go:171', msg: 'trace[1729] range', detail: '{range_begin:/registry/leases; range_end:/registry/leaset; response_count:0; response_revision:9; }', duration: '112.5ms' },
      { kind: 'range', via: 'trace', tsMs: T, tookMs: 112.5, key: '/registry/leases', rangeEnd: '/registry/leaset', limit: 0, countOnly: false, keysOnly: false, revision: 0, objects: 0, totalKeys: null, bytes: null, error: null },
    ],
    [
      'trace, an empty range_end and no count',
      { msg: 'trace[1] range', detail: '{range_begin:/registry/health; range_end:; response_revision:9; }', duration: 'x' },
      { kind: 'range', via: 'trace', tsMs: T, tookMs: null, key: '/registry/health', rangeEnd: null, limit: 0, countOnly: false, keysOnly: false, revision: 0, objects: null, totalKeys: null, bytes: null, error: null },
    ],
    ['trace of something else', { msg: 'trace[1] range', detail: '{readIndex:1; }' }, { kind: 'other', what: 'trace', tsMs: T }],
    ['trace without a detail', { msg: 'trace[1] range' }, { kind: 'other', what: 'trace', tsMs: T }],
    ['a trace of another operation is another message', { msg: 'trace[1] put', detail: '{range_begin:/a; }' }, { kind: 'other', what: 'trace[1] put', tsMs: T }],
    [
      'request stats, a range',
      { caller: 'v3rpc/interceptor.go:197', msg: 'request stats', 'time spent': '3.5s', 'response type': '/etcdserverpb.KV/Range', 'response count': 42, 'response size': 1000, 'request content': 'key:"/registry/pods/" range_end:"/registry/pods0" limit:500 ' },
      { kind: 'range', via: 'stats', tsMs: T, tookMs: 3500, ...req({ limit: 500 }), objects: null, totalKeys: 42, bytes: 1000, error: null },
    ],
    [
      'request stats, counts that are not numbers',
      { msg: 'request stats', 'response type': '/etcdserverpb.KV/Range', 'response count': '42', 'response size': null, 'request content': 'key:"/a" ' },
      { kind: 'range', via: 'stats', tsMs: T, tookMs: null, ...req({ key: '/a', rangeEnd: null }), objects: null, totalKeys: null, bytes: null, error: null },
    ],
    ['request stats of a put', { msg: 'request stats', 'response type': '/etcdserverpb.KV/Put' }, { kind: 'other', what: 'request stats', tsMs: T }],
    ['request stats without content', { msg: 'request stats', 'response type': '/etcdserverpb.KV/Range', 'request content': 7 }, { kind: 'other', what: 'request stats', tsMs: T }],
    ['the start-up line', { level: 'info', caller: 'embed/etcd.go:308', msg: 'starting an etcd server', 'etcd-version': '3.5.9' }, { kind: 'other', what: 'version', version: '3.5.9', tsMs: T }],
    ['another etcd message, cut to 80', { caller: 'wal/wal.go:805', msg: 'x'.repeat(100) }, { kind: 'other', what: 'x'.repeat(80), tsMs: T }],
    ['a nested etcd package', { caller: 'etcdserver/api/v3rpc/quota.go:95', msg: 'quota' }, { kind: 'other', what: 'quota', tsMs: T }],
    ['a server/ path (3.6)', { caller: 'server/etcdserver/util.go:170', msg: 'x' }, { kind: 'other', what: 'x', tsMs: T }],
    // not etcd's: another component's zap line, or no caller
    ['a controller', { caller: 'controller/controller.go:12', msg: 'reconciling' }, null],
    ['a caller with no line number', { caller: 'etcdserver/util.go', msg: 'x' }, null],
    ['no caller', { caller: undefined, msg: 'x' }, null],
  ])('%s', (_n, o, want) => {
    expect(zap(o)).toEqual(want);
  });
  it('needs level, ts and a string msg', () => {
    expect(parseEtcdZap({ ts: 'x', msg: 'starting', 'etcd-version': '3.5.9' })).toBeNull();
    expect(parseEtcdZap({ level: 'info', msg: 'starting', 'etcd-version': '3.5.9' })).toBeNull();
    expect(parseEtcdZap({ level: 'info', ts: 'x', msg: 5, 'etcd-version': '3.5.9' })).toBeNull();
    expect(parseEtcdZap({ level: 5, ts: 'x', msg: 'm', 'etcd-version': '3.5.9' })).toBeNull();
    // a ts that does not parse still makes the line etcd's, without a time
    expect(parseEtcdZap({ level: 'info', ts: 'soon', msg: 'starting', 'etcd-version': '3.5.9' })).toEqual({ kind: 'other', what: 'version', version: '3.5.9', tsMs: null });
  });
});

describe('capnslog', () => {
  const R = 'read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" " with result "range_response_count:7130 size:13313287" took too long (130.77ms) to execute';
  it.each<[string, boolean]>([
    [`2026-11-30 12:00:01.131000 W | etcdserver: ${R}`, true],
    ['2026-11-30 12:00:01 W | wal: sync duration of 2s, expected less than 1s', true],
    ['2026-11-30 12:00:01 X | wal: sync duration', false],
    ['2026-11-30T12:00:01 W | wal: x y z zz z z z z z z z', false],
    ['2026-11-30 12:00:01 W wal: x y z z z z z z z z z', false],
    ['short', false],
    ['2026/11/30 12:00:01 W | wal: x y z z z z z z z z z', false],
  ])('isCapnslogLine(%j) = %s', (line, want) => {
    expect(isCapnslogLine(line)).toBe(want);
  });
  it.each<[string, EtcdEntry | null]>([
    [`2026-11-30 12:00:01.131000 W | etcdserver: ${R}`, { kind: 'range', via: 'capnslog', tsMs: T, tookMs: 130.77, ...req(), objects: 7130, totalKeys: null, bytes: 13313287, error: null }],
    // etcd 3.3 wrote the time in brackets; no result part
    ['2026-11-30 12:00:01.131000 W | etcdserver: read-only range request "key:\\"/a\\" " took too long [2.5s] to execute', { kind: 'range', via: 'capnslog', tsMs: T, tookMs: 2500, ...req({ key: '/a', rangeEnd: null }), objects: null, totalKeys: null, bytes: null, error: null }],
    ['2026-11-30 12:00:01.131000 W | etcdserver: read-only range request "key:\\"/a\\" " with result "error:etcdserver: request timed out" took too long (7s) to execute', { kind: 'range', via: 'capnslog', tsMs: T, tookMs: 7000, ...req({ key: '/a', rangeEnd: null }), objects: null, totalKeys: null, bytes: null, error: 'etcdserver: request timed out' }],
    ['2026-11-30 12:00:01.131000 W | etcdserver: read-only range request "nothing here" took too long (1s) to execute', { kind: 'other', what: 'slow request', tsMs: T, tookMs: 1000 }],
    ['2026-11-30 12:00:01.131000 W | etcdserver: apply entries took too long [1s for 1 entries]', { kind: 'other', what: 'slow request', tsMs: T, tookMs: 1000 }],
    ['2026-11-30 12:00:01.131000 I | etcdserver: published {Name:m1}', { kind: 'other', what: 'etcdserver', tsMs: T }],
    ['2026-11-30 12:00:01.131000 I | etcdmain: etcd Version: 3.4.13', { kind: 'other', what: 'version', version: '3.4.13', tsMs: T }],
    ['2026-11-30 12:00:01.131000 W | wal: sync duration of 2.0s, expected less than 1s', { kind: 'other', what: 'wal sync', tsMs: T, tookMs: 2000 }],
    ['2026-11-30 12:00:01.131000 W | wal: other', { kind: 'other', what: 'wal', tsMs: T }],
    ['2026-11-30 12:00:01.131000 W | rafthttp: took too long', { kind: 'other', what: 'rafthttp', tsMs: T }],
    ['not capnslog at all, but long enough to be tried', null],
  ])('%j', (line, want) => {
    expect(parseEtcdCapnslog(line)).toEqual(want);
  });
  it('parseEtcdMessage: a message without its header takes the time it is given', () => {
    expect(parseEtcdMessage('etcdserver', R.replace('130.77ms', '1s'), 5)).toMatchObject({ kind: 'range', tsMs: 5, tookMs: 1000 });
    expect(parseEtcdMessage('etcdmain', 'etcd Version: 3.4.13', null)).toEqual({ kind: 'other', what: 'version', version: '3.4.13', tsMs: null });
  });
});
