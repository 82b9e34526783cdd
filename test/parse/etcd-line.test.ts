import { describe, expect, it } from 'vitest';
import { parseEtcdCapnslog, parseEtcdZap, parseRangeRequestText } from '../../src/parse/etcd-line.js';
import { parseGoDurationMs, parseTimestampMs } from '../../src/parse/time.js';

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
