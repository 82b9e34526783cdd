// The report's figure derivations and findings, one rule at a time, on small logs whose every figure is worked
// out by hand: which etcd reads stand for a group's lists (time window, scope, namespaces), what --objects and
// full lists give, the per-node estimate, each part of a finding's sentence, and the totals.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLine, findingsOf, runCli } from '../support.js';
import { etcdSupportsProgressNotify, type ScanReport } from '../../src/analyze/report.js';

const T = Date.UTC(2026, 10, 30, 12, 10, 30); // the lists' minute is 12:10
const iso = (ms: number) => new Date(ms).toISOString();
let seq = 0;
const VECTOR = { userAgent: 'vector/0.34.1', user: { username: 'system:serviceaccount:vector:vector' } };
function lists(n: number, f: Record<string, unknown> = {}, fromMs = T): string[] {
  return Array.from({ length: n }, (_, i) =>
    auditLine({
      auditID: `r${seq++}`,
      verb: 'list',
      requestURI: `/api/v1/pods?fieldSelector=spec.nodeName%3Dn${i % 2}`,
      objectRef: { resource: 'pods', apiVersion: 'v1' },
      ...VECTOR,
      requestReceivedTimestamp: iso(fromMs + i * 10),
      stageTimestamp: iso(fromMs + i * 10 + 5),
      ...f,
    }),
  );
}
function read(ms: number | null, key: string, end: string, count: number, size: number, extra = ''): string {
  return JSON.stringify({ level: 'warn', ...(ms === null ? {} : { ts: iso(ms) }), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '120.5ms', 'expected-duration': '100ms', prefix: 'read-only range ', request: `key:${JSON.stringify(key)} range_end:${JSON.stringify(end)} ${extra}`, response: `range_response_count:${count} size:${size}` });
}
const allPods = (ms: number | null, count: number, size = count * 1900) => read(ms, '/registry/pods/', '/registry/pods0', count, size);
async function scan(lines: string[], args: string[] = []): Promise<ScanReport> {
  const r = await runCli(['-o', 'json', '--kube-version', '1.30', ...args, '-'], lines.join('\n') + '\n');
  return JSON.parse(r.stdout) as ScanReport;
}
const vectorGroup = (r: ScanReport) => r.listGroups.find((g) => g.userAgent === 'vector/0.34.1')!;

describe('which etcd reads stand for a group', () => {
  it('reads in the minutes of the group ±1 (12:09–12:11) are preferred; earlier and later ones are not used', async () => {
    const r = await scan([...lists(10), allPods(Date.UTC(2026, 10, 30, 12, 8, 59, 900), 500), allPods(Date.UTC(2026, 10, 30, 12, 9, 0), 7000), allPods(Date.UTC(2026, 10, 30, 12, 11, 59, 900), 7000), allPods(Date.UTC(2026, 10, 30, 12, 12, 0), 900)]);
    expect(vectorGroup(r)).toMatchObject({ objectsReadPerRequest: 7000, bytesReadPerRequest: 13_300_000, figureSources: { objectsRead: 'etcd-log', bytesRead: 'etcd-log' } });
  });

  it('with none in the window, any read of the range: (500 + 900) / 2 = 700', async () => {
    const r = await scan([...lists(10), allPods(Date.UTC(2026, 10, 30, 12, 8, 0), 500), allPods(Date.UTC(2026, 10, 30, 12, 13, 0), 900)]);
    expect(vectorGroup(r)).toMatchObject({ objectsReadPerRequest: 700, bytesReadPerRequest: 1_330_000 });
  });

  it('a read whose time is not plausible (1901) counts as in the window: (7,000 + 1,000) / 2 = 4,000', async () => {
    const r = await scan([...lists(10), allPods(Date.UTC(2026, 10, 30, 12, 10, 0), 7000), allPods(Date.UTC(1, 0, 1), 1000), allPods(Date.UTC(2026, 10, 30, 12, 0, 0), 50)]);
    expect(vectorGroup(r)).toMatchObject({ objectsReadPerRequest: 4000 });
  });

  it('a namespace list is matched with reads of its namespaces only', async () => {
    const nsList = (ns: string) => ({ requestURI: `/api/v1/namespaces/${ns}/pods`, objectRef: { resource: 'pods', namespace: ns, apiVersion: 'v1' } });
    const reads = [read(T, '/registry/pods/shop/', '/registry/pods/shop0', 40, 4000), read(T + 200, '/registry/pods/pay/', '/registry/pods/pay0', 60, 6000), read(T + 400, '/registry/pods/other/', '/registry/pods/other0', 900, 90_000), allPods(T + 600, 7000)];
    const one = vectorGroup(await scan([...lists(10, nsList('shop')), ...reads]));
    expect(one).toMatchObject({ namespace: 'shop', namespaces: 1, objectsReadPerRequest: 40, bytesReadPerRequest: 4000, objectsReturnedPerRequest: 40, amplification: 1 });
    const two = vectorGroup(await scan([...lists(5, nsList('shop')), ...lists(5, nsList('pay')), ...reads]));
    expect(two).toMatchObject({ namespace: '*', namespaces: 2, objectsReadPerRequest: 50, bytesReadPerRequest: 5000 });
  });

  it('apiserver-internal reads of the range do not stand for a client list', async () => {
    const r = await scan([...lists(10), read(T, '/registry/pods/', '/registry/pods0', 7000, 13_300_000, 'count_only:true '), allPods(T + 500, 300)]);
    expect(vectorGroup(r)).toMatchObject({ objectsReadPerRequest: 300 });
  });
});

describe('what stands for the objects read when etcd did not say', () => {
  it('--objects by resource name, or by group/resource for a custom resource; marked estimated', async () => {
    const given = vectorGroup(await scan(lists(10), ['--objects', 'pods=1000']));
    // no etcd log: no bytes per object to scale, so no bytes
    expect(given).toMatchObject({ objectsReadPerRequest: 1000, bytesReadPerRequest: null, estimated: true, figureSources: { objectsRead: 'given', bytesRead: null } });
    // with a read of the resource: 1,000 × (13,300,000 / 7,000) = 1,900,000 B per list
    const scaled = vectorGroup(await scan([...lists(10), allPods(T - 3_600_000, 7000)], ['--objects', 'pods=1000']));
    expect(scaled).toMatchObject({ objectsReadPerRequest: 1000, bytesReadPerRequest: 1_900_000, bytesReadTotal: 19_000_000, figureSources: { objectsRead: 'given', bytesRead: 'estimate-bytes-per-object' } });
    const cr = { verb: 'list', requestURI: '/apis/cilium.io/v2/ciliumendpoints', objectRef: { resource: 'ciliumendpoints', apiGroup: 'cilium.io', apiVersion: 'v2' } };
    for (const flag of ['cilium.io/ciliumendpoints=300', 'ciliumendpoints=300']) {
      const g = (await scan(lists(10, cr), ['--objects', flag])).listGroups[0]!;
      expect(g).toMatchObject({ resource: 'ciliumendpoints', apiGroup: 'cilium.io', objectsReadPerRequest: 300, objectsReturnedPerRequest: 300, amplification: 1, figureSources: { objectsRead: 'given', objectsReturned: 'unfiltered-list' } });
    }
  });

  it('a full list seen at RequestResponse level gives the count for an unfiltered etcd list', async () => {
    const full = auditLine({ auditID: 'full-1', verb: 'list', level: 'RequestResponse', requestURI: '/api/v1/pods?resourceVersion=0', objectRef: { resource: 'pods', apiVersion: 'v1' }, user: { username: 'system:kube-scheduler' }, userAgent: 'kube-scheduler/v1.30.2', responseObject: { kind: 'PodList', items: Array.from({ length: 25 }, (_, i) => ({ metadata: { name: `p${i}` } })) }, requestReceivedTimestamp: iso(T - 1000), stageTimestamp: iso(T - 900) });
    const g = vectorGroup(await scan([full, ...lists(10, { requestURI: '/api/v1/pods' })]));
    expect(g).toMatchObject({ selector: '', objectsReadPerRequest: 25, objectsReturnedPerRequest: 25, amplification: 1, figureSources: { objectsRead: 'audit-full-list', objectsReturned: 'unfiltered-list' } });
  });

  it('the per-node estimate divides by the nodes of the cluster when more than the group saw', async () => {
    const kubelets = Array.from({ length: 10 }, (_, i) => auditLine({ auditID: `k${i}`, verb: 'get', requestURI: `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n${i}`, objectRef: { resource: 'leases', namespace: 'kube-node-lease', name: `n${i}`, apiGroup: 'coordination.k8s.io' }, user: { username: `system:node:n${i}` }, userAgent: 'kubelet/v1.30.2', requestReceivedTimestamp: iso(T), stageTimestamp: iso(T + 1) }));
    // vector on 2 nodes; the cluster has 10: 7,000 / 10 = 700 returned, 10× amplification
    const g = vectorGroup(await scan([...kubelets, ...lists(10), allPods(T, 7000)]));
    expect(g).toMatchObject({ nodes: 2, objectsReturnedPerRequest: 700, amplification: 10, estimated: true, figureSources: { objectsReturned: 'estimate-objects-per-node' } });
    // on its own: 7,000 / 2
    expect(vectorGroup(await scan([...lists(10), allPods(T, 7000)]))).toMatchObject({ objectsReturnedPerRequest: 3500, amplification: 2 });
  });
});

describe('a finding, part by part', () => {
  const reads = [allPods(T, 7000, 13_313_287)];
  it('the whole sentence: who, how many lists from how many nodes, what each read, the ratio, the bytes, estimated', async () => {
    const r = await scan([...lists(20), ...reads]);
    expect(r.findings[0]).toMatchObject({
      kind: 'etcd-list-amplification',
      // 20 from etcd, 2×, 266 MB: under every threshold of severityOf (100 lists, 10×, 1 GB)
      severity: 'low',
      summary: 'vector (system:serviceaccount:vector:vector) sent 20 pod lists from 2 nodes without resourceVersion; each read 7,000 pods (13.3 MB) from etcd to return ~3,500: 2× amplification, 266 MB read (estimated)',
      client: 'vector',
      resource: 'pods',
      requests: 20,
      etcdRequests: 20,
      nodes: 2,
      amplification: 2,
      bytesReadTotal: 266_265_740,
      estimated: true,
    });
  });

  it('some with resourceVersion: "(n without resourceVersion)"; one node: no "from"; a custom resource: resource.group', async () => {
    const cr = (rv: string | null) => ({ requestURI: `/apis/cilium.io/v2/ciliumendpoints${rv === null ? '' : `?resourceVersion=${rv}&resourceVersionMatch=Exact`}`, objectRef: { resource: 'ciliumendpoints', apiGroup: 'cilium.io', apiVersion: 'v2' }, user: { username: 'system:serviceaccount:kube-system:cilium' }, userAgent: 'cilium-agent/1.15' });
    const r = await scan([...lists(5, cr(null)), ...lists(10, cr('100'))]);
    expect(r.findings[0]).toMatchObject({ kind: 'list-from-etcd', resource: 'ciliumendpoints.cilium.io', summary: 'cilium-agent (system:serviceaccount:kube-system:cilium) sent 15 ciliumendpoint lists (5 without resourceVersion); 15 were served from etcd; the etcd log does not show how much each read (pass the etcd log or --objects).' });
  });

  it('a client whose name is its username is named once', async () => {
    const r = await scan(lists(12, { userAgent: '', user: { username: 'alice' }, requestURI: '/api/v1/pods' }));
    expect(r.findings[0]!.summary.startsWith('alice sent 12 pod lists without resourceVersion; 12 were served from etcd;')).toBe(true);
    const sa = await scan(lists(12, { userAgent: '', requestURI: '/api/v1/pods' }));
    expect(sa.findings[0]!.summary.startsWith('vector (system:serviceaccount:vector:vector) sent 12 pod lists')).toBe(true);
  });

  it('an unfiltered list from etcd returns what it reads: 1×, a list-from-etcd finding with the figures', async () => {
    const r = await scan([...lists(12, { requestURI: '/api/v1/pods' }), allPods(T, 300, 570_000)]);
    expect(r.findings[0]).toMatchObject({ kind: 'list-from-etcd', amplification: 1, summary: 'vector (system:serviceaccount:vector:vector) sent 12 pod lists without resourceVersion; each read 300 pods (570 kB) from etcd to return ~300: 1× amplification, 6.8 MB read' });
  });

  it('few etcd lists are a finding only with 10× amplification or more', async () => {
    const few = (n: number, count: number) => scan([...lists(n), allPods(T, count, count * 100)]);
    // 9 lists from 2 nodes, 2,000 read each: 1,000 returned, 2×: no finding
    expect((await few(9, 2000)).findings.filter((f) => f.kind.includes('etcd'))).toEqual([]);
    // 9 lists, 20,000 read each: 10,000 returned... still 2×; the ratio needs more nodes
    const kubelets = Array.from({ length: 20 }, (_, i) => auditLine({ auditID: `kk${i}`, verb: 'get', requestURI: `/api/v1/nodes/n${i}`, objectRef: { resource: 'nodes', name: `n${i}` }, user: { username: `system:node:n${i}` }, userAgent: 'kubelet/v1.30.2', requestReceivedTimestamp: iso(T), stageTimestamp: iso(T) }));
    // 20 nodes: 2,000 / 20 = 100 returned, 20× → a finding from 9 lists; 19 nodes would be 105.3 returned, 19×
    const r = await scan([...kubelets, ...lists(9), allPods(T, 2000, 200_000)]);
    expect(findingsOf(r, 'etcd-list-amplification').map((f) => [f.etcdRequests, f.amplification])).toEqual([[9, 20]]);
    const nine = await scan([...kubelets.slice(0, 11), ...lists(9), allPods(T, 2000, 200_000)]);
    // 11 nodes: 181.8 returned, 11×: still ≥ 10
    expect(findingsOf(nine, 'etcd-list-amplification').map((f) => f.amplification)).toEqual([11]);
    const ten = await scan([...kubelets.slice(0, 4), ...lists(9), allPods(T, 2000, 200_000)]);
    // 4 nodes: 500 returned, 4×: none
    expect(ten.findings.filter((f) => f.kind.startsWith('etcd-list') || f.kind === 'list-from-etcd')).toEqual([]);
  });

  it('at most 10 list findings, worst first; ties by bytes read, then etcd requests', async () => {
    const groups = Array.from({ length: 12 }, (_, i) => lists(20 + i, { userAgent: `agent-${String(i).padStart(2, '0')}/1`, user: { username: `u${i}` }, requestURI: '/api/v1/configmaps', objectRef: { resource: 'configmaps', apiVersion: 'v1' } })).flat();
    const r = await scan(groups);
    const fs = findingsOf(r, 'list-from-etcd');
    expect(fs.map((f) => f.etcdRequests)).toEqual([31, 30, 29, 28, 27, 26, 25, 24, 23, 22]);
  });

  it('gets: 1,000 from etcd by one client is a finding, medium when ≥ 10% of all requests; at most 5', async () => {
    const gets = (n: number, who: string) => Array.from({ length: n }, (_, i) => auditLine({ auditID: `g${seq++}`, verb: 'get', requestURI: `/api/v1/namespaces/shop/configmaps/c${i % 3}`, objectRef: { resource: 'configmaps', namespace: 'shop', name: `c${i % 3}`, apiVersion: 'v1' }, user: { username: `system:serviceaccount:shop:${who}` }, userAgent: `${who}/1.0`, requestReceivedTimestamp: iso(T + i), stageTimestamp: iso(T + i) }));
    const r = await scan(gets(1000, 'poller'));
    expect(r.findings.find((f) => f.kind === 'get-from-etcd')).toMatchObject({
      severity: 'medium',
      summary: 'poller (system:serviceaccount:shop:poller) sent 1,000 configmap gets without resourceVersion; each is a quorum read of one etcd key.',
      fix: 'Read from an informer cache, or send resourceVersion=0 when a slightly stale object is acceptable.',
      requests: 1000,
      etcdRequests: 1000,
      apf: null,
    });
    // 1,000 of 10,100 requests is under 10%: low
    const quiet = Array.from({ length: 9100 }, (_, i) => auditLine({ auditID: `q${seq++}`, verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', objectRef: { resource: 'leases' }, requestReceivedTimestamp: iso(T + i), stageTimestamp: iso(T + i) }));
    const low = await scan([...gets(1000, 'poller'), ...quiet]);
    expect(low.findings.find((f) => f.kind === 'get-from-etcd')!.severity).toBe('low');
    const six = await scan(['a', 'b', 'c', 'd', 'e', 'f'].flatMap((w) => gets(1000, w)));
    expect(six.findings.filter((f) => f.kind === 'get-from-etcd')).toHaveLength(5);
  });

  it('slow etcd reads and no audit log: the client ranges, with objects and time; internal ranges alone say nothing', async () => {
    const r = await scan([allPods(T, 7000, 13_313_287), allPods(T + 1000, 7000, 13_313_287)]);
    expect(r.findings).toEqual([
      {
        kind: 'etcd-slow-ranges',
        severity: 'medium',
        summary: 'etcd logged 2 slow reads (over 100 ms, the threshold its log states) of /registry/pods/, 7,000 objects each, up to 120.5 ms. Add the apiserver audit log to see which client sent them.',
        fix: 'Find the client in the audit log (lists of this resource without resourceVersion), then serve it from the watch cache or queue it with APF.',
        resource: 'pods',
        apf: null,
        why: 'etcd logs a read that takes longer than its threshold (100 ms unless set otherwise); a list reads every key under its prefix, however few objects it returns.',
      },
    ]);
    expect((await scan([read(T, '/registry/pods/', '/registry/pods0', 0, 7, 'count_only:true ')])).findings).toEqual([]);
  });
});

describe('totals and lists', () => {
  it('first and last seen span all inputs; --top cuts the groups, not the totals', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-totals-'));
    writeFileSync(join(dir, 'a.log'), lists(3, {}, T).join('\n') + '\n');
    writeFileSync(join(dir, 'b.log'), lists(3, { userAgent: 'other/1' }, T - 60_000).join('\n') + '\n');
    const r = JSON.parse((await runCli(['-o', 'json', '-j', '1', '--top', '1', join(dir, 'a.log'), join(dir, 'b.log')])).stdout) as ScanReport;
    // the times of the final stages: b's first at T − 60 s + 5 ms, a's last at T + 20 + 5 ms
    expect(r.totals).toMatchObject({ firstSeen: iso(T - 60_000 + 5), lastSeen: iso(T + 25), listRequests: 6 });
    expect([r.listGroups.length, r.listGroupsTotal, r.topUserAgents.length]).toEqual([1, 2, 1]);
  });

  it('user agents by requests, then by name', async () => {
    const r = await scan([...lists(2, { userAgent: 'b/1' }), ...lists(2, { userAgent: 'a/1' }), ...lists(3, { userAgent: 'c/1' })]);
    expect(r.topUserAgents).toEqual([{ userAgent: 'c/1', requests: 3 }, { userAgent: 'a/1', requests: 2 }, { userAgent: 'b/1', requests: 2 }]);
  });

  it('the etcd version is the one most lines name; --kube-version is a flag source', async () => {
    const v = (ver: string, ms: number) => JSON.stringify({ level: 'info', ts: iso(ms), caller: 'embed/etcd.go:308', msg: 'starting an etcd server', 'etcd-version': ver });
    const r = await scan([v('3.5.13', T), v('3.5.9', T + 1), v('3.5.9', T + 2)]);
    expect(r.kubernetes).toMatchObject({ version: '1.30', source: 'flag', reason: 'from --kube-version', etcdVersion: '3.5.9', etcdProgressNotify: false });
  });

  it('gets and watches in groups folded by --max-groups still count in the totals', async () => {
    const many = Array.from({ length: 30 }, (_, i) => [
      auditLine({ auditID: `mg${i}`, verb: 'get', requestURI: `/api/v1/namespaces/ns${i}/configmaps/c`, objectRef: { resource: 'configmaps', namespace: `ns${i}`, name: 'c' }, user: { username: `u${i}` }, userAgent: `a${i}/1`, requestReceivedTimestamp: iso(T + i), stageTimestamp: iso(T + i) }),
      auditLine({ auditID: `mw${i}`, verb: 'watch', requestURI: `/api/v1/namespaces/ns${i}/configmaps?watch=true&resourceVersion=1`, objectRef: { resource: 'configmaps', namespace: `ns${i}` }, user: { username: `u${i}` }, userAgent: `a${i}/1`, requestReceivedTimestamp: iso(T + i), stageTimestamp: iso(T + i + 1) }),
    ]).flat();
    const r = await scan(many, ['--max-groups', '10']);
    expect(r.totals).toMatchObject({ getRequests: 30, watchRequests: 30 });
    expect(r.groupsCapped).not.toBeNull();
  });
});

describe('etcd versions with RequestWatchProgress (3.4.31+, 3.5.13+)', () => {
  it.each<[string, boolean | null]>([
    ['3.5.13', true],
    ['v3.5.13', true],
    ['3.5.12', false],
    ['3.4.31', true],
    ['3.4.30', false],
    ['3.3.27', false],
    ['3.6.0', true],
    ['3.10.0', true],
    ['3.5.100', true],
    ['4.0.0', true],
    ['13.0.0', true],
    ['2.3.8', false],
    ['3.5.13-rc.0', true],
    ['x3.5.13', null],
    ['3.5', null],
  ])('%s → %s', (v, want) => {
    expect(etcdSupportsProgressNotify(v)).toBe(want);
  });
});
