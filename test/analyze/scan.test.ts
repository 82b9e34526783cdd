// End-to-end scans of hand-built fixtures whose answers are worked out in fixtures/README.md.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { auditLine, findingsOf, runCli } from '../support.js';
import type { ScanReport } from '../../src/analyze/report.js';

async function scan(args: string[], stdin: string | null = null): Promise<ScanReport> {
  const r = await runCli(['-o', 'json', ...args], stdin);
  return JSON.parse(r.stdout) as ScanReport;
}

describe('the demo incident (fixtures/demo)', () => {
  it('counts requests once across stages and files', async () => {
    const r = await scan(['fixtures/demo']);
    expect(r.totals).toMatchObject({ requests: 1608, listRequests: 1411, listWithoutResourceVersion: 1310, listFromEtcd: 1342, getRequests: 197, getFromEtcd: 197, etcdSlowRanges: 1300, etcdInternalRanges: 6, clusterNodes: 65 });
    expect(r.inputs.map((i) => [i.lines, i.auditEvents, i.etcdEntries, i.otherLines, i.skippedLines])).toEqual([
      [1614, 1614, 0, 0, 0],
      [803, 801, 0, 1, 1],
      [2607, 0, 2606, 1, 0],
    ]);
    expect(r.inputs[1]!.skipReasons).toEqual({ 'truncated last line': 1 });
    expect(r.inputs[0]!.gzip).toBe(true);
  });

  it('infers Kubernetes 1.29.4 and etcd 3.5.9 from the logs', async () => {
    const r = await scan(['fixtures/demo']);
    expect(r.kubernetes).toMatchObject({ version: '1.29.4', source: 'inferred', etcdVersion: '3.5.9', etcdProgressNotify: false });
  });

  it('puts the vector DaemonSet first with 65× estimated amplification', async () => {
    const r = await scan(['fixtures/demo']);
    const g = r.listGroups[0]!;
    expect(g).toMatchObject({
      userAgent: 'vector/0.34.1 (x86_64-unknown-linux-gnu 2023-12-01)',
      username: 'system:serviceaccount:vector:vector',
      resource: 'pods',
      selector: 'spec.nodeName=<node>',
      requests: 1300,
      nodes: 65,
      withoutResourceVersion: 1300,
      servedFrom: { etcd: 1300, cache: 0 },
      objectsReadPerRequest: 7130,
      objectsReturnedPerRequest: 109.7, // 7130 pods / 65 nodes
      bytesReadPerRequest: 13313287,
      bytesReadTotal: 1300 * 13313287,
      amplification: 65,
      estimated: true,
      figureSources: { objectsRead: 'etcd-log', objectsReturned: 'estimate-objects-per-node', bytesRead: 'etcd-log' },
      firstSeen: '2026-11-30T10:00:01.037Z',
    });
    expect(r.findings[0]).toMatchObject({ kind: 'etcd-list-amplification', severity: 'critical', client: 'vector' });
    const [top] = findingsOf(r, 'etcd-list-amplification');
    expect(top!.apf).toContain('kind: FlowSchema');
    expect(top!.apf).toContain('namespace: "vector"');
  });

  it('classifies the other groups with their reasons', async () => {
    const r = await scan(['fixtures/demo']);
    const by = (ua: string, res: string) => r.listGroups.find((g) => g.userAgent.startsWith(ua) && g.resource === res)!;
    expect(by('kubelet/', 'pods')).toMatchObject({ requests: 65, nodes: 65, servedFrom: { etcd: 0, cache: 65 }, reasons: { 'resourceVersion=0': 65 }, username: 'system:node:<node>' });
    expect(by('backup-tool/', 'configmaps')).toMatchObject({ requests: 30, withoutResourceVersion: 10, servedFrom: { etcd: 30, cache: 0 }, reasons: { 'continue token': 20, 'no resourceVersion (paginated)': 10 } });
    expect(by('Mozilla/', 'events')).toMatchObject({ requests: 12, namespace: 'shop', servedFrom: { etcd: 12, cache: 0 }, reasons: { 'events: watch cache off by default': 12 } });
  });

  it('classifies the same log differently when told it is 1.31 with a current etcd', async () => {
    const r = await scan(['--kube-version', '1.31', '--etcd-version', '3.5.13', 'fixtures/demo']);
    const g = r.listGroups.find((x) => x.userAgent.startsWith('vector/'))!;
    expect(g.servedFrom).toEqual({ etcd: 0, cache: 1300, unknown: 0, rejected: 0 });
    expect(g.amplification).toBeNull();
  });
});

describe('the seed case at RequestResponse level', () => {
  it('measures 7130 read / 110 returned = 64.8×', async () => {
    const r = await scan(['fixtures/audit/seed-vector-requestresponse.jsonl', 'fixtures/etcd/seed-slow-range.jsonl']);
    expect(r.listGroups[0]).toMatchObject({ requests: 8, nodes: 4, objectsReadPerRequest: 7130, objectsReturnedPerRequest: 110, bytesReadPerRequest: 13313287, amplification: 64.8, estimated: false });
  });

  it('uses --objects when there is no etcd log', async () => {
    const r = await scan(['--objects', 'pods=7130', 'fixtures/audit/seed-vector-requestresponse.jsonl']);
    expect(r.listGroups[0]).toMatchObject({ objectsReadPerRequest: 7130, objectsReturnedPerRequest: 110, amplification: 64.8, bytesReadPerRequest: null, figureSources: { objectsRead: 'given' } });
  });

  it('leaves figures null, not invented, without etcd log or --objects', async () => {
    const r = await scan(['fixtures/audit/seed-vector-requestresponse.jsonl']);
    expect(r.listGroups[0]).toMatchObject({ objectsReadPerRequest: null, objectsReturnedPerRequest: 110, amplification: null, bytesReadPerRequest: null });
  });
});

describe('auditID dedup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-dedup-'));
  const rr = auditLine({ auditID: 'a1', stage: 'RequestReceived', stageTimestamp: '2026-01-01T00:00:00.000000Z' });
  const rc = auditLine({ auditID: 'a1', stage: 'ResponseComplete' });
  const other = auditLine({ auditID: 'a2', requestReceivedTimestamp: '2026-01-01T00:00:05.000000Z', stageTimestamp: '2026-01-01T00:00:05.100000Z' });
  writeFileSync(join(dir, 'old.log'), `${other.replace('a2', 'a0').replace(/00:00:05/g, '23:59:59').replace('2026-01-01T23', '2025-12-31T23')}\n${rr}\n`);
  writeFileSync(join(dir, 'new.log'), `${rc}\n${other}\n`);

  it('counts a request split across rotated files once, in either order', async () => {
    const a = await scan([join(dir, 'old.log'), join(dir, 'new.log')]);
    const b = await scan([join(dir, 'new.log'), join(dir, 'old.log')]);
    expect(a.totals.requests).toBe(3);
    expect(b.totals.requests).toBe(3);
    expect(a.listGroups[0]!.requests).toBe(3);
  });

  it('counts a duplicated line once and says so', async () => {
    const r = await runCli(['-o', 'json', '-'], `${rc}\n${rc}\n`);
    const rep = JSON.parse(r.stdout) as ScanReport;
    expect(rep.totals.requests).toBe(1);
    expect(rep.inputs[0]!.duplicateEvents).toBe(1);
    expect(r.stderr).toContain('1 duplicate events');
  });

  it('reads the same file named twice only once', async () => {
    const r = await runCli(['-o', 'json', join(dir, 'new.log'), join(dir, 'new.log')]);
    expect((JSON.parse(r.stdout) as ScanReport).totals.requests).toBe(2);
    expect(r.stderr).toContain('same file as an earlier input');
    expect(r.code).toBe(0);
  });

  it('counts a request that never completed (cut log)', async () => {
    const r = await scan(['-'].concat([]), `${rr}\n`);
    expect(r.totals.requests).toBe(1);
  });
});

describe('input shapes', () => {
  const e1 = auditLine({ auditID: 'x1' });
  const e2 = auditLine({ auditID: 'x2', verb: 'get', requestURI: '/api/v1/namespaces/a/pods/p', objectRef: { resource: 'pods', namespace: 'a', name: 'p' } });

  it('reads an EventList, a pretty-printed event and concatenated documents', async () => {
    const list = JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: [JSON.parse(e1), JSON.parse(e2)] }, null, 2);
    const r = await scan(['-'], list + '\n' + JSON.stringify(JSON.parse(e1.replace('x1', 'x3')), null, 2) + '\n');
    expect(r.totals.requests).toBe(3);
    expect(r.inputs[0]!.format).toBe('documents');
  });

  it('reads a single-line EventList and an AKS batch in line mode', async () => {
    const list = JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: [JSON.parse(e1), JSON.parse(e2)] });
    const aks = JSON.stringify({ records: [{ category: 'kube-audit', properties: { log: e1.replace('x1', 'x9') } }, { category: 'kube-apiserver', properties: { log: 'I0101 text' } }] });
    const r = await scan(['-'], `${list}\n${aks}\n`);
    expect(r.totals.requests).toBe(3);
    expect(r.inputs[0]!.skippedItems).toBe(1);
  });

  it('strips kubectl --timestamps and --prefix prefixes and counts klog lines', async () => {
    const r = await scan(['-'], `[pod/kube-apiserver-a/kube-apiserver] 2026-01-01T00:00:00.123456789Z ${e1}\nI0101 00:00:00.000000       1 x.go:1] hello\n2026-01-01T00:00:00.1Z ${e2}\n`);
    expect(r.totals.requests).toBe(2);
    expect(r.inputs[0]).toMatchObject({ lines: 3, auditEvents: 2, otherLines: 1, skippedLines: 0 });
  });

  it('reads query strings escaped as kube-apiserver writes them (& as \\u0026)', async () => {
    // Go's encoder escapes & in every requestURI with more than one parameter; written here by hand.
    const go = (id: string, q: string) => auditLine({ auditID: id, requestURI: `/api/v1/pods?${q}` }).replace(/&/g, '\\u0026');
    const withRv = go('g1', 'fieldSelector=spec.nodeName%3Dn1&limit=500&resourceVersion=0');
    const noRv = go('g2', 'fieldSelector=spec.nodeName%3Dn2&limit=500');
    expect(withRv).toContain('\\u0026limit=500\\u0026resourceVersion=0');
    const r = await scan(['-'], `${withRv}\n${noRv}\n`);
    expect(r.totals).toMatchObject({ requests: 2, listRequests: 2, listWithoutResourceVersion: 1 });
    expect(r.listGroups).toHaveLength(1);
    expect(r.listGroups[0]).toMatchObject({ selector: 'spec.nodeName=<node>', requests: 2, nodes: 2, withoutResourceVersion: 1 });
  });

  it('reads gzip from stdin and a 300 KB line', async () => {
    const big = auditLine({ auditID: 'big', userAgent: 'x'.repeat(300_000) });
    const r = await runCli(['-o', 'json', '-'], gzipSync(`${e1}\n${big}\n`));
    const rep = JSON.parse(r.stdout) as ScanReport;
    expect(rep.totals.requests).toBe(2);
    expect(rep.inputs[0]!.gzip).toBe(true);
  });

  it('repairs invalid UTF-8 inside a string and counts it', async () => {
    const bytes = Buffer.concat([Buffer.from(e1.replace('ua/1', 'ua/')), Buffer.from('\n')]);
    const at = bytes.indexOf('ua/') + 3;
    const bad = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff, 0xfe]), bytes.subarray(at)]);
    const r = await runCli(['-o', 'json', '-'], bad);
    const rep = JSON.parse(r.stdout) as ScanReport;
    expect(rep.inputs[0]).toMatchObject({ auditEvents: 1, repairedLines: 1, skippedLines: 0 });
    expect(rep.listGroups[0]!.userAgent).toBe('ua/\ufffd\ufffd');
  });

  it('counts garbage, non-events and invalid events by reason', async () => {
    const r = await scan(['-'], `garbage\n{"kind": 0}\n[1,2]\n${auditLine({ auditID: 'v', verb: 5 })}\n${e1}\n{"kind":"Ev`);
    expect(r.inputs[0]).toMatchObject({ lines: 6, auditEvents: 1, skippedLines: 5 });
    expect(r.inputs[0]!.skipReasons).toEqual({
      'not a known format': 1,
      'JSON is not an audit event': 1,
      'batch item is not an audit event': 1,
      'invalid audit event: verb is not a string': 1,
      'truncated last line': 1,
    });
  });
});
