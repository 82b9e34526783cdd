// The report's totals, versions and top lists, from small logs whose answers are counted by hand: each verb's
// requests wherever they are kept (groups, or folded away by --max-groups), the versions and where they came
// from, the inputs' first and last times, and what --top cuts.
import { describe, expect, it } from 'vitest';
import { auditLine, runCli } from '../support.js';
import type { ScanReport } from '../../src/analyze/report.js';

const T0 = Date.UTC(2026, 10, 30, 12);
const at = (ms: number) => new Date(T0 + ms).toISOString();
let id = 0;
/** one request: verb, URI and user, `ms` after 12:00:00 */
function req(verb: string, uri: string, user: string, ms: number, f: Record<string, unknown> = {}): string {
  id++;
  return auditLine({ auditID: `t-${id}`, verb, requestURI: uri, user: { username: user }, userAgent: `${user}/1.0`, objectRef: { resource: 'pods', apiVersion: 'v1' }, requestReceivedTimestamp: at(ms), stageTimestamp: at(ms + 40), ...f });
}
/** etcd's "apply request took too long" for a read of `key`'s range, `ms` after 12:00:00, `count` objects, `size` bytes */
const slowPods = (ms: number, count: number, size: number, key = '/registry/pods/') =>
  JSON.stringify({ level: 'warn', ts: at(ms), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '150ms', 'expected-duration': '100ms', prefix: 'read-only range ', request: `key:"${key}" range_end:"${key.slice(0, -1)}0" `, response: `range_response_count:${count} size:${size}` });
/** the lines in time order, as one log stream would carry them */
const byTime = (ls: string[]) => ls.map((l) => [Date.parse((JSON.parse(l) as { ts?: string; stageTimestamp?: string }).ts ?? (JSON.parse(l) as { stageTimestamp: string }).stageTimestamp), l] as const).sort((a, b) => a[0] - b[0]).map(([, l]) => l);
async function scan(lines: string[], args: string[] = []): Promise<ScanReport> {
  const r = await runCli(['-o', 'json', '--kube-version', '1.30', ...args, '-'], lines.join('\n') + '\n');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as ScanReport;
}

// 3 lists (2 without resourceVersion: etcd; 1 with resourceVersion=0: the watch cache), 2 gets (1 without:
// etcd; 1 with resourceVersion=0: the cache), 4 watches, by three users
const MIXED = [
  req('list', '/api/v1/pods', 'alice', 0),
  req('list', '/api/v1/pods', 'alice', 1000),
  req('list', '/api/v1/pods?resourceVersion=0', 'bob', 2000),
  req('get', '/api/v1/namespaces/a/pods/p', 'carol', 3000, { objectRef: { resource: 'pods', apiVersion: 'v1', namespace: 'a', name: 'p' } }),
  req('get', '/api/v1/namespaces/a/pods/p?resourceVersion=0', 'carol', 4000, { objectRef: { resource: 'pods', apiVersion: 'v1', namespace: 'a', name: 'p' } }),
  ...[5000, 6000, 7000, 8000].map((ms) => req('watch', '/api/v1/pods?watch=true&resourceVersion=10', 'dave', ms)),
];

describe('totals by verb', () => {
  it('3 lists (2 from etcd), 2 gets (1 from etcd), 4 watches; watches are in no group table', async () => {
    const r = await scan(MIXED);
    expect(r.totals).toMatchObject({ requests: 9, listRequests: 3, listWithoutResourceVersion: 2, listFromEtcd: 2, getRequests: 2, getFromEtcd: 1, watchRequests: 4 });
    expect(r.listGroups.map((g) => [g.username, g.requests])).toEqual([['alice', 2], ['bob', 1]]);
    expect(r.getGroups.map((g) => [g.username, g.verb, g.requests])).toEqual([['carol', 'get', 2]]);
  });

  it('groups folded away by --max-groups still count in every verb’s total', async () => {
    const many = [...MIXED, ...Array.from({ length: 6 }, (_, i) => req('get', '/api/v1/namespaces/a/pods/p', `g${i}`, 9000 + i, { objectRef: { resource: 'pods', apiVersion: 'v1', namespace: 'a', name: 'p' } })), ...Array.from({ length: 6 }, (_, i) => req('watch', '/api/v1/pods?watch=true', `w${i}`, 9500 + i))];
    const whole = await scan(many);
    const capped = await scan(many, ['--max-groups', '10']);
    expect(whole.totals).toMatchObject({ listRequests: 3, getRequests: 8, watchRequests: 10 });
    expect(capped.groupsCapped).not.toBeNull();
    expect(capped.totals).toMatchObject({ listRequests: 3, getRequests: 8, watchRequests: 10 });
  });

  it('get groups are ordered like list groups: most etcd requests first, whatever the order of the log', async () => {
    const get = (user: string, ms: number) => req('get', '/api/v1/namespaces/a/pods/p', user, ms, { objectRef: { resource: 'pods', apiVersion: 'v1', namespace: 'a', name: 'p' } });
    // neither the log's order nor the names' is the answer
    const r = await scan([get('a-small', 0), get('z-big', 1000), get('z-big', 2000), get('z-big', 3000), get('m-mid', 4000), get('m-mid', 5000)]);
    expect(r.getGroups.map((g) => [g.username, g.servedFrom.etcd])).toEqual([['z-big', 3], ['m-mid', 2], ['a-small', 1]]);
  });

  it('--top cuts the group tables and the user agents, not the totals', async () => {
    const r = await scan(MIXED, ['--top', '1']);
    expect([r.listGroups.length, r.listGroupsTotal, r.getGroups.length, r.topUserAgents.length]).toEqual([1, 2, 1, 1]);
    expect(r.listGroups[0]!.username).toBe('alice');
    expect(r.topUserAgents).toEqual([{ userAgent: 'dave/1.0', requests: 4 }]);
    expect(r.totals.requests).toBe(9);
  });

  it('user agents with as many requests are listed by name', async () => {
    const r = await scan([req('list', '/api/v1/pods', 'zed', 0), req('list', '/api/v1/pods', 'amy', 1000), req('list', '/api/v1/pods', 'kim', 2000), req('list', '/api/v1/pods', 'kim', 3000)]);
    expect(r.topUserAgents).toEqual([{ userAgent: 'kim/1.0', requests: 2 }, { userAgent: 'amy/1.0', requests: 1 }, { userAgent: 'zed/1.0', requests: 1 }]);
  });

  it('a request without a user agent is listed under its user, which --redact replaces', async () => {
    const noUa = (ms: number) => req('list', '/api/v1/pods', 'system:serviceaccount:ops:backup', ms, { userAgent: '' });
    const plain = await scan([noUa(0), noUa(1000)]);
    expect(plain.topUserAgents).toEqual([{ userAgent: '(no user agent) system:serviceaccount:ops:backup', requests: 2 }]);
    const red = await scan([noUa(0), noUa(1000)], ['--redact', '--redact-key', 'k']);
    expect(red.topUserAgents).toHaveLength(1);
    expect(red.topUserAgents[0]!.userAgent.startsWith('(no user agent) ')).toBe(true);
    expect(red.topUserAgents[0]!.userAgent).not.toContain('backup');
    expect(red.topUserAgents[0]!.userAgent).not.toContain('ops');
    expect(red.topUserAgents[0]!.userAgent.slice('(no user agent) '.length)).toBe(red.listGroups[0]!.username);
  });
});

describe('versions and where they came from', () => {
  const etcdStart = (v: string, ms: number) => JSON.stringify({ level: 'info', ts: at(ms), caller: 'etcdmain/etcd.go:73', msg: 'Running: ', 'etcd-version': v });
  it('--kube-version is the flag’s', async () => {
    const r = await scan([req('list', '/api/v1/pods', 'alice', 0)]);
    expect(r.kubernetes).toMatchObject({ version: '1.30', source: 'flag', reason: 'from --kube-version' });
  });
  it('the etcd version most lines name, unless --etcd-version says', async () => {
    const lines = [etcdStart('3.5.9', 0), etcdStart('3.5.13', 1), etcdStart('3.5.13', 2), req('list', '/api/v1/pods', 'alice', 10)];
    const seen = await scan(lines);
    expect([seen.kubernetes.etcdVersion, seen.kubernetes.etcdProgressNotify]).toEqual(['3.5.13', true]);
    const given = await scan(lines, ['--etcd-version', '3.5.9']);
    expect([given.kubernetes.etcdVersion, given.kubernetes.etcdProgressNotify]).toEqual(['3.5.9', false]);
    const reversed = await scan([etcdStart('3.5.13', 0), etcdStart('3.5.9', 1), etcdStart('3.5.9', 2), req('list', '/api/v1/pods', 'alice', 10)]);
    expect(reversed.kubernetes.etcdVersion).toBe('3.5.9');
  });
});

describe('the inputs’ first and last times', () => {
  it('the earliest first and the latest last over every input; an input with no time changes neither (the times of the last stage)', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-times-'));
    const a = join(dir, 'a.log');
    const b = join(dir, 'b.log');
    const c = join(dir, 'c.log');
    // a: 12:00:05–12:00:20; b: 12:00:01–12:00:10 (starts first, ends first); c: one etcd line with no time
    writeFileSync(a, [req('list', '/api/v1/pods', 'alice', 5000), req('list', '/api/v1/pods', 'alice', 20_000)].join('\n') + '\n');
    writeFileSync(b, [req('list', '/api/v1/pods', 'bob', 1000), req('list', '/api/v1/pods', 'bob', 10_000)].join('\n') + '\n');
    writeFileSync(c, JSON.stringify({ level: 'info', caller: 'etcdmain/etcd.go:73', msg: 'Running: ', 'etcd-version': '3.5.13' }) + '\n');
    const r = await runCli(['-o', 'json', '--kube-version', '1.30', a, c, b]);
    const rep = JSON.parse(r.stdout) as ScanReport;
    expect([rep.totals.firstSeen, rep.totals.lastSeen]).toEqual([at(1040), at(20_040)]);
    const again = JSON.parse((await runCli(['-o', 'json', '--kube-version', '1.30', b, c, a])).stdout) as ScanReport;
    expect([again.totals.firstSeen, again.totals.lastSeen]).toEqual([at(1040), at(20_040)]);
  });
});

describe('inputs that repeat or yield nothing', () => {
  const tmp = async () => {
    const { mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    return { dir: mkdtempSync(join(tmpdir(), 'audit-scan-inputs-')), join };
  };
  it('a copy of a log counts its requests once and says how many it repeated, summed over the inputs', async () => {
    const { writeFileSync } = await import('node:fs');
    const { dir, join } = await tmp();
    const log = [req('list', '/api/v1/pods', 'alice', 0), req('list', '/api/v1/pods', 'alice', 1000), req('get', '/api/v1/namespaces/a/pods/p', 'bob', 2000)].join('\n') + '\n';
    const paths = ['a.log', 'b.log', 'c.log'].map((n) => join(dir, n));
    for (const p of paths) writeFileSync(p, log);
    const rep = JSON.parse((await runCli(['-o', 'json', '--kube-version', '1.30', ...paths])).stdout) as ScanReport;
    // b and c each repeat a's 3 requests
    expect(rep.inputs.map((i) => i.duplicateRequests)).toEqual([0, 3, 3]);
    expect(rep.totals).toMatchObject({ requests: 3, listRequests: 2, getRequests: 1, duplicateRequests: 6 });
  });
  it('what an input that yields nothing looks like: stdin and a file are told apart; a file that cannot be read has its error instead', async () => {
    const { writeFileSync } = await import('node:fs');
    const { dir, join } = await tmp();
    const empty = join(dir, 'empty.log');
    writeFileSync(empty, '');
    const good = join(dir, 'good.log');
    writeFileSync(good, req('list', '/api/v1/pods', 'alice', 0) + '\n');
    const stdin = JSON.parse((await runCli(['-o', 'json', '--kube-version', '1.30', '-', good], '')).stdout) as ScanReport;
    expect(stdin.inputs.map((i) => [i.name === '(stdin)', i.looksLike])).toEqual([[true, 'nothing arrived on stdin'], [false, null]]);
    // a gzip header followed by bytes that do not inflate: a read error part way
    const bad = join(dir, 'bad.log.gz');
    writeFileSync(bad, Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xfe, 0xfd, 0xfc, 0x01, 0x02]));
    const file = JSON.parse((await runCli(['-o', 'json', '--kube-version', '1.30', empty, good, bad])).stdout) as ScanReport;
    expect(file.inputs.map((i) => [i.looksLike, i.error === null])).toEqual([['it is empty', true], [null, true], [null, false]]);
  });
});

describe('the timeline and the order of findings', () => {
  it('the timeline’s bucket is --bucket in seconds', async () => {
    const r = await scan(MIXED, ['--bucket', '5s']);
    expect(r.timeline.bucketSeconds).toBe(5);
  });
});

describe('findings: the sentences, the manifests and the order', () => {
  // vector: 12 per-node pod lists from 3 nodes, none with resourceVersion; etcd read 900 pods (1.8 MB) each time.
  // ci-bot: 20 deployment lists in namespace shop, every other one with resourceVersion=0.
  const vector = Array.from({ length: 12 }, (_, i) => req('list', `/api/v1/pods?fieldSelector=spec.nodeName%3Dn${i % 3}`, 'system:serviceaccount:vector:vector', i * 1000, { userAgent: 'vector/0.34.0' }));
  const reads = Array.from({ length: 12 }, (_, i) => slowPods(i * 1000 + 20, 900, 1_800_000));
  const ci = Array.from({ length: 20 }, (_, i) => req('list', `/apis/apps/v1/namespaces/shop/deployments${i % 2 ? '?resourceVersion=0' : ''}`, 'ci-bot', i * 500 + 100, { userAgent: 'ci-bot', objectRef: { resource: 'deployments', apiGroup: 'apps', apiVersion: 'v1', namespace: 'shop' } }));

  it('each figure in its sentence: nodes, lists without resourceVersion, objects read against returned, bytes', async () => {
    const r = await scan(byTime([...vector, ...reads, ...ci]));
    // 900 pods over 3 nodes: ~300 returned each (estimated), 900 / 300 = 3×; 1.8 MB × 12 = 21.6 MB
    expect(r.findings.map((f) => [f.kind, f.severity, f.summary])).toEqual([
      ['etcd-list-amplification', 'low', 'vector (system:serviceaccount:vector:vector) sent 12 pod lists from 3 nodes without resourceVersion; each read 900 pods (1.8 MB) from etcd to return ~300: 3× amplification, 21.6 MB read (estimated)'],
      ['list-from-etcd', 'low', 'ci-bot sent 20 deployment lists (10 without resourceVersion); 10 were served from etcd; the etcd log does not show how much each read (pass the etcd log or --objects).'],
    ]);
    expect(r.findings.map((f) => ['client' in f ? f.client : null, 'resource' in f ? f.resource : null, 'etcdRequests' in f ? f.etcdRequests : null, 'bytesReadTotal' in f ? f.bytesReadTotal : null])).toEqual([
      ['vector', 'pods', 12, 21_600_000],
      ['ci-bot', 'deployments.apps', 10, null],
    ]);
    // a cluster-wide list is queued by a cluster-scoped rule, a namespaced one by a namespaced rule
    const apf = r.findings.map((f) => ('apf' in f ? (f.apf ?? '') : ''));
    expect([apf[0]!.includes('clusterScope: true'), apf[0]!.includes('namespaces: ["*"]')]).toEqual([true, false]);
    expect([apf[1]!.includes('clusterScope: true'), apf[1]!.includes('namespaces: ["*"]')]).toEqual([false, true]);
  });

  it('worse severity first, though the groups are ordered by objects read', async () => {
    // 1,000 config map lists without resourceVersion: 10% of all requests and 1,000 from etcd, so high; the vector
    // group reads more objects (12 × 900 against 1,000 × 1, unknown) and leads the list groups
    const many = Array.from({ length: 1000 }, (_, i) => req('list', '/api/v1/configmaps', 'system:serviceaccount:ops:poller', 20_000 + i * 10, { userAgent: 'poller/1', objectRef: { resource: 'configmaps', apiVersion: 'v1' } }));
    const r = await scan(byTime([...vector, ...reads, ...many]));
    expect(r.listGroups.map((g) => g.username)).toEqual(['system:serviceaccount:vector:vector', 'system:serviceaccount:ops:poller']);
    // (the poller's 100 lists a second are also a storm: a finding with no client, left out here)
    expect(r.findings.filter((f) => 'client' in f).map((f) => [f.severity, 'client' in f ? f.client : null])).toEqual([['high', 'poller'], ['low', 'vector']]);
  });

  it('findings of one severity: most bytes read first, then most etcd requests', async () => {
    // two low findings without byte figures: 15 etcd lists before 11, though the 11 (100 secrets each, --objects)
    // lead the list groups (1,100 objects read against 15 × 1 unknown)
    const a = Array.from({ length: 11 }, (_, i) => req('list', '/api/v1/secrets', 'a-first', i * 100, { userAgent: 'a-first/1', objectRef: { resource: 'secrets', apiVersion: 'v1' } }));
    const b = Array.from({ length: 15 }, (_, i) => req('list', '/api/v1/services?fieldSelector=spec.nodeName%3Dn1', '', 5000 + i * 100, { userAgent: 'b-second/1', objectRef: { resource: 'services', apiVersion: 'v1' } }));
    const r = await scan([...a, ...b], ['--objects', 'secrets=100']);
    expect(r.listGroups.map((g) => g.userAgent)).toEqual(['a-first/1', 'b-second/1']);
    expect(r.findings.map((f) => ['client' in f ? f.client : null, 'etcdRequests' in f ? f.etcdRequests : null])).toEqual([['b-second', 15], ['a-first', 11]]);
    // no username: the client alone; one node: no "from 1 nodes"
    expect(r.findings[0]!.summary).toBe('b-second sent 15 service lists without resourceVersion; 15 were served from etcd; the etcd log does not show how much each read (pass the etcd log or --objects).');
    // with bytes known, bytes lead: vector's 21.6 MB before 15 requests of unknown size
    const withBytes = await scan(byTime([...vector, ...reads, ...b]));
    expect(withBytes.findings.map((f) => ('client' in f ? f.client : null))).toEqual(['vector', 'b-second']);
  });
});

describe('more figures, each on the side of its rule that a small log shows', () => {
  const pods = { resource: 'pods', apiVersion: 'v1' };

  it('--top cuts get groups and etcd ranges too', async () => {
    const get = (user: string, ms: number) => req('get', '/api/v1/namespaces/a/pods/p', user, ms, { objectRef: { resource: 'pods', apiVersion: 'v1', namespace: 'a', name: 'p' } });
    const lines = byTime([get('g1', 0), get('g1', 100), get('g2', 200), slowPods(300, 10, 100), slowPods(400, 5, 50, '/registry/secrets/')]);
    const all = await scan(lines);
    expect([all.getGroups.length, all.etcdRanges.length]).toEqual([2, 2]);
    const one = await scan(lines, ['--top', '1']);
    expect([one.getGroups.map((g) => g.username), one.etcdRanges.map((r) => r.key)]).toEqual([['g1'], ['/registry/pods/']]);
  });

  it('a cluster-wide list joins the reads of the whole range, not of one namespace in it', async () => {
    const r = await scan(byTime([req('list', '/api/v1/pods', 'alice', 0), req('list', '/api/v1/pods', 'alice', 1000), slowPods(20, 5000, 10_000), slowPods(1020, 5000, 10_000), slowPods(500, 30, 60, '/registry/pods/shop/')]));
    expect(r.listGroups[0]).toMatchObject({ objectsReadPerRequest: 5000, bytesReadPerRequest: 10_000 });
  });

  it('a list served from the cache takes no --objects figure; one from etcd does', async () => {
    const r = await scan([req('list', '/api/v1/pods?resourceVersion=0', 'cached', 0), req('list', '/api/v1/pods', 'direct', 1000)], ['--objects', 'pods=100']);
    expect(r.listGroups.map((g) => [g.username, g.objectsReadPerRequest])).toEqual([['direct', 100], ['cached', null]]);
  });

  it('a single-name list that returned nothing: 1 read, 0 returned, 1× (not infinite)', async () => {
    const resp = { level: 'RequestResponse', responseObject: { kind: 'PodList', metadata: {}, items: [] } };
    const r = await scan([req('list', '/api/v1/namespaces/shop/pods?fieldSelector=metadata.name%3Dgone', 'alice', 0, { ...resp, objectRef: { ...pods, namespace: 'shop' } })]);
    expect(r.listGroups[0]).toMatchObject({ objectsReadPerRequest: 1, objectsReturnedPerRequest: 0, amplification: 1 });
  });

  it('a per-node selector in one namespace is not divided by the nodes', async () => {
    const r = await scan(byTime([req('list', '/api/v1/namespaces/shop/pods?fieldSelector=spec.nodeName%3Dn1', 'agent', 0, { objectRef: { ...pods, namespace: 'shop' } }), slowPods(20, 60, 600, '/registry/pods/shop/')]));
    expect(r.listGroups[0]).toMatchObject({ objectsReadPerRequest: 60, objectsReturnedPerRequest: null, amplification: null });
  });

  it('lists that carry a resourceVersion and still read etcd say nothing of "without resourceVersion"', async () => {
    const r = await scan(Array.from({ length: 10 }, (_, i) => req('list', '/api/v1/pods?resourceVersion=123&limit=500', 'pager', i * 1000)));
    expect(r.findings.map((f) => f.summary)).toEqual(['pager sent 10 pod lists; 10 were served from etcd; the etcd log does not show how much each read (pass the etcd log or --objects).']);
  });

  it('objects read but nothing known of what was returned, or of the bytes: the sentence says only what is known', async () => {
    // a label selector: etcd read 900 each time, the returned count is not in the log
    const labelled = await scan(byTime([...Array.from({ length: 10 }, (_, i) => req('list', '/api/v1/pods?labelSelector=app%3Dx', 'sel', i * 1000)), ...Array.from({ length: 10 }, (_, i) => slowPods(i * 1000 + 20, 900, 1_800_000))]));
    expect(labelled.findings.map((f) => f.summary)).toEqual(['sel sent 10 pod lists without resourceVersion; 10 were served from etcd; the etcd log does not show how much each read (pass the etcd log or --objects).']);
    // --objects and per-node lists from 2 nodes, no etcd log: 500 read, ~250 returned, no bytes
    const given = await scan(Array.from({ length: 10 }, (_, i) => req('list', `/api/v1/pods?fieldSelector=spec.nodeName%3Dn${i % 2}`, 'agent', i * 1000)), ['--objects', 'pods=500']);
    expect(given.findings.map((f) => f.summary)).toEqual(['agent sent 10 pod lists from 2 nodes without resourceVersion; each read 500 pods from etcd to return ~250: 2× amplification (estimated)']);
  });

  it('a client below 10 etcd lists is a finding when it reads 10× what it returns, not below', async () => {
    // 5 lists returning 100 each (RequestResponse), etcd read 1,000 (10×) or 989 (9.9×) each time
    const run = (count: number) =>
      scan(byTime([
        ...Array.from({ length: 5 }, (_, i) => req('list', '/api/v1/pods?labelSelector=app%3Dx', 'small', i * 1000, { level: 'RequestResponse', responseObject: { kind: 'PodList', metadata: {}, items: Array.from({ length: 100 }, () => ({})) } })),
        ...Array.from({ length: 5 }, (_, i) => slowPods(i * 1000 + 20, count, count * 10)),
      ]));
    expect((await run(1000)).findings.map((f) => [f.kind, 'amplification' in f ? f.amplification : null])).toEqual([['etcd-list-amplification', 10]]);
    expect((await run(989)).findings).toEqual([]);
  });

  it('gets from etcd: medium at 10% of all requests, low below; no etcd evidence and no what-if for a get', async () => {
    const get = (i: number) => req('get', '/api/v1/namespaces/a/pods/p', 'getter', i, { objectRef: { resource: 'pods', apiVersion: 'v1', namespace: 'a', name: 'p' } });
    const other = (i: number) => req('watch', '/api/v1/pods?watch=true&resourceVersion=1', 'w', 2000 + i);
    // etcd's slow reads of the pods range are a list's, not evidence for a get
    const at10 = await scan([...Array.from({ length: 1000 }, (_, i) => get(i)), ...Array.from({ length: 9000 }, (_, i) => other(i)), slowPods(12_000, 10, 100)]);
    const f = at10.findings.find((x) => x.kind === 'get-from-etcd')!;
    expect(f.severity).toBe('medium');
    // the fix (resourceVersion=0) moves them to the cache: 1,000 etcd requests → 0
    expect(f).toMatchObject({ evidence: { etcd: null }, whatIf: { etcdRequests: { before: 1000, after: 0 } } });
    const below = await scan([...Array.from({ length: 1000 }, (_, i) => get(i)), ...Array.from({ length: 9001 }, (_, i) => other(i))]);
    expect(below.findings.find((x) => x.kind === 'get-from-etcd')!.severity).toBe('low');
  });

  it('events have no watch cache to move to: their finding has no what-if', async () => {
    const r = await scan(Array.from({ length: 10 }, (_, i) => req('list', '/api/v1/events', 'ev', i * 1000, { objectRef: { resource: 'events', apiVersion: 'v1' } })));
    expect(r.findings.map((f) => [f.kind, 'whatIf' in f ? f.whatIf : undefined])).toEqual([['list-from-etcd', null]]);
  });

  it('--redact replaces a namespaced group’s namespace with its pseudonym', async () => {
    const r = await scan([req('list', '/api/v1/namespaces/payments/pods', 'alice', 0, { objectRef: { ...pods, namespace: 'payments' } }), req('list', '/api/v1/namespaces/shop/pods', 'bob', 1000, { objectRef: { ...pods, namespace: 'shop' } })], ['--redact', '--redact-key', 'k']);
    const ns = r.listGroups.map((g) => g.namespace);
    expect(ns).toHaveLength(2);
    for (const n of ns) expect(['payments', 'shop', '*', null, undefined]).not.toContain(n);
    // each namespace its own pseudonym
    expect(ns[0]).not.toBe(ns[1]);
  });
});
