// The report's /metrics table (which dumps are one apiserver, the rows' order and cut, why there are no deltas),
// the zap-sampling method note, the restart windows that move reads to etcd and the apiserver log's evidence.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addEtcdSamplingMethod, timeInName } from '../../src/analyze/report.js';
import { runCli, scanJson } from '../support.js';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-rme-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const AT0 = 'metrics-20261130T120000Z.txt';
const AT1 = 'metrics-20261130T120100Z.txt';
const FETCHED_MEASURE =
  'objects fetched and returned per etcd list, between two metrics dumps of one apiserver: apiserver_storage_list_fetched_objects_total and _returned_objects_total ÷ apiserver_storage_list_total (these count the limit:1 revision reads of consistent reads too)';
const AUDIT_MEASURE = 'requests, verbs, clients and times: the audit log (one request per auditID, however many stages)';

/** Exposition text of storage LIST counters: resource → [lists, fetched, returned]. */
const storage = (c: Record<string, [number, number, number]>): string[] =>
  Object.entries(c).flatMap(([r, [l, f, ret]]) => [
    `apiserver_storage_list_total{resource="${r}"} ${l}`,
    `apiserver_storage_list_fetched_objects_total{resource="${r}"} ${f}`,
    `apiserver_storage_list_returned_objects_total{resource="${r}"} ${ret}`,
  ]);
const gauges = (c: Record<string, number>): string[] => Object.entries(c).map(([r, n]) => `apiserver_storage_objects{resource="${r}"} ${n}`);
const text = (lines: string[]): string => lines.join('\n') + '\n';

describe('which dumps are one apiserver: its unlabelled process_start_time_seconds', () => {
  it('the first sample of a dump is no start time: two dumps of one process give deltas', async () => {
    // the counter comes first and grows; the start time (same in both) comes last
    const one = (lists: number, fetched: number): string => text([...storage({ pods: [lists, fetched, lists * 10] }), 'process_start_time_seconds 1796500000']);
    const { r } = await scanJson([folder({ [AT0]: one(100, 10_000), [AT1]: one(180, 18_000) })]);
    expect(r.metrics).toMatchObject({ dumps: 2, apiservers: 1, deltasReason: null });
    // 80 lists, 8000 fetched, 800 returned: 100 and 10 per list
    expect(r.metrics!.resources[0]).toMatchObject({ resource: 'pods', etcdLists: { lists: 80, fetchedPerList: 100, returnedPerList: 10, amplification: 10 } });
  });

  const NO_PAIR = 'no apiserver has two dumps at different times: counters give a rate only between two';
  it.each([
    ['started an hour apart', 'process_start_time_seconds 1796500000', 'process_start_time_seconds 1796503600'],
    ['started half a second apart', 'process_start_time_seconds 1796500000', 'process_start_time_seconds 1796500000.5'],
    // a start time labelled with an instance is that instance's, not the file's own apiserver
    ['the start time another instance’s', 'process_start_time_seconds{instance="10.0.0.1:6443"} 1796500000', 'process_start_time_seconds{instance="10.0.0.1:6443"} 1796500000'],
  ])('two dumps whose apiservers %s are two apiservers: no deltas', async (_name, a, b) => {
    const { r } = await scanJson([folder({ [AT0]: text([a, ...storage({ pods: [100, 10_000, 1000] })]), [AT1]: text([b, ...storage({ pods: [180, 18_000, 1800] })]) })]);
    expect(r.metrics).toMatchObject({ dumps: 2, apiservers: 2, deltasReason: NO_PAIR });
    expect(r.metrics!.resources[0]).toMatchObject({ resource: 'pods', etcdLists: null });
  });
});

describe('timeInName: the time in the file’s own name, not its folder’s', () => {
  it.each([
    ['metrics-20261130T120000Z.txt', Date.UTC(2026, 10, 30, 12, 0, 0)],
    ['/dumps/2026-11-30T12:01:02Z', Date.UTC(2026, 10, 30, 12, 1, 2)],
    ['/data/2025-01-01T00:00:00Z/metrics-20261130-120000.txt', Date.UTC(2026, 10, 30, 12, 0, 0)],
    ['/data/2025-01-01T00:00:00Z/metrics.txt', null],
    ['metrics.txt', null],
  ])('%s → %s', (name, want) => {
    expect(timeInName(name)).toBe(want);
  });
});

describe('the metrics table', () => {
  // Two dumps a minute apart. configmaps: 10 lists of 100 objects (1,000 fetched); secrets: 100 lists of 5 (500
  // fetched) though it stores more objects; services: listed by nobody in the minute, and no object gauge.
  const dumps = (): Record<string, string> => ({
    [AT0]: text(['process_start_time_seconds 1796500000', ...gauges({ configmaps: 100, secrets: 200 }), ...storage({ configmaps: [10, 1000, 100], secrets: [100, 500, 500], services: [3, 30, 30] })]),
    [AT1]: text(['process_start_time_seconds 1796500000', ...gauges({ configmaps: 100, secrets: 200 }), ...storage({ configmaps: [20, 2000, 200], secrets: [200, 1000, 1000], services: [3, 30, 30] })]),
  });

  it('most objects fetched from etcd first, not most lists or most objects; a resource nobody listed has no per-list figures', async () => {
    const { code, r } = await scanJson([folder(dumps())]);
    expect(code).toBe(0);
    expect(r.metrics!.deltasReason).toBeNull();
    expect(r.metrics!.resources.map((x) => x.resource)).toEqual(['configmaps', 'secrets', 'services']);
    expect(r.metrics!.resources[0]).toMatchObject({ objects: 100, etcdLists: { lists: 10, fetchedPerList: 100, returnedPerList: 10, amplification: 10 }, cacheLists: null });
    expect(r.metrics!.resources[1]).toMatchObject({ objects: 200, etcdLists: { lists: 100, fetchedPerList: 5, returnedPerList: 5, amplification: 1 } });
    expect(r.metrics!.resources[2]).toEqual({
      resource: 'services',
      objects: null,
      objectsAt: null,
      etcdLists: { lists: 0, fetchedPerList: null, returnedPerList: null, amplification: null, from: '2026-11-30T12:00:00.000Z', to: '2026-11-30T12:01:00.000Z', resets: 0 },
      cacheLists: null,
      sizeEstimateBytes: null,
    });
  });

  it('the method names the list counters it divided, in order', async () => {
    const { r } = await scanJson([folder({ ...dumps(), 'audit.log': '' })]);
    expect(r.method.measured).toEqual([FETCHED_MEASURE, AUDIT_MEASURE]);
  });

  it('one dump: no deltas, and the method does not claim them', async () => {
    const { r } = await scanJson([folder({ [AT0]: dumps()[AT0]! })]);
    expect(r.metrics!.resources.map((x) => x.etcdLists)).toEqual([null, null, null]);
    expect(r.metrics!.deltasReason).toBe('no apiserver has two dumps at different times: counters give a rate only between two');
    expect(r.method.measured).toEqual([AUDIT_MEASURE]);
  });

  it('watch-cache counters alone give deltas: no reason to give', async () => {
    const cache = (lists: number): string =>
      text(['process_start_time_seconds 1796500000', ...gauges({ pods: 50 }), `apiserver_cache_list_total{index="",resource_prefix="/pods"} ${lists}`, `apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/pods"} ${lists * 50}`, `apiserver_cache_list_returned_objects_total{resource_prefix="/pods"} ${lists * 5}`]);
    const { r } = await scanJson([folder({ [AT0]: cache(10), [AT1]: cache(30) })]);
    expect(r.metrics!.resources).toMatchObject([{ resource: 'pods', etcdLists: null, cacheLists: { lists: 20, fetchedPerList: 50, returnedPerList: 5, amplification: 10 } }]);
    expect(r.metrics!.deltasReason).toBeNull();
    expect(r.method.measured).toEqual([AUDIT_MEASURE]);
  });

  it('dumps that name no resource: no rows, and the reason says there were no list counters', async () => {
    const bare = text(['process_start_time_seconds 1796500000', 'apiserver_request_total{code="200",resource="pods",verb="LIST"} 5000', 'kubernetes_build_info{git_version="v1.30.2",major="1",minor="30"} 1']);
    const { r } = await scanJson([folder({ [AT0]: bare, [AT1]: bare })]);
    expect(r.metrics).toMatchObject({ dumps: 2, resources: [], deltasReason: 'no list counters in the dumps' });
    expect(r.method.measured).toEqual([AUDIT_MEASURE]);
  });

  // One dump, so nothing fetched between dumps: the rows go by objects (a count of 0 before none), then by name.
  it.each([
    [{ configmaps: 100, secrets: 50 }, ['configmaps', 'secrets']],
    [{ configmaps: 50, secrets: 100 }, ['secrets', 'configmaps']],
    [{ configmaps: 0 }, ['configmaps', 'secrets']],
    [{ secrets: 0 }, ['secrets', 'configmaps']],
    [{ configmaps: 7, secrets: 7 }, ['configmaps', 'secrets']],
    [{}, ['configmaps', 'secrets']],
  ])('objects %j: rows %j', async (objects, want) => {
    const { r } = await scanJson([folder({ [AT0]: text([...gauges(objects), ...storage({ secrets: [1, 1, 1], configmaps: [1, 1, 1] })]) })]);
    expect(r.metrics!.resources.map((x) => x.resource)).toEqual(want);
  });

  it.each([
    [3, 20],
    [22, 22],
    [30, 25],
  ])('--top %d shows %d of 25 resources (never fewer than 20)', async (top, want) => {
    const names = Array.from({ length: 25 }, (_, i) => `widgets${String(i).padStart(2, '0')}.example.com`);
    const { r } = await scanJson(['--top', String(top), folder({ [AT0]: text(names.map((n, i) => `apiserver_storage_objects{resource="${n}"} ${1000 - i}`)) })]);
    expect(r.metrics!.resources).toHaveLength(want);
    expect(r.metrics!.resources[want - 1]!.resource).toBe(`example.com/widgets${String(want - 1).padStart(2, '0')}`);
  });
});

describe('addEtcdSamplingMethod: where the zap logger may have dropped lines', () => {
  const T = Date.UTC(2026, 11, 2, 14, 0, 0);
  const spans = (n: number) => Array.from({ length: n }, (_, i) => ({ fromMs: T + i * 10_000, toMs: T + i * 10_000 + 2000, message: 'apply request took too long', lines: 100 + i }));
  const stretch = (i: number): string => `2026-12-02T14:00:${String(i * 10).padStart(2, '0')}Z to 14:00:${String(i * 10 + 2).padStart(2, '0')}Z (${100 + i} "apply request took too long" lines)`;
  const tail = ": a lower bound, as etcd's zap logger writes 100 lines of a message a second, then 1 in 100 (slow reads and writes share one message), and the log is that dense there";
  it.each([
    [3, `${stretch(0)}, ${stretch(1)}, ${stretch(2)}`],
    [4, `${stretch(0)}, ${stretch(1)}, ${stretch(2)}, 1 more stretch`],
    [5, `${stretch(0)}, ${stretch(1)}, ${stretch(2)}, 2 more stretches`],
  ])('%d stretches: the first three named, the rest counted', (n, where) => {
    const m = { measured: [], estimated: ['time gaps: at 1 place where the input was cut'], kubernetes: 'k' };
    addEtcdSamplingMethod(m, spans(n));
    expect(m.estimated).toEqual([`slow etcd reads ${where}${tail}`, 'time gaps: at 1 place where the input was cut']);
  });
});

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const ts = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');
let seq = 0;
function event(t: number, uri: string, ua: string, o: { code?: number; message?: string; verb?: string; resource?: string; namespace?: string; user?: string } = {}): string {
  return JSON.stringify({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: `e-${++seq}`, stage: 'ResponseComplete', requestURI: uri, verb: o.verb ?? 'list',
    user: { username: o.user ?? `system:serviceaccount:x:${ua.split('/')[0]}` }, userAgent: ua, objectRef: { resource: o.resource ?? 'pods', namespace: o.namespace, apiVersion: 'v1' },
    responseStatus: o.code === 429 ? { status: 'Failure', message: o.message, reason: 'TooManyRequests', code: 429 } : { code: o.code ?? 200 },
    requestReceivedTimestamp: ts(t), stageTimestamp: ts(t + 20),
  });
}

describe('the watch cache (re)initialising: the span of its 429s, from 1.31', () => {
  // pods answered 429 "storage is (re)initializing" at 12:05:30 and 12:05:31; a controller lists pods with a limit
  // and no selector (rv=0: the cache, by its query) at 12:01, inside that span (12:05:30.5) and at 12:09
  const log = (): string =>
    [
      event(T0 + 60_000, '/api/v1/pods?limit=500&resourceVersion=0', 'kcm/1'),
      event(T0 + 330_000, '/api/v1/pods?labelSelector=app%3Dv', 'vector/1', { code: 429, message: 'storage is (re)initializing' }),
      event(T0 + 330_500, '/api/v1/pods?limit=500&resourceVersion=0', 'kcm/1'),
      event(T0 + 331_000, '/api/v1/pods?labelSelector=app%3Dv', 'vector/1', { code: 429, message: 'storage is (re)initializing' }),
      event(T0 + 540_000, '/api/v1/pods?limit=500&resourceVersion=0', 'kcm/1'),
    ].join('\n') + '\n';
  const INIT = 'limit without selector while the watch cache (re)initialised after a restart (1.31+: delegated to etcd)';
  it.each([
    ['1.30', 0],
    ['1.31', 1],
    ['1.34', 1],
  ])('on %s, %d of the 3 lists read etcd', async (version, etcd) => {
    const { code, r } = await scanJson(['--kube-version', version, '-'], log());
    expect(code).toBe(0);
    const kcm = r.listGroups.find((g) => g.userAgent === 'kcm/1')!;
    expect(kcm.servedFrom).toEqual({ etcd, cache: 3 - etcd, unknown: 0, rejected: 0 });
    expect(kcm.reasons).toEqual(etcd === 0 ? { 'resourceVersion=0': 3 } : { [INIT]: etcd, 'resourceVersion=0': 3 - etcd });
  });
});

describe('continue pages in the minute after a restart read etcd from 1.34 only', () => {
  // a controller's get every 100 ms, 12:00:00–12:05:00 and 12:05:40–12:10:00; at 12:05:30 80 agents relist (the
  // apiserver restarted in the pause). A page of pods 5 s after it; its query alone says the cache
  // (resourceVersionMatch=NotOlderThan is served from the cache from 1.31).
  const log = (): string => {
    const evs: Array<[number, string]> = [];
    const get = (t: number): [number, string] => [t, event(t, '/api/v1/namespaces/a/configmaps/c', 'ctl/1', { verb: 'get', resource: 'configmaps', namespace: 'a' })];
    for (let t = T0; t <= T0 + 300_000; t += 100) evs.push(get(t));
    for (let t = T0 + 340_000; t <= T0 + 600_000; t += 100) evs.push(get(t));
    for (let i = 0; i < 80; i++) evs.push([T0 + 330_000 + i * 100, event(T0 + 330_000 + i * 100, `/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-${i}&limit=500&resourceVersion=0`, 'vector/1')]);
    evs.push([T0 + 335_000, event(T0 + 335_000, '/api/v1/pods?continue=abc&limit=500&resourceVersion=7&resourceVersionMatch=NotOlderThan', 'argo/3')]);
    return evs.sort((a, b) => a[0] - b[0]).map((e) => e[1]).join('\n') + '\n';
  };
  it.each([
    ['1.33', { 'resourceVersionMatch=NotOlderThan': 1 }],
    ['1.34', { 'continue token within a minute of this apiserver’s restart (1.34+: older than its new cache’s snapshots, so etcd)': 1 }],
  ])('on %s: %j', async (version, reasons) => {
    const { code, r } = await scanJson(['--kube-version', version, '-'], log());
    expect(code).toBe(0);
    expect(r.findings.some((f) => f.kind === 'apiserver-restart')).toBe(true);
    expect(r.listGroups.find((g) => g.userAgent === 'argo/3')!.reasons).toEqual(reasons);
  });
});

describe('the apiserver log beside the audit log', () => {
  let id = 0;
  /** An httplog line (-v=3) at 2026-11-30 12:00:00 + `s` seconds; `apf` the flow schema and priority level fields. */
  const httplog = (s: number, verb: string, uri: string, ua: string, apf = ''): string =>
    `I1130 12:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000000       1 httplog.go:132] "HTTP" verb="${verb}" URI="${uri}" latency="4ms" userAgent="${ua}" audit-ID="00000000-0000-4000-8000-${String(++id).padStart(12, '0')}" srcIP="10.0.1.1:40001"${apf} resp=200`;
  const FLAGS = ['--syslog-year', '2026', '--kube-version', '1.30'];

  it('joins the log to the audit group it matches, leaves the others alone; no priority level is null', async () => {
    const audit = [event(T0 + 1000, '/api/v1/pods', 'ksm/2'), event(T0 + 2000, '/api/v1/pods', 'ksm/2'), event(T0 + 3000, '/api/v1/secrets', 'other/1', { resource: 'secrets' })].join('\n') + '\n';
    const apiserver = [httplog(1, 'LIST', '/api/v1/pods', 'ksm/2'), httplog(2, 'LIST', '/api/v1/pods', 'ksm/2', ' apf_fs="service-accounts"')].join('\n') + '\n';
    const { code, r } = await scanJson([...FLAGS, folder({ 'audit.log': audit, 'kube-apiserver.log': apiserver })]);
    expect(code).toBe(0);
    expect(r.listGroups.find((g) => g.userAgent === 'ksm/2')!.apiserverLog).toEqual({ httplog: 2, trace: 0, timeout: 0, traced: 0, observedEtcd: 0, flowSchema: 'service-accounts', priorityLevel: null, sourceIPs: null });
    expect(r.listGroups.find((g) => g.userAgent === 'other/1')!.apiserverLog).toBeUndefined();
    expect(r.apiserverLog!.notInAudit).toBeNull();
  });

  // not in the audit log: most requests first, then by user agent, then by resource
  const E = { ua: 'c/1', uri: '/api/v1/pods', resource: 'pods', n: 5 };
  const A = { ua: 'a/1', uri: '/api/v1/configmaps', resource: 'configmaps', n: 3 };
  const B = { ua: 'a/1', uri: '/api/v1/secrets', resource: 'secrets', n: 3 };
  const C = { ua: 'b/1', uri: '/api/v1/configmaps', resource: 'configmaps', n: 3 };
  const D = { ua: 'a/1', uri: '/api/v1/pods', resource: 'pods', n: 2 };
  const F = { ua: 'd/1', uri: '/apis/apps/v1/deployments', resource: 'deployments.apps', n: 1 };
  it.each([
    ['in that order', [E, A, B, C, D, F]],
    ['in reverse', [F, D, C, B, A, E]],
    ['shuffled', [B, D, A, F, C, E]],
  ])('names the groups the audit log does not hold, whatever the log’s order (%s)', async (_name, order) => {
    let s = 0;
    const apiserver = order.flatMap((x) => Array.from({ length: x.n }, () => httplog(++s, 'LIST', x.uri, x.ua))).join('\n') + '\n';
    const { r } = await scanJson([...FLAGS, folder({ 'audit.log': event(T0, '/api/v1/nodes', 'z/1', { resource: 'nodes' }) + '\n', 'kube-apiserver.log': apiserver })]);
    expect(r.apiserverLog!.notInAudit).toEqual({
      requests: 17,
      groups: [E, A, B, C, D, F].map((x) => ({ verb: 'list', userAgent: x.ua, resource: x.resource, selector: '', requests: x.n, flowSchema: null })),
    });
  });

  // one client, one resource, as many requests: the verb, then the selector (none first) settle the order
  const G = { verb: 'GET', uri: '/api/v1/namespaces/x/pods/p' };
  const L = { verb: 'LIST', uri: '/api/v1/pods' };
  const S = { verb: 'LIST', uri: '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1' };
  it.each([
    ['get, list, list by node', [G, L, S]],
    ['list by node, list, get', [S, L, G]],
    ['list, list by node, get', [L, S, G]],
  ])('ties of client, resource and count do not follow the log’s order (%s)', async (_name, order) => {
    let s = 0;
    const apiserver = order.flatMap((x) => [httplog(++s, x.verb, x.uri, 'e/1'), httplog(++s, x.verb, x.uri, 'e/1')]).join('\n') + '\n';
    const { r } = await scanJson([...FLAGS, folder({ 'audit.log': event(T0, '/api/v1/nodes', 'z/1', { resource: 'nodes' }) + '\n', 'kube-apiserver.log': apiserver })]);
    expect(r.apiserverLog!.notInAudit!.requests).toBe(6);
    expect(r.apiserverLog!.notInAudit!.groups.map((g) => [g.verb, g.selector, g.requests])).toEqual([['get', '', 2], ['list', '', 2], ['list', 'spec.nodeName=<node>', 2]]);
  });

  it('names the 10 busiest of 12, and counts them all', async () => {
    let s = 0;
    // agent i lists pods i + 1 times: 1 + 2 + … + 12 = 78
    const apiserver = Array.from({ length: 12 }, (_, i) => Array.from({ length: i + 1 }, () => httplog(++s, 'LIST', '/api/v1/pods', `agent${String(i).padStart(2, '0')}/1`))).flat().join('\n') + '\n';
    const { r } = await scanJson([...FLAGS, folder({ 'audit.log': event(T0, '/api/v1/nodes', 'z/1', { resource: 'nodes' }) + '\n', 'kube-apiserver.log': apiserver })]);
    expect(r.apiserverLog!.notInAudit!.requests).toBe(78);
    expect(r.apiserverLog!.notInAudit!.groups.map((g) => [g.userAgent, g.requests])).toEqual(Array.from({ length: 10 }, (_, k) => [`agent${String(11 - k).padStart(2, '0')}/1`, 12 - k]));
  });

  it('a trace that shows etcd moves a read the rule puts in the cache (1.31 -v=2: rv="" lists, consistent from the cache)', async () => {
    const { r } = await scanJson(['--syslog-year', '2026', '--etcd-version', '3.5.13', 'fixtures/apiserver-log/seed/apiserver-1.31-v2.log']);
    const g = r.listGroups.find((x) => x.userAgent.startsWith('vector/') && x.resource === 'pods')!;
    expect(g.servedFrom).toMatchObject({ etcd: 16, cache: 0 });
    expect(g.reasons).toEqual({ "the apiserver's trace of the request shows its storage read etcd": 16 });
  });
});
