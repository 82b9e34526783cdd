// Managed control planes have no etcd log: the apiserver's /metrics dumps stand in for it. The Vector DaemonSet
// storm (80 nodes, pods listed by spec.nodeName without resourceVersion) is scanned three ways: with the etcd log,
// with two dumps in 1.29's label set, with two in 1.34's. Objects read per list and the amplification must agree.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support.js';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const ts = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');
const NODES = 80;

/** 80 vector pods list their node's pods without resourceVersion, 12:00:10–12:00:50 (one every 500 ms). */
function auditLog(): string {
  const out: string[] = [];
  for (let i = 0; i < NODES; i++) {
    const t = T0 + 10_000 + i * 500;
    out.push(
      JSON.stringify({
        kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: `v-${i}`, stage: 'ResponseComplete', verb: 'list',
        requestURI: `/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-${i}`, user: { username: 'system:serviceaccount:vector:vector' },
        userAgent: 'vector/0.34.1', objectRef: { resource: 'pods', apiVersion: 'v1' }, responseStatus: { code: 200 },
        requestReceivedTimestamp: ts(t), stageTimestamp: ts(t + 130),
      }),
    );
  }
  return out.join('\n') + '\n';
}

/** One etcd zap line per list: the whole pods prefix, 7,130 keys, 13,313,287 bytes (the Palark incident's line). */
function etcdLog(): string {
  const out: string[] = [];
  for (let i = 0; i < NODES; i++) {
    out.push(
      JSON.stringify({
        level: 'warn', ts: new Date(T0 + 10_000 + i * 500 + 120).toISOString(), caller: 'etcdserver/util.go:170', msg: 'apply request took too long',
        took: '130.768157ms', 'expected-duration': '100ms', prefix: 'read-only range ', request: 'key:"/registry/pods/" range_end:"/registry/pods0" ',
        response: 'range_response_count:7130 size:13313287',
      }),
    );
  }
  return out.join('\n') + '\n';
}

/**
 * Two dumps of one apiserver, 12:00:00 and 12:01:00: between them its 80 etcd lists of pods fetched 80 × 7130 =
 * 570,400 objects and returned 80 × 110 = 8,800 (fetched 713,000 → 1,283,400; returned 11,000 → 19,800; lists
 * 100 → 180); and 12 lists from the watch cache through the spec.nodeName index, 110 fetched and returned each.
 * Each release writes a resource's labels in its own form.
 */
function dumps(release: '1.29' | '1.34'): [string, string] {
  const pods = release === '1.29' ? 'resource="pods"' : 'group="",resource="pods"';
  const deps = release === '1.29' ? 'resource="deployments.apps"' : 'group="apps",resource="deployments"';
  const cache = release === '1.29' ? 'index="f:spec.nodeName",resource_prefix="/pods"' : 'group="",index="f:spec.nodeName",resource="pods"';
  const one = (lists: number, fetched: number, returned: number, cacheLists: number): string =>
    [
      '# HELP apiserver_request_total [STABLE] Counter of apiserver requests',
      '# TYPE apiserver_request_total counter',
      'apiserver_request_total{code="200",component="apiserver",resource="pods",verb="LIST"} 5000',
      '# HELP process_start_time_seconds [ALPHA] Start time of the process since unix epoch in seconds.',
      '# TYPE process_start_time_seconds gauge',
      'process_start_time_seconds 1.7965e+09',
      `kubernetes_build_info{build_date="2026-10-01T00:00:00Z",compiler="gc",git_commit="abc",git_tree_state="clean",git_version="v${release}.4",go_version="go1.24.1",major="1",minor="${release.slice(2)}",platform="linux/amd64"} 1`,
      '# TYPE apiserver_storage_objects gauge',
      `apiserver_storage_objects{${release === '1.29' ? pods : 'resource="pods"'}} 7130`,
      `apiserver_storage_objects{${release === '1.29' ? deps : 'resource="deployments.apps"'}} 400`,
      ...(release === '1.34' ? [`apiserver_resource_objects{${pods}} 7130`, `apiserver_resource_objects{${deps}} 400`, `apiserver_resource_size_estimate_bytes{${pods}} 13313287`] : []),
      '# TYPE apiserver_storage_list_total counter',
      `apiserver_storage_list_total{${pods}} ${lists}`,
      `apiserver_storage_list_fetched_objects_total{${pods}} ${fetched}`,
      `apiserver_storage_list_evaluated_objects_total{${pods}} ${fetched}`,
      `apiserver_storage_list_returned_objects_total{${pods}} ${returned}`,
      `apiserver_cache_list_total{${cache}} ${cacheLists}`,
      `apiserver_cache_list_fetched_objects_total{${cache}} ${cacheLists * 110}`,
      `apiserver_cache_list_returned_objects_total{${release === '1.29' ? 'resource_prefix="/pods"' : pods}} ${cacheLists * 110}`,
      '',
    ].join('\n');
  return [one(100, 713_000, 11_000, 40), one(180, 1_283_400, 19_800, 52)];
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-metrics-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function scan(args: string[]): Promise<any> {
  const r = await runCli(['-o', 'json', ...args]);
  expect(r.stderr).not.toMatch(/skipped/);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

const vector = (rep: any): any => rep.listGroups.find((g: any) => g.userAgent.startsWith('vector'));

describe('metrics dumps in place of the etcd log', () => {
  it('give the objects read per list and the amplification the etcd log gives', async () => {
    const withEtcd = await scan(['--kube-version', '1.29', folder({ 'audit.log': auditLog(), 'etcd.log': etcdLog() })]);
    const [a, b] = dumps('1.29');
    const withMetrics = await scan(['--kube-version', '1.29', folder({ 'audit.log': auditLog(), 'metrics-20261130T120000Z.txt': a, 'metrics-20261130T120100Z.txt': b })]);
    // 7130 read; 7130 ÷ 80 nodes = 89.1 returned (estimated per node); 7130 ÷ 89.1 = 80.0×
    for (const rep of [withEtcd, withMetrics]) expect(vector(rep)).toMatchObject({ requests: 80, servedFrom: { etcd: 80 }, objectsReadPerRequest: 7130, objectsReturnedPerRequest: 89.1, amplification: 80 });
    expect(vector(withEtcd).figureSources.objectsRead).toBe('etcd-log');
    expect(vector(withMetrics).figureSources.objectsRead).toBe('metrics');
    expect(withMetrics.method.measured).toContain("objects read per list: the apiserver's /metrics (apiserver_resource_objects or apiserver_storage_objects: the objects under the prefix a full list reads)");
    expect(withMetrics.inputs.map((i: any) => i.metricSamples)).toEqual([0, 11, 11]);
    expect(withMetrics.metrics).toMatchObject({ dumps: 2, apiservers: 1, kubernetesVersion: 'v1.29.4', deltasReason: null });
    // between the dumps: 80 lists, 570,400 fetched, 8,800 returned → 7130 and 110 per list, 64.8×
    expect(withMetrics.metrics.resources[0]).toEqual({
      resource: 'pods',
      objects: 7130,
      objectsAt: '2026-11-30T12:01:00.000Z',
      etcdLists: { lists: 80, fetchedPerList: 7130, returnedPerList: 110, amplification: 64.8, from: '2026-11-30T12:00:00.000Z', to: '2026-11-30T12:01:00.000Z', resets: 0 },
      // the kubelet-style index reads: 110 fetched for 110 returned
      cacheLists: { lists: 12, fetchedPerList: 110, returnedPerList: 110, amplification: 1, from: '2026-11-30T12:00:00.000Z', to: '2026-11-30T12:01:00.000Z', resets: 0 },
      sizeEstimateBytes: null,
    });
    // no list of deployments between the dumps: 0 lists, nothing per list
    expect(withMetrics.metrics.resources[1]).toMatchObject({ resource: 'deployments', objects: 400, etcdLists: { lists: 0, fetchedPerList: null } });
  });

  it('every format shows the metrics: the caption, a row per resource, the samples per input', async () => {
    const [a, b] = dumps('1.29');
    const dir = folder({ 'audit.log': auditLog(), 'metrics-20261130T120000Z.txt': a, 'metrics-20261130T120100Z.txt': b });
    const md = (await runCli(['-o', 'markdown', '--kube-version', '1.29', dir])).stdout;
    expect(md).toContain('## Apiserver metrics\n\n2 dumps of 1 apiserver (v1.29.4); lists between 2026-11-30 12:00:00 and 12:01:00 UTC.');
    expect(md).toContain('| pods | 7,130 | 80 | 7,130 | 110 | 64.8× | 12 |');
    expect(md).toContain('| 11 metric samples |');
    const html = (await runCli(['-o', 'html', '--kube-version', '1.29', dir])).stdout;
    expect(html).toContain('<h2 id="metrics">Apiserver metrics</h2>');
    const table = (await runCli(['--kube-version', '1.29', dir])).stdout;
    expect(table).toMatch(/pods\s+7,130\s+80\s+7,130\s+110\s+64\.8×\s+12/);
  });

  it('1.34 label sets: the same figures, the bytes from the size estimate, the version from the dumps', async () => {
    const [a, b] = dumps('1.34');
    const rep = await scan([folder({ 'audit.log': auditLog(), 'metrics-20261130T120000Z.txt': a, 'metrics-20261130T120100Z.txt': b })]);
    expect(rep.kubernetes).toMatchObject({ version: '1.34.4', source: 'metrics' });
    // 1.34 serves rv="" lists from the cache (consistent reads): the group reads no etcd, so no amplification
    expect(vector(rep)).toMatchObject({ servedFrom: { etcd: 0, cache: 80 }, amplification: null });
    expect(rep.metrics.resources[0]).toMatchObject({ resource: 'pods', objects: 7130, sizeEstimateBytes: 13313287, etcdLists: { lists: 80, fetchedPerList: 7130, returnedPerList: 110, amplification: 64.8 } });
    // told it is 1.30, the lists read etcd: 7130 objects, 13,313,287 bytes each, from the metrics
    const old = await scan(['--kube-version', '1.30', folder({ 'audit.log': auditLog(), 'metrics-20261130T120000Z.txt': a, 'metrics-20261130T120100Z.txt': b })]);
    expect(vector(old)).toMatchObject({ objectsReadPerRequest: 7130, bytesReadPerRequest: 13313287, amplification: 80, figureSources: { objectsRead: 'metrics', bytesRead: 'metrics' } });
  });

  it('one dump gives counts, no deltas, and says why', async () => {
    const [a] = dumps('1.29');
    const rep = await scan(['--kube-version', '1.29', folder({ 'audit.log': auditLog(), 'metrics.txt': a })]);
    expect(vector(rep)).toMatchObject({ objectsReadPerRequest: 7130, figureSources: { objectsRead: 'metrics' } });
    expect(rep.metrics.resources[0]).toMatchObject({ resource: 'pods', etcdLists: null });
    expect(rep.metrics.deltasReason).toMatch(/two|2/);
  });

  it('a Prometheus API query result is a dump too, its times from the samples', async () => {
    const result = (t: number, lists: number, fetched: number, returned: number): unknown => ({
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          { metric: { __name__: 'apiserver_storage_objects', resource: 'pods', instance: '10.0.0.1:443' }, value: [t, '7130'] },
          { metric: { __name__: 'apiserver_storage_list_total', resource: 'pods', instance: '10.0.0.1:443' }, value: [t, String(lists)] },
          { metric: { __name__: 'apiserver_storage_list_fetched_objects_total', resource: 'pods', instance: '10.0.0.1:443' }, value: [t, String(fetched)] },
          { metric: { __name__: 'apiserver_storage_list_returned_objects_total', resource: 'pods', instance: '10.0.0.1:443' }, value: [t, String(returned)] },
        ],
      },
    });
    const dir = folder({
      'audit.log': auditLog(),
      'q1.json': JSON.stringify(result(T0 / 1000, 100, 713_000, 11_000)),
      // pretty-printed, as `| jq .` leaves it
      'q2.json': JSON.stringify(result(T0 / 1000 + 60, 180, 1_283_400, 19_800), null, 2),
    });
    const rep = await scan(['--kube-version', '1.29', dir]);
    expect(rep.inputs.map((i: any) => i.metricSamples)).toEqual([0, 4, 4]);
    expect(rep.metrics.resources[0]).toMatchObject({ resource: 'pods', objects: 7130, etcdLists: { lists: 80, fetchedPerList: 7130, returnedPerList: 110, amplification: 64.8 } });
    expect(vector(rep).figureSources.objectsRead).toBe('metrics');
  });

  it('a dump of some other program is not the wrong file silently: it says what it is', async () => {
    const r = await runCli(['-o', 'json', folder({ 'node-exporter.txt': '# HELP node_cpu_seconds_total Seconds.\n# TYPE node_cpu_seconds_total counter\nnode_cpu_seconds_total{cpu="0",mode="idle"} 123.4\n' })]);
    const rep = JSON.parse(r.stdout);
    expect(rep.inputs[0]).toMatchObject({ skippedLines: 0, otherLines: 3, looksLike: expect.stringContaining('Prometheus metrics dump without the apiserver') });
  });
});
