// The apiserver's own log as evidence (issue 45): the seed incident written as kube-apiserver's log for four
// releases, three verbosities and both klog forms (fixtures/make-apiserver-logs.mjs), against the same incident's
// audit log. Where the log can see, the answers are the audit's; where it cannot, the report says so.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanJson, spawnCli } from './support.js';
import type { GroupReport } from '../src/analyze/report.js';

const SEED = 'fixtures/apiserver-log/seed';
const FLAGS = ['--syslog-year', '2026', '--etcd-version', '3.5.9'];
const vector = (r: { listGroups: GroupReport[] }) => r.listGroups.find((g) => g.userAgent.startsWith('vector/') && g.resource === 'pods');

describe('the seed incident from the audit log (the reference)', () => {
  it('93 requests: 47 lists, 41 from etcd (40 Vector, 1 events list), 24 TokenRequests, 8 nodes; a restart and a token wave', async () => {
    const { r } = await scanJson([...FLAGS, `${SEED}/audit.log`]);
    expect(r.totals).toMatchObject({ requests: 93, listRequests: 47, listFromEtcd: 41, tokenRequests: 24, clusterNodes: 8 });
    expect(vector(r)).toMatchObject({ requests: 40, nodes: 8, servedFrom: { etcd: 40, cache: 0 } });
    expect(r.findings.map((f) => f.kind)).toEqual(expect.arrayContaining(['apiserver-restart', 'token-refresh-storm']));
    expect(r.apiserverLog).toBeUndefined();
  });
});

const VERSIONS = ['1.22', '1.28', '1.31', '1.36'] as const;
const cases = VERSIONS.flatMap((v) => [0, 2, 3].flatMap((level) => (['log', 'json'] as const).map((ext) => ({ v, level, ext }))));

describe('the same incident from the apiserver log', () => {
  it.each(cases)('$v at -v=$level ($ext)', async ({ v, level, ext }) => {
    const { code, r } = await scanJson([...FLAGS, `${SEED}/apiserver-${v}-v${level}.${ext}`]);
    const minor = Number(v.split('.')[1]);
    const al = r.apiserverLog!;
    expect(al.inputs).toHaveLength(1);
    const row = al.inputs[0]!;
    expect(row.format).toBe(ext === 'log' ? 'text' : 'json');
    expect(row.version).toMatch(new RegExp(`^v${v.replace('.', '\\.')}\\.`));
    expect(r.kubernetes.version.startsWith(v)).toBe(true);
    expect(r.inputs[0]!.skippedLines).toBe(0);
    // the restart, from the log's own "Serving securely" line
    expect(r.findings.some((f) => f.kind === 'apiserver-restart' && (f as { signs: string[] }).signs.some((s) => s.includes('Serving securely')))).toBe(true);
    const traced = level >= 2 || minor < 31; // traces are written at -v=0 up to 1.30, at -v=2 from 1.31
    if (level === 3) {
      // every request: the audit's answers, and the one httplog line of each traced request counted once
      expect(code).toBe(0);
      expect(row.verbosity).toBe('>=3');
      expect(r.totals).toMatchObject({ requests: 93, listRequests: 47, listFromEtcd: 41, tokenRequests: 24, clusterNodes: 8 });
      expect(vector(r)).toMatchObject({ requests: 40, nodes: 8, servedFrom: { etcd: 40, cache: 0 }, username: '' });
      expect(vector(r)!.apiserverLog).toMatchObject({ httplog: 40, trace: 0, traced: 16, observedEtcd: 16, flowSchema: minor >= 23 ? 'service-accounts' : null, sourceIPs: 8 });
      expect(row.requests).toEqual({ httplog: 93, traceOnly: 0, timeoutOnly: 0, joined: 17 });
      expect(r.findings.some((f) => f.kind === 'token-refresh-storm')).toBe(true);
      expect(al.nextStep).toBeNull();
      // what the traces returned (1.36 removed "Writing http response done")
      expect(vector(r)!.objectsReturnedPerRequest).toBe(minor >= 36 ? null : 110);
    } else if (traced) {
      // only the 16 slow Vector lists (traced) and the timed-out events list: a lower bound, said so
      expect(row.verbosity).toBe(minor >= 31 ? '2' : '0-2');
      expect(r.totals.requests).toBe(17);
      expect(row.requests).toEqual({ httplog: 0, traceOnly: 16, timeoutOnly: 1, joined: 0 });
      // the trace's storage step (nested from 1.26, a block of its own before) proves the read went to etcd
      expect(vector(r)).toMatchObject({ requests: 16, servedFrom: { etcd: 16 } });
      expect(vector(r)!.objectsReturnedPerRequest).toBe(minor >= 36 ? null : 110);
      // a trace's /api/v1/pods is no list of every pod (its URL has no query): what etcd read stays unknown
      expect(vector(r)!.objectsReadPerRequest).toBeNull();
      expect(r.findings.find((f) => f.kind === 'apiserver-restart')!.summary).not.toMatch(/audit|\?/);
      // cannot see: the users, the selectors (a trace's URL has no query), the TokenRequests
      expect(r.totals.tokenRequests).toBe(0);
      expect(r.totals.clusterNodes).toBe(0);
      expect(al.limits.join(' ')).toContain('lower bound');
      expect(al.nextStep).toContain('--vmodule=httplog=3');
    } else {
      // 1.31+ at -v=0: only errors; the timeout is the one request seen
      expect(row.verbosity).toBe('0-1');
      expect(r.totals.requests).toBe(1);
      expect(row.requests).toEqual({ httplog: 0, traceOnly: 0, timeoutOnly: 1, joined: 0 });
      expect(al.nextStep).toContain('at -v=0 only errors show');
    }
  });
});

describe('the apiserver log beside the audit log', () => {
  it('counts each request once (the audit), joins the APF flow schema and the traces to the audit groups', async () => {
    const { r } = await scanJson([...FLAGS, `${SEED}/audit.log`, `${SEED}/apiserver-1.28-v3.log`]);
    expect(r.totals).toMatchObject({ requests: 93, listRequests: 47, listFromEtcd: 41, tokenRequests: 24 });
    const g = vector(r)!;
    expect(g.username).toBe('system:serviceaccount:vector:vector');
    expect(g.apiserverLog).toEqual({ httplog: 40, trace: 0, timeout: 0, traced: 16, observedEtcd: 16, flowSchema: 'service-accounts', priorityLevel: 'workload-low', sourceIPs: null });
    expect(r.apiserverLog!.notInAudit).toBeNull();
  });
  it('names the lists the audit log does not hold', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'al-'));
    const audit = readFileSync(`${SEED}/audit.log`, 'utf8').split('\n').filter((l) => !l.includes('vector/')).join('\n');
    writeFileSync(join(dir, 'audit.log'), audit);
    const { r } = await scanJson([...FLAGS, join(dir, 'audit.log'), `${SEED}/apiserver-1.28-v3.log`]);
    expect(r.totals.requests).toBe(53);
    expect(r.apiserverLog!.notInAudit).toEqual({ requests: 40, groups: [{ verb: 'list', userAgent: expect.stringMatching(/^vector\//), resource: 'pods', selector: 'spec.nodeName=<node>', requests: 40, flowSchema: 'service-accounts' }] });
  });
});

describe('delivery never changes the answer', () => {
  const base = async (): Promise<string> => (await spawnCli(['-o', 'json', ...FLAGS, '-j', '1', `${SEED}/apiserver-1.28-v3.log`])).stdout;
  it('gzip, stdin, -j 3 with small cuts (never inside a trace block), kubectl --prefix, CRI', async () => {
    const want = JSON.parse(await base());
    const text = readFileSync(`${SEED}/apiserver-1.28-v3.log`);
    const dir = mkdtempSync(join(tmpdir(), 'al-'));
    writeFileSync(join(dir, 'a.log.gz'), gzipSync(text));
    const lines = text.toString('utf8').trimEnd().split('\n');
    writeFileSync(join(dir, 'prefixed.log'), lines.map((l) => `[pod/kube-apiserver-m1/kube-apiserver] ${l}`).join('\n') + '\n');
    writeFileSync(join(dir, 'cri.log'), lines.map((l) => `2026-11-30T12:00:00.000000000Z stderr F ${l}`).join('\n') + '\n');
    const same = (r: { totals: unknown; listGroups: unknown; findings: Array<{ kind: string }> }) => ({ totals: r.totals, listGroups: r.listGroups, kinds: r.findings.map((f) => f.kind) });
    const runs = [
      await spawnCli(['-o', 'json', ...FLAGS, join(dir, 'a.log.gz')]),
      await spawnCli(['-o', 'json', ...FLAGS, '-'], text),
      await spawnCli(['-o', 'json', ...FLAGS, '-j', '3', `${SEED}/apiserver-1.28-v3.log`], null, { env: { AUDIT_SCAN_MIN_SPLIT_BYTES: '2048' } }),
      await spawnCli(['-o', 'json', ...FLAGS, join(dir, 'prefixed.log')]),
      await spawnCli(['-o', 'json', ...FLAGS, join(dir, 'cri.log')]),
    ];
    for (const x of runs) {
      expect(x.code).toBe(0);
      const r = JSON.parse(x.stdout);
      expect(same(r)).toEqual(same(want));
    }
    // cut small, the trace blocks still one request each: the same apiserver-log figures
    const cut = JSON.parse(runs[2]!.stdout);
    expect(cut.apiserverLog.inputs[0]).toEqual(want.apiserverLog.inputs[0]);
  });
  it('-j 3 on traces alone (-v=2) gives the bytes of -j 1', async () => {
    const f = `${SEED}/apiserver-1.22-v2.log`;
    const one = await spawnCli(['-o', 'json', ...FLAGS, '-j', '1', f]);
    const three = await spawnCli(['-o', 'json', ...FLAGS, '-j', '3', f], null, { env: { AUDIT_SCAN_MIN_SPLIT_BYTES: '1024' } });
    expect(three.stdout).toBe(one.stdout);
  });
});
