// The report's rules, each threshold on both sides: severities, fixes, ordering, which groups become findings,
// and the small formatters every format shares.
import { describe, expect, it } from 'vitest';
import { apfFiles, apfWarranted, clientName, compareGroups, describeEtcdPrefix, fixFor, formatBytes, formatCount, nothingRead, severityOf, singular, summarizeEtcd, type GroupReport } from '../../src/analyze/report.js';
import type { EtcdAgg } from '../../src/aggregate/etcd-reads.js';
import { auditLine, groupReport, runCli } from '../support.js';

function group(o: Partial<GroupReport> & { etcd?: number }): GroupReport {
  const etcd = o.etcd ?? 0;
  return groupReport({ userAgent: 'a/1', username: 'u', requests: etcd, servedFrom: { etcd, cache: 0, unknown: 0, rejected: 0 }, ...o });
}

describe('clientName, singular, formatBytes, formatCount', () => {
  it.each([
    ['vector/0.34.0 (linux)', 'system:serviceaccount:vector:vector', 'vector'],
    ['  curl/8.0', 'alice', 'curl'],
    ['Mozilla/5.0 (X11; Linux)', 'alice', 'Mozilla'],
    ['', 'system:serviceaccount:ops:backup-tool', 'backup-tool'],
    ['', 'alice@example.com', 'alice@example.com'],
    ['', '', 'unknown client'],
    // a user agent that does not start with a name gives way to the user
    ['/usr/bin/tool', 'alice', 'alice'],
    ['', 'x-system:serviceaccount:ns:name', 'x-system:serviceaccount:ns:name'],
    ['', 'system:serviceaccount:ns:a\nb', 'system:serviceaccount:ns:a\nb'],
    ['   ', '', 'unknown client'],
  ])('clientName(%j, %j) = %j', (ua, user, want) => {
    expect(clientName(ua, user)).toBe(want);
  });

  it.each([
    ['pods', 'pod'],
    ['endpoints', 'endpoints'],
    ['policies', 'policy'],
    ['ingresses', 'ingress'],
    ['storageclasses', 'storageclass'],
    ['boxes', 'box'],
    ['leases', 'lease'],
    ['data', 'data'],
  ])('singular(%s) = %s', (r, want) => {
    expect(singular(r)).toBe(want);
  });

  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1.0 kB'],
    [9_999, '10.0 kB'],
    [10_000, '10 kB'],
    [15_300, '15.3 kB'],
    [99_999, '100 kB'],
    [150_000, '150 kB'],
    [13_313_287, '13.3 MB'],
    [1300 * 13_313_287, '17.3 GB'],
    [2.5e12, '2.5 TB'],
    [1e18, '1000 PB'],
  ])('formatBytes(%d) = %s', (n, want) => {
    expect(formatBytes(n)).toBe(want);
  });

  it('formatCount groups thousands and rounds', () => {
    expect(formatCount(4800)).toBe('4,800');
    expect(formatCount(1_234_567.6)).toBe('1,234,568');
    expect(formatCount(0.4)).toBe('0');
  });
});

describe('severityOf: each threshold on both sides', () => {
  it.each([
    ['10 GB read', { bytesReadTotal: 10e9, etcd: 1 }, 5, 'critical'],
    ['just under 10 GB read', { bytesReadTotal: 10e9 - 1, etcd: 1 }, 5, 'high'],
    ['50× on 1,000 etcd lists', { amplification: 50, etcd: 1000 }, 1e9, 'critical'],
    ['50× on 999', { amplification: 50, etcd: 999 }, 1e9, 'high'],
    ['49.9× on 1,000', { amplification: 49.9, etcd: 1000 }, 1e9, 'high'],
    ['1 GB read', { bytesReadTotal: 1e9, etcd: 1 }, 1e9, 'high'],
    ['10× on 100', { amplification: 10, etcd: 100 }, 1e9, 'high'],
    ['10× on 99', { amplification: 10, etcd: 99 }, 1e9, 'medium'],
    ['9.9× on 100', { amplification: 9.9, etcd: 100 }, 1e9, 'medium'],
    ['1,000 etcd lists, 10% of 10,000 requests', { etcd: 1000 }, 10_000, 'high'],
    ['1,000 etcd lists, under 10% of 10,001', { etcd: 1000 }, 10_001, 'medium'],
    ['1,000 etcd lists out of 1,000 requests', { etcd: 1000 }, 1000, 'high'],
    ['999 etcd lists out of 999 requests: under the floor of 1,000', { etcd: 999 }, 999, 'medium'],
    ['100 etcd lists', { etcd: 100 }, 1e9, 'medium'],
    ['99 etcd lists', { etcd: 99 }, 1e9, 'low'],
    ['10× on one list', { amplification: 10, etcd: 1 }, 1e9, 'medium'],
    ['9.9× on one list', { amplification: 9.9, etcd: 1 }, 1e9, 'low'],
  ])('%s → %s', (_what, g, total, want) => {
    expect(severityOf(group(g), total)).toBe(want);
  });
});

describe('fixFor: the fix follows the reason', () => {
  const EVENTS = 'have no watch cache, so every list reads etcd';
  const PAGES = 'Pages 2..n of a paginated list (continue token) read etcd before 1.34';
  const EXACT = 'Exact-resourceVersion reads go to etcd: use resourceVersionMatch=NotOlderThan';
  const RV0 = 'Send resourceVersion=0&resourceVersionMatch=NotOlderThan so the watch cache serves the list';
  it.each([
    ['events: watch cache off by default', 'events', '', EVENTS],
    ['watch cache disabled for resource', 'secrets', '', EVENTS],
    ['continue token', 'configmaps', '', PAGES],
    ['limit with resourceVersion≠0 (exact page)', 'pods', '', EXACT],
    ['resourceVersionMatch=Exact', 'pods', '', EXACT],
    ['no resourceVersion', 'pods', 'spec.nodeName=<node>', `${RV0} (pods by spec.nodeName use the watch-cache index)`],
    ['no resourceVersion', 'pods', 'labels(app=x)', `${RV0}, or use`],
    ['no resourceVersion', 'configmaps', 'spec.nodeName=<node>', `${RV0}, or use`],
    ['unsupported resourceVersionMatch=Foo', 'pods', '', RV0],
  ])('%s (%s, %s)', (reason, resource, selector, want) => {
    const fix = fixFor(group({ reasons: { [reason]: 1 }, resource, selector, etcd: 1 }));
    expect(fix).toContain(want);
    if (want === EVENTS) expect(fix).toBe(`${resource} have no watch cache, so every list reads etcd: list a narrower scope (one namespace, fieldSelector on involvedObject), list less often, or move ${resource} to their own etcd with --etcd-servers-overrides.`);
  });

  it.each([
    ['events: watch cache off by default', 'EVENTS'],
    ['watch cache disabled for resource', 'EVENTS'],
    ['continue token', 'PAGES'],
    ['limit with resourceVersion≠0 (exact page)', 'EXACT'],
    ['resourceVersionMatch=Exact', 'EXACT'],
  ])('a reason served from the cache, even the most frequent, is passed over for the etcd reason %s', (reason, want) => {
    const fixes: Record<string, string> = { EVENTS, PAGES, EXACT };
    expect(fixFor(group({ reasons: { 'resourceVersion=0 (served from the watch cache)': 50, [reason]: 1 }, resource: 'events', etcd: 1 }))).toContain(fixes[want]!);
  });

  it('1.34+: pages and exact reads served from the cache snapshot name no fix; the etcd reason beside them does', () => {
    expect(fixFor(group({ reasons: { 'continue token from cache snapshot (1.34+, if still in history)': 50, 'no resourceVersion': 5 }, etcd: 5 }))).toContain(RV0);
    expect(fixFor(group({ reasons: { 'resourceVersionMatch=Exact from cache snapshot (1.34+, if still in history)': 50, 'limit with resourceVersion=N from cache snapshot (1.34+)': 40, 'events: watch cache off by default': 1 }, resource: 'events', etcd: 1 }))).toContain(EVENTS);
    expect(fixFor(group({ reasons: { 'no resourceVersion, consistent read from cache (1.31+)': 50, 'continue token': 1 }, etcd: 1 }))).toContain(PAGES);
  });

  it('the most frequent reason decides (reasons are ordered by count)', () => {
    expect(fixFor(group({ reasons: { 'continue token': 20, 'no resourceVersion (paginated)': 10 }, etcd: 30 }))).toContain(PAGES);
    expect(fixFor(group({ reasons: { 'no resourceVersion (paginated)': 20, 'continue token': 10 }, etcd: 30 }))).toContain(RV0);
    expect(fixFor(group({ reasons: { 'unsupported resourceVersionMatch=Foo': 20, 'continue token': 10 }, etcd: 30 }))).toContain(RV0);
  });
});

describe('ordering', () => {
  it('list groups: objects read from etcd, then etcd requests, then requests, then names', () => {
    const a = group({ userAgent: 'a/1', etcd: 10, objectsReadPerRequest: 100 }); // 1,000 objects
    const b = group({ userAgent: 'b/1', etcd: 20, objectsReadPerRequest: 40 }); // 800
    const c = group({ userAgent: 'c/1', etcd: 800, objectsReadPerRequest: null }); // 800 (1 each when unknown)
    const d = group({ userAgent: 'd/1', etcd: 0, requests: 5000 });
    const e = group({ userAgent: 'e/1', etcd: 0, requests: 10 });
    const f = group({ userAgent: 'f/1', etcd: 0, requests: 10 });
    expect([f, e, d, c, b, a].sort(compareGroups).map((g) => g.userAgent)).toEqual(['a/1', 'c/1', 'b/1', 'd/1', 'e/1', 'f/1']);
    expect(compareGroups(e, e)).toBe(0);
  });

  const agg = (o: Partial<EtcdAgg>): EtcdAgg => ({
    internal: null, resourceKey: 'pods', resource: 'pods', scope: 'all', namespace: null, limited: false, minute: 1, keyLabel: '/registry/pods/', reads: 1,
    objectsSum: 0, objectsN: 0, objectsMax: 0, totalKeysMax: 0, bytesSum: 0, bytesN: 0, bytesMax: 0, tookSum: 0, tookN: 0, tookMax: 0, errors: 0, firstMs: null, lastMs: null, ...o,
  });

  it('etcd ranges: minutes of one range summed; client reads first, then objects read, reads, key', () => {
    const rows = summarizeEtcd([
      agg({ minute: 1, reads: 2, objectsSum: 200, objectsN: 2, objectsMax: 150, bytesSum: 2000, bytesN: 2, tookSum: 300_000, tookN: 2, tookMax: 200, firstMs: 60_000, lastMs: 61_000 }),
      agg({ minute: 2, reads: 1, objectsSum: 100, objectsN: 1, objectsMax: 100, bytesSum: 1000, bytesN: 1, tookSum: 100_000, tookN: 1, tookMax: 100, errors: 1, firstMs: 120_000, lastMs: 120_000 }),
      agg({ keyLabel: '/registry/configmaps/', resourceKey: 'configmaps', resource: 'configmaps', reads: 5, objectsSum: 500, objectsN: 5, objectsMax: 100 }),
      agg({ keyLabel: '/registry/health', internal: 'health check', reads: 99, objectsSum: 9900, objectsN: 99, objectsMax: 100 }),
      agg({ keyLabel: '/registry/secrets/', resourceKey: 'secrets', resource: 'secrets', reads: 4 }),
      agg({ keyLabel: '/registry/leases/', resourceKey: 'leases', resource: 'leases', reads: 4 }),
    ]);
    expect(rows.map((r) => r.key)).toEqual(['/registry/configmaps/', '/registry/pods/', '/registry/leases/', '/registry/secrets/', '/registry/health']);
    // pods: 3 reads over two minutes, 300 objects, 3,000 bytes, 400 ms over 3 timed reads, one error
    expect(rows[1]).toMatchObject({ reads: 3, objectsPerRead: 100, objectsMax: 150, bytesPerRead: 1000, tookMsAvg: 133.3, tookMsMax: 200, errors: 1, firstSeen: '1970-01-01T00:01:00.000Z', lastSeen: '1970-01-01T00:02:00.000Z' });
    expect(rows[2]).toMatchObject({ objectsPerRead: null, objectsMax: null, bytesPerRead: null, tookMsAvg: null, tookMsMax: null });
  });

  it('etcd ranges with as many objects read: more reads first, then by key, whatever the order given', () => {
    // 2 × 50 = 4 × 25 = 100 objects; the 4 reads first; two ranges of 3 × 0 by key
    const given = [
      agg({ keyLabel: '/registry/b/', reads: 3 }),
      agg({ keyLabel: '/registry/few/', reads: 2, objectsSum: 100, objectsN: 2 }),
      agg({ keyLabel: '/registry/a/', reads: 3 }),
      agg({ keyLabel: '/registry/many/', reads: 4, objectsSum: 100, objectsN: 4 }),
    ];
    const want = ['/registry/many/', '/registry/few/', '/registry/a/', '/registry/b/'];
    expect(summarizeEtcd(given).map((r) => r.key)).toEqual(want);
    expect(summarizeEtcd([...given].reverse()).map((r) => r.key)).toEqual(want);
  });

  it('two internal reasons of one key are two rows', () => {
    const rows = summarizeEtcd([agg({ keyLabel: '/registry/pods/', internal: 'count_only (object-count polling)', limited: true }), agg({ keyLabel: '/registry/pods/', internal: 'limit:1 (current-revision fetch)', limited: true })]);
    expect(rows.map((r) => r.internal)).toEqual(['count_only (object-count polling)', 'limit:1 (current-revision fetch)']);
  });
});

describe('which groups become findings', () => {
  const T0 = Date.UTC(2026, 10, 30, 12);
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  const req = (id: string, i: number, uri: string, verb: string, ref: Record<string, string>, user = 'system:serviceaccount:ops:agent') =>
    auditLine({ auditID: `${id}${i}`, verb, requestURI: uri, objectRef: ref, user: { username: user }, userAgent: `${id}/1`, requestReceivedTimestamp: at(i * 10), stageTimestamp: at(i * 10 + 5) });
  const scan = async (lines: string[]) => JSON.parse((await runCli(['-o', 'json', '--kube-version', '1.30', '-'], lines.join('\n') + '\n')).stdout);
  const cm = { resource: 'configmaps', apiVersion: 'v1' };

  it('a client with 10 etcd lists is a finding; with 9 it is not (below 10, and below 1% of all etcd lists)', async () => {
    const ten = await scan(Array.from({ length: 10 }, (_, i) => req('ten', i, '/api/v1/configmaps', 'list', cm)));
    expect(ten.findings.map((f: { kind: string; severity: string }) => [f.kind, f.severity])).toEqual([['list-from-etcd', 'low']]);
    const nine = await scan(Array.from({ length: 9 }, (_, i) => req('nine', i, '/api/v1/configmaps', 'list', cm)));
    expect(nine.findings).toEqual([]);
  });

  it('1,000 gets without resourceVersion by one client are a finding; 999 are not', async () => {
    const pod = { resource: 'pods', namespace: 'a', name: 'p', apiVersion: 'v1' };
    const many = await scan(Array.from({ length: 1000 }, (_, i) => req('g', i, '/api/v1/namespaces/a/pods/p', 'get', pod)));
    expect(many.findings.map((f: { kind: string; severity: string; etcdRequests: number }) => [f.kind, f.severity, f.etcdRequests])).toEqual([['get-from-etcd', 'medium', 1000]]);
    const fewer = await scan(Array.from({ length: 999 }, (_, i) => req('g', i, '/api/v1/namespaces/a/pods/p', 'get', pod)));
    expect(fewer.findings).toEqual([]);
  });

  it('slow etcd reads with no audit log: a finding naming the range, high from 100 reads', async () => {
    const etcd = (n: number) =>
      Array.from({ length: n }, (_, i) => JSON.stringify({ level: 'warn', ts: at(i * 100), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '150ms', prefix: 'read-only range ', request: 'key:"/registry/pods/" range_end:"/registry/pods0" ', response: 'range_response_count:7130 size:13313287' }));
    const high = await scan(etcd(100));
    expect(high.findings).toMatchObject([{ kind: 'etcd-slow-ranges', severity: 'high', resource: 'pods', summary: 'etcd logged 100 slow reads (over 100 ms, etcd’s default threshold) of /registry/pods/, 7,130 objects each, up to 150 ms. Add the apiserver audit log to see which client sent them.' }]);
    expect((await scan(etcd(99))).findings[0].severity).toBe('medium');
  });
});

describe('where the etcd key prefix came from', () => {
  it.each<[string | null, Array<[string, number]>, { prefixes: string[]; source: string; reason: string }]>([
    ['/k8s', [['/registry', 9]], { prefixes: ['/k8s'], source: 'given', reason: '--etcd-prefix' }],
    [null, [], { prefixes: ['/registry'], source: 'default', reason: 'the kube-apiserver default (no etcd read to infer it from)' }],
    [null, [['/registry', 5]], { prefixes: ['/registry'], source: 'default', reason: 'the kube-apiserver default; every etcd read sits under it' }],
    [null, [['/registry', 5], ['/x', 1]], { prefixes: ['/registry', '/x'], source: 'inferred', reason: 'inferred from the keys: 5 reads under /registry, 1 read under /x (--etcd-prefix to override)' }],
    [null, [['/kubernetes.io', 1]], { prefixes: ['/kubernetes.io'], source: 'inferred', reason: 'inferred from the keys: 1 read under /kubernetes.io (--etcd-prefix to override)' }],
    [null, [['/b', 2], ['/registry', 1], ['/a', 2], ['/c', 1200]], { prefixes: ['/c', '/a', '/b', '/registry'], source: 'inferred', reason: 'inferred from the keys: 1,200 reads under /c, 2 reads under /a, 2 reads under /b, 1 read under /registry (--etcd-prefix to override)' }],
  ])('given %j, reads %j', (given, seen, want) => {
    expect(describeEtcdPrefix(given, new Map(seen))).toEqual(want);
  });
});

describe('the files --apf-out writes', () => {
  const f = (severity: string, client: string | null, apf: string | null, kind = 'list') => ({ kind, severity, ...(client === null ? {} : { client }), apf }) as never;
  it('one per finding of medium severity or above with manifests, named by its place and a file-safe client name', () => {
    const files = apfFiles({
      findings: [
        f('critical', 'Vector  Agent/0.34', 'a: 1'),
        f('low', 'quiet', 'x: 1'),
        f('high', null, 'b: 2\n', 'token-waves'),
        f('medium', '--/--', 'c: 3'),
        f('high', 'no-manifest', null),
        f('high', 'x'.repeat(50), 'd: 4'),
        f('info', 'info', 'e: 5'),
        f('medium', '--A  b--', 'g: 7'),
      ],
    });
    expect(files).toEqual([
      { file: '1-vector-agent-0-34.yaml', yaml: 'a: 1\n' },
      { file: '3-token-waves.yaml', yaml: 'b: 2\n' },
      { file: '4-client.yaml', yaml: 'c: 3\n' },
      { file: `6-${'x'.repeat(40)}.yaml`, yaml: 'd: 4\n' },
      { file: '8-a-b.yaml', yaml: 'g: 7\n' },
    ]);
  });
  it('apfWarranted: critical, high and medium show their manifests; low and info do not', () => {
    expect(['critical', 'high', 'medium', 'low', 'info'].map((s) => apfWarranted(f(s, 'c', 'y')))).toEqual(['y', 'y', 'y', null, null]);
  });
});

describe('nothingRead: the report must not read as an all-clear', () => {
  const i = (looksLike: string | null, error: string | null) => ({ looksLike, error }) as never;
  it.each<[string, Array<[string | null, string | null]>, boolean]>([
    ['every input yielded nothing', [['it is empty', null], ['nothing arrived on stdin', null]], true],
    ['an input that could not be read counts as nothing', [[null, 'EACCES'], ['it is empty', null]], true],
    ['one input gave something', [[null, null], ['it is empty', null]], false],
    ['the only input gave something', [[null, null]], false],
  ])('%s', (_what, inputs, want) => {
    expect(nothingRead({ inputs: inputs.map(([l, e]) => i(l, e)) })).toBe(want);
  });
});

describe('compareGroups is a consistent order', () => {
  it('equal objects read: more etcd requests first, whatever the requests; names last, both ways round', () => {
    const few = group({ userAgent: 'few/1', etcd: 800, objectsReadPerRequest: null, requests: 900 });
    const many = group({ userAgent: 'many/1', etcd: 20, objectsReadPerRequest: 40, requests: 5000 });
    expect(Math.sign(compareGroups(few, many))).toBe(-1);
    expect(Math.sign(compareGroups(many, few))).toBe(1);
    const e = group({ userAgent: 'e/1', requests: 10 });
    const f = group({ userAgent: 'f/1', requests: 10 });
    expect([Math.sign(compareGroups(e, f)), Math.sign(compareGroups(f, e))]).toEqual([-1, 1]);
  });
});
