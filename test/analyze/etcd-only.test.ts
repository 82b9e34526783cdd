// An etcd log alone (issue 21): slow writes and a slow disk are their own finding, failed reads are failures, the
// finding names the heaviest and the slowest range (not the first), counts read as English, the threshold is the
// one the log states, and the summary is never an empty heading.
import { describe, expect, it } from 'vitest';
import { runCli } from '../support.js';

const zap = (ts: string, o: Record<string, unknown>): string => JSON.stringify({ level: 'warn', ts, caller: 'etcdserver/util.go:170', ...o });
const range = (ts: string, key: string, end: string | null, took: string, response: string, expected = '100ms', error?: string): string =>
  zap(ts, {
    msg: 'apply request took too long', took, 'expected-duration': expected, prefix: 'read-only range ',
    request: `key:"${key}" ${end === null ? '' : `range_end:"${end}" `}`, response, ...(error ? { error } : {}),
  });

async function scan(lines: string[]): Promise<any> {
  const r = await runCli(['-o', 'json', '-'], lines.join('\n') + '\n');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe('an etcd log with only slow writes (talosctl logs etcd)', () => {
  const writes = [
    zap('2026-11-30T10:00:01.000Z', { msg: 'apply request took too long', took: '157.2ms', 'expected-duration': '100ms', prefix: '', request: 'header:<ID:1 > txn:<compare:<target:MOD key:"/registry/leases/kube-node-lease/n1" mod_revision:5 > success:<request_put:<key:"/registry/leases/kube-node-lease/n1" value_size:500 >> failure:<>>', response: 'size:20' }),
    zap('2026-11-30T10:00:02.000Z', { msg: 'apply request took too long', took: '141ms', 'expected-duration': '100ms', prefix: '', request: 'header:<ID:2 > txn:<compare:<target:MOD key:"/registry/leases/kube-node-lease/n2" mod_revision:6 > success:<request_put:<key:"/registry/leases/kube-node-lease/n2" value_size:500 >> failure:<>>', response: 'size:20' }),
  ];

  it('is a finding of its own: etcd was slow, not because of reads', async () => {
    const r = await scan(writes);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({
      kind: 'etcd-slow-disk',
      severity: 'low',
      summary: 'etcd was slow by itself, not for a read: 2 slow writes (txn or put over the threshold), up to 157.2 ms. Slow writes and syncs delay every request that writes, and a late heartbeat risks a leader election.',
    });
    expect(r.summary.offenders).toEqual([]);
    const table = (await runCli(['-'], writes.join('\n') + '\n')).stdout;
    expect(table).not.toContain('No client reads etcd heavily');
    expect(table).toMatch(/Summary\nLOW etcd was slow by itself, not for a read: 2 slow writes/);
  });

  it('a slow fdatasync and a late heartbeat make it medium: the disk', async () => {
    const r = await scan([
      ...writes,
      JSON.stringify({ level: 'warn', ts: '2026-11-30T10:00:03.000Z', caller: 'wal/wal.go:805', msg: 'slow fdatasync', took: '1.204s', 'expected-duration': '1s' }),
      JSON.stringify({ level: 'warn', ts: '2026-11-30T10:00:04.000Z', caller: 'etcdserver/raft.go:369', msg: 'leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk', to: 'a', 'heartbeat-interval': '100ms', 'expected-duration': '200ms', 'exceeded-duration': '51ms' }),
    ]);
    expect(r.findings[0]).toMatchObject({ kind: 'etcd-slow-disk', severity: 'medium' });
    expect(r.findings[0].summary).toContain('2 slow writes (txn or put over the threshold), up to 157.2 ms; 1 slow fdatasync, up to 1.2 s; 1 late leader heartbeat.');
  });
});

describe('slow reads with no audit log', () => {
  it('names the heaviest and the slowest range, in English counts, over the threshold the log states', async () => {
    const r = await scan([
      // the first read of the log: one small range, alphabetically first too
      range('2026-11-30T10:00:00.000Z', '/registry/clusterroles/admin', null, '35ms', 'range_response_count:1 size:2000', '30ms'),
      range('2026-11-30T10:00:01.000Z', '/registry/pods/', '/registry/pods0', '130ms', 'range_response_count:7130 size:13313287', '30ms'),
      range('2026-11-30T10:00:02.000Z', '/registry/pods/', '/registry/pods0', '120ms', 'range_response_count:7130 size:13313287', '30ms'),
      range('2026-11-30T10:00:03.000Z', '/registry/configmaps/', '/registry/configmaps0', '480ms', 'range_response_count:200 size:400000', '30ms'),
    ]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0].summary).toBe(
      'etcd logged 4 slow reads (over 30 ms, the threshold its log states) of 3 key ranges; the most objects: /registry/pods/, 2 reads, 7,130 objects each; the slowest, /registry/configmaps/, took 480 ms. Add the apiserver audit log to see which client sent them.',
    );
  });

  it('one read of one object reads "1 slow read", "1 object"', async () => {
    const r = await scan([range('2026-11-30T10:00:00.000Z', '/registry/clusterroles/admin', null, '135ms', 'range_response_count:1 size:2000')]);
    expect(r.findings[0].summary).toBe('etcd logged 1 slow read (over 100 ms, the threshold its log states) of /registry/clusterroles/<name>, 1 object each, up to 135 ms. Add the apiserver audit log to see which client sent them.');
  });

  it('failed reads are failures, not slow reads', async () => {
    const r = await scan([
      range('2026-11-30T10:00:00.000Z', '/registry/pods/', '/registry/pods0', '2.1s', '', '100ms', 'context canceled'),
      range('2026-11-30T10:00:01.000Z', '/registry/pods/', '/registry/pods0', '7s', '', '100ms', 'etcdserver: request timed out'),
    ]);
    expect(r.findings.map((f: any) => f.kind)).toEqual(['etcd-failed-reads']);
    expect(r.findings[0].summary).toMatch(/^2 reads of etcd ended in an error, not an answer \(most of \/registry\/pods\/, 2\)/);
  });
});
