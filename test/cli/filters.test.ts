// Filters at the edges (issue 21): a filter that leaves nothing is no all-clear, an unknown verb is a usage error,
// the etcd side follows one rule, and a scan that could read no input writes no report.
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../support.js';

const DEMO = 'fixtures/demo';

describe('filters', () => {
  it('a window after the log leaves nothing: no all-clear, exit 1, and the span the log covers', async () => {
    const r = await runCli(['--since', '2026-12-01T00:00:00Z', DEMO]);
    expect(r.code).toBe(1);
    // 1,608 requests and 2,607 etcd lines (1,300 slow reads, internal reads and the rest) in the demo, all before
    expect(r.stderr).toContain(
      'audit-scan: nothing to analyse: the filters (--since 2026-12-01T00:00:00.000Z) left out 1,608 of 1,608 requests and 2,607 etcd lines; the log covers 2026-11-30T09:00:00.000Z – 2026-11-30T10:02:00.501Z.',
    );
    expect(r.stdout).not.toContain('No client reads etcd heavily');
    expect(r.stdout).toContain('Nothing to analyse: the filters (--since 2026-12-01T00:00:00.000Z) left out 1,608 of');
    const j = JSON.parse((await runCli(['-o', 'json', '--since', '2026-12-01T00:00:00Z', DEMO])).stdout);
    expect(j.filters).toEqual({ applied: ['--since 2026-12-01T00:00:00.000Z'], requestsLeftOut: 1608, etcdLinesLeftOut: 2607 });
    expect(j.totals).toMatchObject({ requests: 0, firstSeen: '2026-11-30T09:00:00.000Z', lastSeen: '2026-11-30T10:02:00.501Z' });
  });

  it('a filter that keeps some says what it left out, and the all-clear is only about what it kept', async () => {
    // the demo's 195 lease requests (kubelets and controllers renewing) read no etcd heavily
    const r = await runCli(['--resource', 'leases', DEMO]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('audit-scan: the filters (--resource leases) left out 1,413 of 1,608 requests and 2,606 etcd lines; the log covers');
    expect(r.stdout).toContain('No client reads etcd heavily in what the filters kept (the filters (--resource leases) left out 1,413 of 1,608');
  });

  it('an etcd read no kept request explains names the filters, not a missing audit log', async () => {
    const r = JSON.parse((await runCli(['-o', 'json', '--verb', 'create', DEMO])).stdout);
    expect(r.findings[0].summary).toBe('etcd logged 1,300 slow reads (over 100 ms, the threshold its log states) of /registry/pods/, 7,130 objects each, up to 340.5 ms. The filters left out the audit requests that would name the client.');
  });

  it('--verb lsit is a usage error that names the verbs', async () => {
    const r = await runCli(['--verb', 'lsit', DEMO]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('audit-scan: --verb: "lsit" is no verb an audit event carries; expected one or more of get, list, watch, create, update, patch, delete, deletecollection, post, put, head, options\n');
  });

  it('the etcd side: --since and --resource/--namespace apply to etcd lines, --user and --verb keep them all', async () => {
    const all = JSON.parse((await runCli(['-o', 'json', DEMO])).stdout);
    const byUser = JSON.parse((await runCli(['-o', 'json', '--user', 'system:serviceaccount:vector:vector', DEMO])).stdout);
    const byVerb = JSON.parse((await runCli(['-o', 'json', '--verb', 'get', DEMO])).stdout);
    const byNs = JSON.parse((await runCli(['-o', 'json', '--namespace', 'kube-system', DEMO])).stdout);
    const bySince = JSON.parse((await runCli(['-o', 'json', '--since', '2026-11-30T10:01:00Z', DEMO])).stdout);
    for (const r of [byUser, byVerb]) {
      expect(r.totals.etcdSlowRanges).toBe(all.totals.etcdSlowRanges);
      expect(r.filters.etcdLinesLeftOut).toBe(0);
    }
    // the demo's slow reads are of all pods (no namespace): a namespace filter leaves none of them
    expect(byNs.totals.etcdSlowRanges).toBe(0);
    expect(bySince.totals.etcdSlowRanges).toBeLessThan(all.totals.etcdSlowRanges);
    expect(bySince.totals.etcdSlowRanges).toBeGreaterThan(0);
  });
});

describe('no input could be read', () => {
  it('writes nothing to stdout, so `> report.html` holds no page about nothing', async () => {
    const r = await spawnCli(['-o', 'html', 'no-such-file.log']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no-such-file.log: no such file or directory');
  });
});
