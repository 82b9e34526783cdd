// The figures of --follow's live window, worked out by hand, in-process (a gzip input is read once, so the
// follow run ends at once with its final JSON line): which requests fall in the window, the rates, the etcd
// share, and the order of the top clients. test/follow.test.ts drives the real process on growing files.
import { gzipSync } from 'node:zlib';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { auditLine, runCli } from '../support.js';
import type { LiveWindow } from '../../src/analyze/report.js';

const T0 = Date.UTC(2026, 10, 30, 12);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
let n = 0;
function list(user: string, s: number, query = ''): string {
  n++;
  return auditLine({ auditID: `lw-${n}`, requestURI: `/api/v1/pods${query}`, user: { username: user }, userAgent: `${user}/1.0`, requestReceivedTimestamp: at(s), stageTimestamp: at(s + 0.04) });
}
async function live(lines: string[], args: string[] = []): Promise<LiveWindow | null> {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-live-'));
  const f = join(dir, 'audit.log.gz');
  writeFileSync(f, gzipSync(lines.join('\n') + '\n'));
  const r = await runCli(['--follow', '-o', 'json', '--kube-version', '1.30', ...args, f]);
  expect(r.code).toBe(0);
  const last = JSON.parse(r.stdout.trim().split('\n').pop()!) as { live: { final: boolean; window: LiveWindow | null } };
  expect(last.live.final).toBe(true);
  return last.live.window;
}

// 12:00:00 = 0 s. The latest request is zed's at 12:09:30 (570 s): with 1 s buckets the window ends at 12:09:31
// and a 2-minute window starts at 12:07:31. alice lists without resourceVersion (etcd), bob with
// resourceVersion=0 (the watch cache), zed without (etcd).
const LOG = [
  list('alice', 0), // 12:00:00, before the window
  list('old', 10), // a client with nothing in the window is not listed
  list('bob', 450), // 12:07:30, 1 s before it
  list('bob', 460, '?resourceVersion=0'),
  list('bob', 470, '?resourceVersion=0'),
  list('alice', 480),
  list('bob', 490, '?resourceVersion=0'),
  list('bob', 500, '?resourceVersion=0'),
  list('alice', 510),
  list('alice', 540),
  list('bob', 565, '?resourceVersion=0'),
  list('zed', 570),
];

describe('the live window', () => {
  it('counts the requests of the last --window of log time, ending with the latest request’s bucket', async () => {
    const w = (await live(LOG, ['--window', '2m']))!;
    // in [12:07:31, 12:09:31): alice 480, 510, 540; bob 460, 470, 490, 500, 565; zed 570 = 9
    expect(w).toMatchObject({ seconds: 120, from: at(451), to: at(571), requests: 9 });
    // 9 / 120 s = 0.075 → 0.08; the last 10 s [12:09:21, 12:09:31) hold bob 565 and zed 570: 0.2/s
    expect([w.perSecond, w.nowPerSecond]).toEqual([0.08, 0.2]);
    // alice's 3 and zed's 1 went to etcd, and bob's 5 at his share over the run (1 of his 6): 4 + 5/6 = 4.83 → 5,
    // 4.83 of 9 = 0.54
    expect([w.etcdRequests, w.etcdShare]).toEqual([5, 0.54]);
  });

  it('lists the clients worst for etcd first: etcd requests, then requests, then name; --top cuts the list', async () => {
    const w = (await live(LOG, ['--window', '2m']))!;
    // bob's 5 (1 before the window: 6 in all, 5 from the cache and 1 from etcd, share 1/6 = 0.17) put
    // 5 × 0.17 = 0.83 on etcd; alice's 3 × 1 = 3; zed's 1 × 1 = 1
    expect(w.top.map((r) => [r.client, r.requests, r.perSecond, r.etcdShare])).toEqual([
      ['alice', 3, 0.03, 1],
      ['zed', 1, 0.01, 1],
      ['bob', 5, 0.04, 0.17],
    ]);
    expect(w.top[0]).toMatchObject({ userAgent: 'alice/1.0', username: 'alice', verb: 'list', resource: 'pods', selector: '' });
    const one = (await live(LOG, ['--window', '2m', '--top', '1']))!;
    expect(one.top.map((r) => r.client)).toEqual(['alice']);
  });

  it('two clients with as many etcd requests: more requests first, then by name', async () => {
    const w = (await live([list('b-two', 10), list('b-two', 11, '?resourceVersion=0'), list('a-one', 12), list('c-one', 13)], ['--window', '1m']))!;
    // one etcd request each: b-two 2 × 0.5, a-one 1 × 1, c-one 1 × 1
    expect(w.top.map((r) => [r.client, r.requests])).toEqual([['b-two', 2], ['a-one', 1], ['c-one', 1]]);
  });

  it('a window longer than the log holds all of it; the last 10 s are at most the window', async () => {
    const w = (await live([list('alice', 0), list('alice', 3), list('alice', 5)], ['--window', '5s']))!;
    // ends at 12:00:06; 5 s back is 12:00:01: 3 and 5 are in, 0 is not; "now" is the whole 5 s window
    expect(w).toMatchObject({ requests: 2, from: at(1), to: at(6), perSecond: 0.4, nowPerSecond: 0.4 });
    const all = (await live([list('alice', 0), list('alice', 3), list('alice', 5)], ['--window', '1h']))!;
    expect(all).toMatchObject({ requests: 3, from: at(6 - 3600), to: at(6) });
  });

  it('a client whose queries are not in the log (GKE) has no etcd share, and sends nothing to etcd as far as known', async () => {
    const { ROOT } = await import('../support.js');
    const r = await runCli(['--follow', '-o', 'json', '--window', '1h', '--kube-version', '1.30', join(ROOT, 'fixtures/wrapped/audit/gke.json')]);
    const w = (JSON.parse(r.stdout.trim().split('\n').pop()!) as { live: { window: LiveWindow } }).live.window;
    expect(w.requests).toBeGreaterThan(0);
    expect([w.etcdRequests, w.etcdShare]).toEqual([0, null]);
    expect(w.top.length).toBeGreaterThan(0);
    expect(w.top.every((row) => row.etcdShare === null)).toBe(true);
  });

  it('with no request read, the window is empty', async () => {
    const etcdOnly = JSON.stringify({ level: 'warn', ts: at(0), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '150ms', 'expected-duration': '100ms', prefix: 'read-only range ', request: 'key:"/registry/pods/" range_end:"/registry/pods0" ', response: 'range_response_count:10 size:100' });
    expect(await live([etcdOnly], ['--window', '2m'])).toEqual({ seconds: 120, coveredSeconds: 0, from: null, to: null, requests: 0, perSecond: 0, nowPerSecond: 0, etcdRequests: 0, etcdShare: null, top: [] });
  });

  it('a log shorter than the window: the rates are over the time it covers (issue 21: "Now 7.8/s … over the window 0.7/s")', async () => {
    // 40 lists, one every 0.5 s from 12:00:00: the log covers 20 s (to the end of the last 1 s bucket) of a 5 min window
    const lines = Array.from({ length: 40 }, (_, i) => list('burst', i / 2));
    const w = (await live(lines, ['--window', '5m']))!;
    expect(w).toMatchObject({ seconds: 300, coveredSeconds: 20, requests: 40, perSecond: 2, nowPerSecond: 2 });
    expect(w.top[0]).toMatchObject({ client: 'burst', requests: 40, perSecond: 2 });
  });
});

describe('--follow into a pipe: one format a stream (issue 21)', () => {
  const gz = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-live-'));
    const f = join(dir, 'audit.log.gz');
    writeFileSync(f, gzipSync(LOG.join('\n') + '\n'));
    return f;
  };

  it('without --output: JSON lines only, the last one final', async () => {
    const r = await runCli(['--follow', '--kube-version', '1.30', gz()]);
    const lines = r.stdout.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.startsWith('{')).toBe(true);
    expect(JSON.parse(lines.at(-1)!).live.final).toBe(true);
  });

  it('with -o markdown: that report alone, no JSON line before it', async () => {
    const r = await runCli(['--follow', '-o', 'markdown', '--kube-version', '1.30', gz()]);
    expect(r.stdout.startsWith('# Control-plane load: audit-scan report')).toBe(true);
    expect(r.stdout.split('\n').some((l) => l.startsWith('{'))).toBe(false);
  });
});
