import { describe, expect, it } from 'vitest';
import { isCapnslogLine, parseEtcdCapnslog, parseEtcdZap, parseRangeRequestText, parseRangeResponseText } from '../../src/decode/etcd-line.js';
import { parseGoDurationMs, parseTimestampMs } from '../../src/decode/time.js';

describe('parseGoDurationMs', () => {
  it.each([
    ['130.768157ms', 130.768157],
    ['2.885457332s', 2885.457332],
    ['97.966µs', 0.097966],
    ['850μs', 0.85],
    ['1m0.000097438s', 60000.097438],
    ['1h2m', 3720000],
    ['0s', 0],
    ['abc', null],
    ['12', null],
  ])('%s → %s', (s, ms) => {
    const v = parseGoDurationMs(s);
    if (ms === null) expect(v).toBeNull();
    else expect(v).toBeCloseTo(ms, 6);
  });
});

describe('parseTimestampMs', () => {
  it('reads zap offsets without a colon', () => {
    expect(parseTimestampMs('2024-04-22T17:18:03.213763+0800')).toBe(Date.UTC(2024, 3, 22, 9, 18, 3, 213));
  });
  it('reads RFC 3339 with microseconds', () => {
    expect(parseTimestampMs('2026-11-30T10:00:01.037000Z')).toBe(Date.UTC(2026, 10, 30, 10, 0, 1, 37));
  });
});

describe('parseRangeRequestText', () => {
  it.each([
    ['key:"/registry/pods/" range_end:"/registry/pods0" ', { key: '/registry/pods/', rangeEnd: '/registry/pods0', limit: 0, countOnly: false }],
    ['key:"/registry/pods/" range_end:"/registry/pods0" count_only:true ', { countOnly: true }],
    ['key:"/registry/pods/" range_end:"/registry/pods0" limit:500 revision:123 ', { limit: 500, revision: 123 }],
    ['key:"/registry/pods/ns/p\\000" range_end:"/registry/pods0" limit:500 ', { key: '/registry/pods/ns/p\u0000' }],
    ['key:"/registry/health" ', { key: '/registry/health', rangeEnd: null }],
    ['key:"/cs/leader" range_end:"/cs/leades" sort_order:ASCEND sort_target:MOD ', { key: '/cs/leader' }],
  ])('%s', (text, want) => {
    expect(parseRangeRequestText(text)).toMatchObject(want);
  });
});

describe('parseEtcdZap', () => {
  it('reads "apply request took too long" for a range', () => {
    const e = parseEtcdZap(JSON.parse('{"level":"warn","ts":"2020-06-30T01:17:40.463Z","caller":"etcdserver/util.go:170","msg":"apply request took too long","took":"130.768157ms","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" ","response":"range_response_count:7130 size:13313287"}'));
    expect(e).toMatchObject({ kind: 'range', via: 'apply', key: '/registry/pods/', rangeEnd: '/registry/pods0', objects: 7130, bytes: 13313287 });
    expect((e as { tookMs: number }).tookMs).toBeCloseTo(130.768157, 6);
  });
  it('reads an error result', () => {
    const e = parseEtcdZap(JSON.parse('{"level":"warn","ts":"2024-04-22T17:18:03.213763+0800","caller":"etcdserver/util.go:170","msg":"apply request took too long","took":"3.000607371s","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"/cs/leader\\" range_end:\\"/cs/leades\\" sort_order:ASCEND sort_target:MOD ","response":"","error":"context deadline exceeded"}'));
    expect(e).toMatchObject({ kind: 'range', objects: null, error: 'context deadline exceeded' });
  });
  it('reads a trace[N] range line', () => {
    const e = parseEtcdZap(JSON.parse('{"level":"info","ts":"2022-12-23T05:46:45.510Z","caller":"traceutil/trace.go:171","msg":"trace[1289777367] range","detail":"{range_begin:/registry/masterleases/; range_end:/registry/masterleases0; response_count:3; response_revision:15133368; }","duration":"125.847593ms","start":"2022-12-23T05:46:45.384Z","end":"2022-12-23T05:46:45.510Z","steps":[],"step_count":1}'));
    expect(e).toMatchObject({ kind: 'range', via: 'trace', key: '/registry/masterleases/', rangeEnd: '/registry/masterleases0', objects: 3 });
  });
  it('reads request stats for a Range', () => {
    const e = parseEtcdZap(JSON.parse('{"level":"warn","ts":"2024-04-22T17:18:03.21385+0800","caller":"v3rpc/interceptor.go:197","msg":"request stats","start time":"2024-04-22T17:18:00.213095+0800","time spent":"3.000743014s","remote":"127.0.0.1:39294","response type":"/etcdserverpb.KV/Range","request count":0,"request size":28,"response count":42,"response size":1000,"request content":"key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" limit:500 "}'));
    expect(e).toMatchObject({ kind: 'range', via: 'stats', totalKeys: 42, bytes: 1000, limit: 500 });
  });
  it('treats a slow write and a compaction as other lines', () => {
    expect(parseEtcdZap({ level: 'warn', ts: '2020-01-01T00:00:00Z', msg: 'apply request took too long', prefix: '', request: 'header:<ID:1 > txn:<>', took: '200ms' })).toMatchObject({ kind: 'other', what: 'slow write' });
    expect(parseEtcdZap({ level: 'info', ts: '2020-01-01T00:00:00Z', caller: 'mvcc/kvstore_compaction.go:63', msg: 'finished scheduled compaction', took: '2.1ms' })).toMatchObject({ kind: 'other' });
  });
  it("does not take another component's zap line for etcd's: the caller must be an etcd package", () => {
    expect(parseEtcdZap({ level: 'info', ts: '2020-01-01T00:00:00Z', msg: 'Starting workers', controller: 'x' })).toBeNull();
    expect(parseEtcdZap({ level: 'info', ts: '2020-01-01T00:00:00Z', caller: 'controller/controller.go:234', msg: 'Starting workers' })).toBeNull();
    expect(parseEtcdZap({ level: 'info', ts: '2020-01-01T00:00:00Z', caller: 'embed/etcd.go:301', msg: 'starting an etcd server' })).toMatchObject({ kind: 'other' });
  });
  it('is not fooled by a JSON object without level/ts/msg', () => {
    expect(parseEtcdZap({ msg: 'x' })).toBeNull();
  });
});

describe('parseEtcdCapnslog', () => {
  it('reads a 3.3/3.4 read-only range line', () => {
    const e = parseEtcdCapnslog('2018-10-11 08:36:19.724999 W | etcdserver: read-only range request "key:\\"/registry/secrets/kube-system/app-token\\" " with result "range_response_count:1 size:2579" took too long (1.602181876s) to execute');
    expect(e).toMatchObject({ kind: 'range', via: 'capnslog', key: '/registry/secrets/kube-system/app-token', objects: 1, bytes: 2579, tsMs: Date.UTC(2018, 9, 11, 8, 36, 19, 724) });
  });
  it('reads the 3.3.1 form without a result', () => {
    expect(parseEtcdCapnslog('2018-01-01 00:00:00.000000 W | etcdserver: read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" " took too long [3.389041388s] to execute')).toMatchObject({ kind: 'range', objects: null });
  });
  it('reads an error result', () => {
    expect(parseEtcdCapnslog('2021-05-14 16:47:40.074621 W | etcdserver: read-only range request "key:\\"/registry/health\\" " with result "error:context deadline exceeded" took too long (1.999933111s) to execute')).toMatchObject({ error: 'context deadline exceeded', key: '/registry/health' });
  });
  it('recognises other capnslog lines', () => {
    expect(parseEtcdCapnslog('2021-05-14 16:47:40.070062 W | wal: sync duration of 2.004393954s, expected less than 1s')).toMatchObject({ kind: 'other', what: 'wal sync' });
    expect(parseEtcdCapnslog('2021-05-14 16:47:40.070062 I | etcdmain: etcd Version: 3.4.13')).toMatchObject({ kind: 'other', version: '3.4.13' });
  });
});

describe('etcd lines: escapes, malformed parts and the lines next door', () => {
  it.each([
    // gogoproto text escapes inside a key
    ['key:"/a\\x41b" ', '/aAb'],
    ['key:"/a\\u0042c" ', '/aBc'],
    ['key:"/a\\"b" ', '/a"b'],
    ['key:"/a\\\\b" ', '/a\\b'],
    ['key:"/a\\nb\\tc\\rd" ', '/a\nb\tc\rd'],
    ['key:"/p\\0012" ', '/p\u00012'],
  ])('reads the key of %s as %j', (text, key) => {
    expect(parseRangeRequestText(text)!.key).toBe(key);
  });

  it.each([
    ['no key at all', 'range_end:"/b" limit:5 ', null],
    ['an unterminated quote', 'key:"/registry/pods/', null],
    ['a backslash at the very end', 'key:"/registry/pods\\', null],
    ['a nested <…> field is skipped', 'key:"/a" header:<ID:1 > limit:7 ', { key: '/a', limit: 7 }],
    ['keys_only', 'key:"/a" range_end:"/b" keys_only:true ', { keysOnly: true, countOnly: false }],
    ['a limit that is not a number', 'key:"/a" limit:abc ', { limit: 0 }],
    ['count_only:false', 'key:"/a" count_only:false ', { countOnly: false }],
  ])('%s', (_what, text, want) => {
    const r = parseRangeRequestText(text);
    if (want === null) expect(r).toBeNull();
    else expect(r).toMatchObject(want);
  });

  it.each([
    ['range_response_count:7130 size:13313287', { objects: 7130, bytes: 13313287, error: null }],
    ['responses:<range_response_count:3 > size:615', { objects: 3, bytes: 615, error: null }],
    ['size:9', { objects: null, bytes: 9, error: null }],
    ['range_response_count:0 size:9', { objects: 0, bytes: 9 }],
    ['error:context deadline exceeded', { objects: null, bytes: null, error: 'context deadline exceeded' }],
    ['', { objects: null, bytes: null, error: null }],
  ])('the response %j', (text, want) => {
    expect(parseRangeResponseText(text)).toMatchObject(want);
  });

  const zap = (o: Record<string, unknown>) => parseEtcdZap({ level: 'warn', ts: '2024-01-01T00:00:00.000Z', caller: 'etcdserver/util.go:170', ...o });
  it.each([
    ['a write: prefix ""', { msg: 'apply request took too long', prefix: '', request: 'header:<ID:1 > put:<key:"/a" >', took: '200ms' }, { kind: 'other', what: 'slow write', tookMs: 200 }],
    ['a read-only request that is not a range', { msg: 'apply request took too long', prefix: 'read-only range ', request: 'garbage', took: '1s' }, { kind: 'other', what: 'slow write' }],
    ['a trace without range_begin', { msg: 'trace[1] range', detail: '{range_end:/b; }' }, { kind: 'other', what: 'trace' }],
    ['a trace with an empty range_end', { msg: 'trace[1] range', detail: '{range_begin:/registry/pods/p; range_end:; response_count:1; }', duration: '200ms' }, { kind: 'range', key: '/registry/pods/p', rangeEnd: null, objects: 1, tookMs: 200 }],
    ['request stats of a Put', { msg: 'request stats', 'response type': '/etcdserverpb.KV/Put', 'request content': 'key:"/a" ' }, { kind: 'other', what: 'request stats' }],
    ['request stats of a Range without its request', { msg: 'request stats', 'response type': '/etcdserverpb.KV/Range' }, { kind: 'other', what: 'request stats' }],
    ['the start-up line with the version', { msg: 'starting an etcd server', 'etcd-version': '3.5.9' }, { kind: 'other', what: 'version', version: '3.5.9' }],
  ])('%s', (_what, o, want) => {
    expect(zap(o)).toMatchObject(want);
  });

  it('a zap object needs level, ts and msg', () => {
    expect(parseEtcdZap({ ts: 'x', msg: 'apply request took too long' })).toBeNull();
    expect(parseEtcdZap({ level: 'warn', msg: 'apply request took too long' })).toBeNull();
    expect(parseEtcdZap({ level: 'warn', ts: 'x', msg: 7 })).toBeNull();
  });

  it.each([
    ['2021-05-14 16:47:40.074621 W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 2.5s, to 8e9e05c52164694d)', { kind: 'other', what: 'etcdserver' }],
    ['2021-05-14 16:47:40.074621 W | etcdserver: request "header:<ID:1 > lease_grant:<ttl:15-second id:1 >" with result "size:5" took too long (1.2s) to execute', { kind: 'other', what: 'slow request' }],
    ['2021-05-14 16:47:40.074621 I | rafthttp: peer 1 became active', { kind: 'other', what: 'rafthttp' }],
    ['2021-05-14 16:47:40 W | etcdserver: read-only range request "key:\\"/a\\" " with result "range_response_count:1 size:5" took too long (1s) to execute', { kind: 'range', tsMs: Date.UTC(2021, 4, 14, 16, 47, 40) }],
  ])('capnslog: %s', (line, want) => {
    expect(parseEtcdCapnslog(line)).toMatchObject(want);
  });

  it('is not capnslog: too short, no level, no package', () => {
    expect(isCapnslogLine('2021-05-14 16:47:40 W | x')).toBe(false);
    expect(isCapnslogLine('2021-05-14 16:47:40.074621 X | etcdserver: something long enough')).toBe(false);
    expect(isCapnslogLine('2021-05-14T16:47:40.074621 W | etcdserver: something long enough')).toBe(false);
    expect(parseEtcdCapnslog('I1201 10:00:00.000000 1 x.go:1] not capnslog at all, but long')).toBeNull();
  });
});

describe('parseTimestampMs: the forms logs write', () => {
  it.each([
    ['2026-11-30T10:00:01Z', Date.UTC(2026, 10, 30, 10, 0, 1)],
    ['2026-11-30T10:00:01.5Z', Date.UTC(2026, 10, 30, 10, 0, 1, 500)],
    ['2026-11-30T10:00:01.123456789Z', Date.UTC(2026, 10, 30, 10, 0, 1, 123)],
    ['2026-11-30T10:00:01.999999Z', Date.UTC(2026, 10, 30, 10, 0, 1, 999)],
    ['2026-11-30T12:00:01.25+02:00', Date.UTC(2026, 10, 30, 10, 0, 1, 250)],
    ['2026-11-30T05:00:01-0500', Date.UTC(2026, 10, 30, 10, 0, 1)],
    ['2026-11-30T10:00:01.12aZ', null],
    ['2026-13-30T10:00:01Z', null],
    ['yesterday', null],
    ['', null],
  ])('%j → %s', (s, want) => {
    expect(parseTimestampMs(s)).toBe(want);
  });
  it('numbers are seconds, or milliseconds when they are that big', () => {
    expect(parseTimestampMs(1_700_000_000)).toBe(1_700_000_000_000);
    expect(parseTimestampMs(1_700_000_000_123)).toBe(1_700_000_000_123);
    expect(parseTimestampMs(Number.NaN)).toBeNull();
    expect(parseTimestampMs(null)).toBeNull();
  });
});

// Edges the mutation run found untested: each row is one rule at its boundary.
describe('etcd lines: the boundaries of each rule', () => {
  const zap = (f: Record<string, unknown>) => parseEtcdZap({ level: 'warn', ts: '2026-11-30T12:00:00.000Z', ...f });
  it('a one-digit octal escape up to \\7', () => {
    expect(parseRangeRequestText('key:"/a\\7" ')!.key).toBe('/a\u0007');
    expect(parseRangeRequestText('key:"/a\\8" ')!.key).toBe('/a8');
  });
  it('a name-less field before the key is skipped, not the end', () => {
    expect(parseRangeRequestText(':x key:"/a" ')).toMatchObject({ key: '/a' });
  });
  it('trace[N] range is the whole message', () => {
    expect(zap({ msg: 'trace[7] range', detail: '{range_begin:/registry/pods/; range_end:/registry/pods0; response_count:5; }' })).toMatchObject({ kind: 'range', via: 'trace', key: '/registry/pods/', rangeEnd: '/registry/pods0', objects: 5 });
    expect(zap({ msg: 'my trace[7] range', caller: 'etcdserver/x.go:1', detail: '{range_begin:/a; }' })).toEqual({ kind: 'other', what: 'my trace[7] range', tsMs: Date.UTC(2026, 10, 30, 12) });
    expect(zap({ msg: 'trace[7] ranges', caller: 'etcdserver/x.go:1', detail: '{range_begin:/a; }' })).toEqual({ kind: 'other', what: 'trace[7] ranges', tsMs: Date.UTC(2026, 10, 30, 12) });
    // a trace without range_end reads a single key
    expect(zap({ msg: 'trace[7] range', detail: '{range_begin:/registry/pods/a/b; response_count:1; }' })).toMatchObject({ kind: 'range', rangeEnd: null });
  });
  it('a prefix that is not a string is no read-only range', () => {
    expect(zap({ msg: 'apply request took too long', prefix: 5, request: 'key:"/a" ', took: '120ms' })).toEqual({ kind: 'other', what: 'slow write', tsMs: Date.UTC(2026, 10, 30, 12), tookMs: 120 });
  });
  it.each([
    ['operator/etcdserver/x.go:5'], // an etcd package name inside another tree
    ['etcdserver/util.go:170 extra'],
    ['etcdserver/util.go'],
  ])('caller %j is not etcd', (caller) => {
    expect(zap({ msg: 'hello', caller })).toBeNull();
  });
  it('capnslog: the header at the start, the fraction optional, read as UTC whatever the zone', () => {
    expect(parseEtcdCapnslog('x2021-05-14 16:47:40.074621 W | etcdserver: hello')).toBeNull();
    expect(parseEtcdCapnslog('2021-05-14 16:47:40 W | etcdserver: hello')).toEqual({ kind: 'other', what: 'etcdserver', tsMs: Date.UTC(2021, 4, 14, 16, 47, 40) });
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'Asia/Tokyo';
      expect(parseEtcdCapnslog('2021-05-14 16:47:40 W | etcdserver: hello')!.tsMs).toBe(Date.UTC(2021, 4, 14, 16, 47, 40));
    } finally {
      process.env.TZ = tz;
    }
  });
  it('capnslog: a slow read is the whole message; the version only at its start; wal sync only from wal', () => {
    const at = '2021-05-14 16:47:40 W | ';
    const read = 'read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" " with result "range_response_count:7 size:70" took too long (120ms) to execute';
    expect(parseEtcdCapnslog(at + 'etcdserver: ' + read)).toMatchObject({ kind: 'range', key: '/registry/pods/', objects: 7, bytes: 70, tookMs: 120 });
    expect(parseEtcdCapnslog(at + 'etcdserver: x' + read)).toMatchObject({ kind: 'other', what: 'slow request' });
    expect(parseEtcdCapnslog(at + 'etcdserver: ' + read + ' again')).toMatchObject({ kind: 'other', what: 'slow request' });
    expect(parseEtcdCapnslog(at + 'etcdmain: etcd Version: 3.4.13')).toMatchObject({ kind: 'other', what: 'version', version: '3.4.13' });
    expect(parseEtcdCapnslog(at + 'etcdmain: the etcd Version: 3.4.13')).toMatchObject({ kind: 'other', what: 'etcdmain' });
    expect(parseEtcdCapnslog(at + 'wal: sync duration of 1.2s, expected less than 1s')).toMatchObject({ what: 'wal sync' });
    expect(parseEtcdCapnslog(at + 'etcdserver: sync duration of 1.2s')).toMatchObject({ what: 'etcdserver' });
  });
});
