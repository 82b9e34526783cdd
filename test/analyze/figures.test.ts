// Where each figure of a list group comes from, with small logs whose answers follow by arithmetic: the etcd
// key a resource is stored under (built-in groups have none in the key, custom resources do), full reads against
// paged ones, the apiserver's own reads, and which audited responses may stand for the size of a full list.
import { describe, expect, it } from 'vitest';
import { auditLine, runCli } from '../support.js';
import type { GroupReport, ScanReport } from '../../src/analyze/report.js';

const T0 = Date.UTC(2026, 10, 30, 12);
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** n lists of `uri` by one client, a second apart, without resourceVersion unless the URI has one. */
function lists(prefix: string, n: number, uri: string, ref: Record<string, string>, extra: Record<string, unknown> = {}): string[] {
  return Array.from({ length: n }, (_, i) =>
    auditLine({ auditID: `${prefix}${i}`, requestURI: uri, objectRef: ref, user: { username: 'system:serviceaccount:ops:agent' }, userAgent: 'agent/1.0', requestReceivedTimestamp: at(i * 1000), stageTimestamp: at(i * 1000 + 40), ...extra }),
  );
}
/** etcd's "apply request took too long" for a read-only range, 20 ms after each list. */
function slow(n: number, request: string, response: string): string[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({ level: 'warn', ts: at(i * 1000 + 20), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '150ms', 'expected-duration': '100ms', prefix: 'read-only range ', request, response }),
  );
}
/** etcd's "request stats" for a Range (3.5+): the total keys in the range, even for a limited read. */
function stats(n: number, request: string, total: number, size: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({ level: 'warn', ts: at(i * 1000 + 21), caller: 'v3rpc/interceptor.go:197', msg: 'request stats', 'start time': at(i * 1000), 'time spent': '400ms', remote: '127.0.0.1:1', 'response type': '/etcdserverpb.KV/Range', 'request count': 0, 'request size': 40, 'response count': total, 'response size': size, 'request content': request }),
  );
}
/** The lines in time order, as one log stream of a cluster would carry them (etcd's lines of one read together). */
function inOrder(ls: string[]): string[] {
  const t = (l: string): number => Date.parse((JSON.parse(l) as { ts?: string; stageTimestamp?: string }).ts ?? (JSON.parse(l) as { stageTimestamp: string }).stageTimestamp);
  return [...ls].sort((a, b) => t(a) - t(b));
}
async function scan(linesIn: string[], args: string[] = []): Promise<ScanReport> {
  const r = await runCli(['-o', 'json', '--kube-version', '1.30', ...args, '-'], inOrder(linesIn).join('\n') + '\n');
  return JSON.parse(r.stdout) as ScanReport;
}
const group = (r: ScanReport, resource: string): GroupReport => r.listGroups.find((g) => g.resource === resource)!;

describe('the etcd key a list reads', () => {
  it('a custom resource is stored with its group: cilium.io/ciliumendpoints joins /registry/cilium.io/ciliumendpoints/', async () => {
    const r = await scan([
      ...lists('c', 10, '/apis/cilium.io/v2/ciliumendpoints', { resource: 'ciliumendpoints', apiGroup: 'cilium.io', apiVersion: 'v2' }),
      ...slow(10, 'key:"/registry/cilium.io/ciliumendpoints/" range_end:"/registry/cilium.io/ciliumendpoints0" ', 'range_response_count:5000 size:10000000'),
    ]);
    // an unfiltered list returns what it reads: 5,000 read, 5,000 returned, 1×
    expect(group(r, 'ciliumendpoints')).toMatchObject({
      servedFrom: { etcd: 10, cache: 0 },
      objectsReadPerRequest: 5000,
      objectsReturnedPerRequest: 5000,
      bytesReadPerRequest: 10_000_000,
      bytesReadTotal: 100_000_000,
      amplification: 1,
      estimated: false,
      figureSources: { objectsRead: 'etcd-log', objectsReturned: 'unfiltered-list', bytesRead: 'etcd-log' },
    });
  });

  it('a built-in group is not in the key: apps/deployments joins /registry/deployments/, not /registry/apps/deployments/', async () => {
    const r = await scan([
      ...lists('d', 4, '/apis/apps/v1/deployments?labelSelector=app%3Dx', { resource: 'deployments', apiGroup: 'apps', apiVersion: 'v1' }),
      ...slow(4, 'key:"/registry/deployments/" range_end:"/registry/deployments0" ', 'range_response_count:800 size:1600000'),
      // a read of the wrong key must not be joined
      ...slow(4, 'key:"/registry/apps/deployments/" range_end:"/registry/apps/deployments0" ', 'range_response_count:9 size:9'),
    ]);
    // a label selector: etcd reads all 800, the count returned is unknown at Metadata level
    expect(group(r, 'deployments')).toMatchObject({ objectsReadPerRequest: 800, bytesReadPerRequest: 1_600_000, objectsReturnedPerRequest: null, amplification: null, figureSources: { objectsRead: 'etcd-log', objectsReturned: null, bytesRead: 'etcd-log' } });
  });

  it('a CRD group that ends in k8s.io keeps its group: gateway.networking.k8s.io/httproutes', async () => {
    const r = await scan([
      ...lists('h', 3, '/apis/gateway.networking.k8s.io/v1/httproutes', { resource: 'httproutes', apiGroup: 'gateway.networking.k8s.io', apiVersion: 'v1' }),
      ...slow(3, 'key:"/registry/gateway.networking.k8s.io/httproutes/" range_end:"/registry/gateway.networking.k8s.io/httproutes0" ', 'range_response_count:120 size:240000'),
    ]);
    expect(group(r, 'httproutes').objectsReadPerRequest).toBe(120);
  });

  it('renamed built-ins: networking.k8s.io ingresses are under /registry/ingress/, nodes under /registry/minions/', async () => {
    const r = await scan([
      ...lists('i', 2, '/apis/networking.k8s.io/v1/ingresses', { resource: 'ingresses', apiGroup: 'networking.k8s.io', apiVersion: 'v1' }),
      ...slow(2, 'key:"/registry/ingress/" range_end:"/registry/ingress0" ', 'range_response_count:40 size:80000'),
      ...lists('n', 2, '/api/v1/nodes', { resource: 'nodes', apiVersion: 'v1' }),
      ...slow(2, 'key:"/registry/minions/" range_end:"/registry/minions0" ', 'range_response_count:65 size:650000'),
    ]);
    expect(group(r, 'ingresses').objectsReadPerRequest).toBe(40);
    expect(group(r, 'nodes').objectsReadPerRequest).toBe(65);
  });
});

describe('full reads, paged reads and what stands for a full list', () => {
  const cm = { resource: 'configmaps', apiVersion: 'v1' };

  it('paged reads alone: the total keys from request stats, bytes estimated from the bytes per object of the pages', async () => {
    const r = await scan([
      ...lists('p', 5, '/api/v1/configmaps?limit=500', cm),
      ...slow(5, 'key:"/registry/configmaps/" range_end:"/registry/configmaps0" limit:500 ', 'range_response_count:500 size:1000000'),
      ...stats(5, 'key:"/registry/configmaps/" range_end:"/registry/configmaps0" limit:500 ', 3000, 1000000),
    ]);
    // 3,000 keys in the range (request stats); 1,000,000 B for 500 objects = 2,000 B each, so 3,000 × 2,000 = 6 MB
    expect(group(r, 'configmaps')).toMatchObject({ objectsReadPerRequest: 3000, bytesReadPerRequest: 6_000_000, estimated: true, figureSources: { objectsRead: 'etcd-log', bytesRead: 'estimate-bytes-per-object' } });
    expect(r.etcdRanges[0]).toMatchObject({ key: '/registry/configmaps/', limited: true, reads: 5 });
  });

  it('bytes per object come from reads of the same resource only', async () => {
    const r = await scan([
      ...lists('p', 5, '/api/v1/configmaps?limit=500', cm),
      ...slow(5, 'key:"/registry/configmaps/" range_end:"/registry/configmaps0" limit:500 ', 'range_response_count:500 size:1000000'),
      ...stats(5, 'key:"/registry/configmaps/" range_end:"/registry/configmaps0" limit:500 ', 3000, 1000000),
      // secrets at 100 kB each: not configmaps' size
      ...slow(3, 'key:"/registry/secrets/" range_end:"/registry/secrets0" ', 'range_response_count:10 size:1000000'),
    ]);
    expect(group(r, 'configmaps')).toMatchObject({ objectsReadPerRequest: 3000, bytesReadPerRequest: 6_000_000 });
  });

  it('a full read wins over paged ones of the same range', async () => {
    const r = await scan([
      ...lists('f', 2, '/api/v1/configmaps', cm),
      ...slow(2, 'key:"/registry/configmaps/" range_end:"/registry/configmaps0" ', 'range_response_count:2900 size:5800000'),
      ...stats(2, 'key:"/registry/configmaps/" range_end:"/registry/configmaps0" limit:500 ', 3000, 1000000),
    ]);
    expect(group(r, 'configmaps')).toMatchObject({ objectsReadPerRequest: 2900, bytesReadPerRequest: 5_800_000, figureSources: { objectsRead: 'etcd-log', bytesRead: 'etcd-log' } });
  });

  it('--objects replaces what etcd said and marks the figures estimated; bytes follow the bytes per object seen', async () => {
    const r = await scan(
      [...lists('g', 2, '/api/v1/configmaps', cm), ...slow(2, 'key:"/registry/configmaps/" range_end:"/registry/configmaps0" ', 'range_response_count:100 size:200000')],
      ['--objects', 'configmaps=300'],
    );
    expect(group(r, 'configmaps')).toMatchObject({ objectsReadPerRequest: 300, bytesReadPerRequest: 600_000, estimated: true, figureSources: { objectsRead: 'given', bytesRead: 'estimate-bytes-per-object' } });
  });

  // A RequestResponse list stands for the size of the whole resource only if nothing narrowed it.
  const resp = (items: number, remaining?: number) => ({ level: 'RequestResponse', responseObject: { kind: 'ConfigMapList', metadata: remaining === undefined ? {} : { remainingItemCount: remaining }, items: Array.from({ length: items }, () => ({})) } });
  it.each([
    ['an unpaginated, unfiltered, cluster-wide list of 7', '/api/v1/configmaps', cm, resp(7), 7],
    ['a first page of 5 with 20 remaining', '/api/v1/configmaps?limit=5', cm, resp(5, 20), 25],
    ['a page of 4 under its limit of 5: the last page, so the whole list', '/api/v1/configmaps?limit=5', cm, resp(4), 4],
    ['a full page of 5 with no count of the rest: not known to be whole', '/api/v1/configmaps?limit=5', cm, resp(5), null],
    ['a list with a selector', '/api/v1/configmaps?labelSelector=a%3Db', cm, resp(7), null],
    ['a namespaced list', '/api/v1/namespaces/a/configmaps', { ...cm, namespace: 'a' }, resp(7), null],
    ['a continue page', '/api/v1/configmaps?continue=x&limit=5', cm, resp(3), null],
  ])('%s → %s objects for the resource', async (_what, uri, ref, extra, want) => {
    // The audited list tells the size; a second client's list without resourceVersion (etcd) shows whether it was used.
    const r = await scan([...lists('a', 1, uri, ref, extra), ...lists('b', 1, '/api/v1/configmaps', cm, { user: { username: 'other' }, userAgent: 'other/1' })]);
    const other = r.listGroups.find((g) => g.userAgent === 'other/1')!;
    expect(other.objectsReadPerRequest).toBe(want);
    if (want !== null) expect(other.figureSources.objectsRead).toBe('audit-full-list');
  });

  it('the etcd log’s figure wins over an audited full list; a namespaced list never takes the whole resource’s size', async () => {
    const full = lists('a', 1, '/api/v1/configmaps', cm, resp(7));
    // another client's etcd lists, with etcd's own count of 50
    const withEtcd = await scan([...full, ...lists('b', 2, '/api/v1/configmaps', cm, { user: { username: 'other' }, userAgent: 'other/1' }), ...slow(2, 'key:"/registry/configmaps/" range_end:"/registry/configmaps0" ', 'range_response_count:50 size:5000')]);
    expect(withEtcd.listGroups.find((g) => g.userAgent === 'other/1')).toMatchObject({ objectsReadPerRequest: 50, figureSources: { objectsRead: 'etcd-log' } });
    // a namespaced list: the 7 of the whole resource say nothing of one namespace; etcd reads of another
    // namespace give no objects and no bytes either
    const ns = await scan([
      ...full,
      ...lists('c', 2, '/api/v1/namespaces/shop/configmaps', { ...cm, namespace: 'shop' }, { user: { username: 'other' }, userAgent: 'other/1' }),
      ...slow(2, 'key:"/registry/configmaps/elsewhere/" range_end:"/registry/configmaps/elsewhere0" ', 'range_response_count:10 size:1000'),
    ]);
    expect(ns.listGroups.find((g) => g.userAgent === 'other/1')).toMatchObject({ namespace: 'shop', objectsReadPerRequest: null, bytesReadPerRequest: null, figureSources: { objectsRead: null, bytesRead: null } });
  });

  it('returned objects: measured from RequestResponse, or for a per-node selector the objects ÷ the nodes seen', async () => {
    const pods = { resource: 'pods', apiVersion: 'v1' };
    const perNode = Array.from({ length: 4 }, (_, i) =>
      auditLine({ auditID: `v${i}`, requestURI: `/api/v1/pods?fieldSelector=spec.nodeName%3Dn${i}`, objectRef: pods, user: { username: 'system:serviceaccount:vector:vector' }, userAgent: 'vector/1', requestReceivedTimestamp: at(i * 1000), stageTimestamp: at(i * 1000 + 40) }),
    );
    const r = await scan([...perNode, ...slow(4, 'key:"/registry/pods/" range_end:"/registry/pods0" ', 'range_response_count:1000 size:2000000')]);
    // 1,000 pods on 4 nodes: 250 returned each (estimated), 1,000 / 250 = 4×
    expect(group(r, 'pods')).toMatchObject({ nodes: 4, objectsReturnedPerRequest: 250, amplification: 4, estimated: true, figureSources: { objectsReturned: 'estimate-objects-per-node' } });
    const measured = await scan([...perNode.map((l) => l.replace('"level":"Metadata"', '"level":"RequestResponse","responseObject":{"kind":"PodList","metadata":{},"items":[{},{}]}')), ...slow(4, 'key:"/registry/pods/" range_end:"/registry/pods0" ', 'range_response_count:1000 size:2000000')]);
    expect(group(measured, 'pods')).toMatchObject({ objectsReturnedPerRequest: 2, amplification: 500, estimated: false, figureSources: { objectsReturned: 'audit-response' } });
  });

  it('a metadata.name selector in a namespace reads one key: 1 read, 1 returned', async () => {
    const r = await scan(lists('s', 3, '/api/v1/namespaces/a/configmaps?fieldSelector=metadata.name%3Dx', { ...cm, namespace: 'a' }));
    expect(group(r, 'configmaps')).toMatchObject({ objectsReadPerRequest: 1, objectsReturnedPerRequest: 1, amplification: 1, figureSources: { objectsRead: 'single-object', objectsReturned: 'single-object' } });
  });

  it('a metadata.name selector across namespaces reads the whole prefix (KeyFunc needs the namespace): no one-key figures', async () => {
    const r = await scan(lists('s', 3, '/api/v1/configmaps?fieldSelector=metadata.name%3Dx', cm));
    expect(group(r, 'configmaps')).toMatchObject({ objectsReadPerRequest: null, amplification: null, figureSources: { objectsRead: null } });
  });
});

describe("the apiserver's own etcd reads are counted apart, by reason", () => {
  it.each([
    ['key:"/registry/pods/" range_end:"/registry/pods0" count_only:true ', 'count_only (object-count polling)'],
    ['key:"/registry/pods/" range_end:"/registry/pods0" limit:1 ', 'limit:1 (current-revision fetch)'],
    ['key:"/registry/health" ', 'health check'],
    ['key:"compact_rev_key" ', 'compaction'],
    ['key:"/registry/masterleases/" range_end:"/registry/masterleases0" ', 'endpoint reconciler'],
  ])('%s → %s', async (request, reason) => {
    const r = await scan(slow(2, request, 'range_response_count:1 size:10'));
    expect(r.totals).toMatchObject({ etcdSlowRanges: 0, etcdInternalRanges: 2, etcdInternalByReason: { [reason]: 2 } });
  });

  it('a limit of 2 is a client page, not the current-revision fetch', async () => {
    const r = await scan(slow(2, 'key:"/registry/pods/" range_end:"/registry/pods0" limit:2 ', 'range_response_count:2 size:10'));
    expect(r.totals).toMatchObject({ etcdSlowRanges: 2, etcdInternalRanges: 0 });
  });

  it('the health key under another --etcd-prefix', async () => {
    const r = await scan(slow(1, 'key:"/kubernetes.io/health" ', 'range_response_count:1 size:10'), ['--etcd-prefix', '/kubernetes.io']);
    expect(r.totals.etcdInternalByReason).toEqual({ 'health check': 1 });
  });
});

describe('which etcd lines are one read', () => {
  const apply = (ms: number, limit: number, count: number) =>
    JSON.stringify({ level: 'warn', ts: at(ms), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '150ms', 'expected-duration': '100ms', prefix: 'read-only range ', request: `key:"/registry/pods/" range_end:"/registry/pods0" ${limit > 0 ? `limit:${limit} ` : ''}`, response: `range_response_count:${count} size:${count * 10}` });
  const trace = (ms: number, count: number) =>
    JSON.stringify({ level: 'info', ts: at(ms), caller: 'traceutil/trace.go:171', msg: 'trace[7] range', detail: `{range_begin:/registry/pods/; range_end:/registry/pods0; response_count:${count}; response_revision:9; }`, duration: '150ms', start: at(ms - 150), end: at(ms), steps: [] });

  it('an apply line and its trace line 1 ms apart are one read', async () => {
    const r = await scan([apply(0, 0, 700), trace(1, 700)]);
    expect(r.etcdRanges.map((e) => [e.limited, e.reads, e.objectsPerRead])).toEqual([[false, 1, 700]]);
  });

  it('a full read and a page of the same range 1 ms apart are two reads, each with its own count', async () => {
    const r = await scan([apply(0, 0, 700), ...stats(1, 'key:"/registry/pods/" range_end:"/registry/pods0" limit:500 ', 700, 5000)]);
    expect(r.etcdRanges.map((e) => [e.limited, e.reads]).sort()).toEqual([[false, 1], [true, 1]]);
  });

  it('lines more than 50 ms apart, or with different counts, are two reads', async () => {
    expect((await scan([apply(0, 0, 700), trace(51, 700)])).totals.etcdSlowRanges).toBe(2);
    expect((await scan([apply(0, 0, 700), trace(50, 700)])).totals.etcdSlowRanges).toBe(1);
    expect((await scan([apply(0, 0, 700), trace(1, 699)])).totals.etcdSlowRanges).toBe(2);
  });
});

describe('which etcd reads a list group is joined with', () => {
  const pods = { resource: 'pods', apiVersion: 'v1' };
  /** one apply line per time (ms from 12:00:00), each read returning `count` objects */
  const slowAt = (times: number[], request: string, count: number): string[] =>
    times.map((ms) => JSON.stringify({ level: 'warn', ts: at(ms), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '150ms', 'expected-duration': '100ms', prefix: 'read-only range ', request, response: `range_response_count:${count} size:${count * 1000}` }));
  const ALL = 'key:"/registry/pods/" range_end:"/registry/pods0" ';
  const sec = (s: number) => s * 1000;
  // the group lists at 12:00:00–12:00:09 (minute M); its window is minutes M-1 to M+1
  const inMinus1 = slowAt([sec(-50), sec(-40), sec(-30), sec(-20)], ALL, 1000); // 11:59:10–11:59:40
  const inPlus1 = slowAt([sec(110), sec(111), sec(112), sec(113)], ALL, 3000); // 12:01:50–12:01:53
  const outMinus2 = slowAt([sec(-70), sec(-69), sec(-68), sec(-67)], ALL, 100_000); // 11:58:50–11:58:53
  const outPlus2 = slowAt([sec(130), sec(131), sec(132), sec(133)], ALL, 100_000); // 12:02:10–12:02:13

  it('reads from the minute before the group’s first request to the minute after its last, and no others', async () => {
    const r = await scan([...lists('p', 10, '/api/v1/pods', pods), ...inMinus1, ...inPlus1, ...outMinus2, ...outPlus2]);
    // (4 × 1,000 + 4 × 3,000) / 8 = 2,000; the 8 reads of 100,000 two minutes away are another client's
    expect(group(r, 'pods')).toMatchObject({ objectsReadPerRequest: 2000, bytesReadPerRequest: 2_000_000, figureSources: { objectsRead: 'etcd-log' } });
  });

  it('with no read in that window, reads at any time stand for it', async () => {
    const r = await scan([...lists('p', 10, '/api/v1/pods', pods), ...slowAt([sec(-70), sec(130)], ALL, 100_000), ...slowAt([sec(200)], ALL, 40_000)]);
    // (100,000 + 100,000 + 40,000) / 3 = 80,000
    expect(group(r, 'pods').objectsReadPerRequest).toBe(80_000);
  });

  it('a namespaced list joins the reads of its own namespace, not of another', async () => {
    const r = await scan([
      ...lists('p', 4, '/api/v1/namespaces/shop/pods', { ...pods, namespace: 'shop' }),
      ...slowAt([sec(0) + 20, sec(1) + 20], 'key:"/registry/pods/shop/" range_end:"/registry/pods/shop0" ', 300),
      ...slowAt([sec(2) + 20, sec(3) + 20], 'key:"/registry/pods/other/" range_end:"/registry/pods/other0" ', 9000),
      ...slowAt([sec(2) + 30], ALL, 50_000),
    ]);
    expect(group(r, 'pods')).toMatchObject({ namespace: 'shop', objectsReadPerRequest: 300, objectsReturnedPerRequest: 300, amplification: 1 });
  });

  it('the apiserver’s own reads of the range (count_only) are not a client’s list', async () => {
    const r = await scan([...lists('p', 2, '/api/v1/pods', pods), ...slowAt([20, 1020], ALL, 500), ...slowAt([520], `${ALL}count_only:true `, 0)]);
    expect(group(r, 'pods').objectsReadPerRequest).toBe(500);
    expect(r.totals).toMatchObject({ etcdSlowRanges: 2, etcdInternalRanges: 1 });
  });
});
