// Watch-lists (client-go ≥ 0.35 relists with watch?sendInitialEvents=true, KEP-3157) are lists wherever lists are
// counted, and a restart's cache start-up (429 "storage is (re)initializing", ResilientWatchCacheInitialization)
// is counted as rejected reads, not as etcd reads. One generated log, written twice: as lists and as watch-lists.
import { describe, expect, it } from 'vitest';
import { runCli } from '../support.js';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const ts = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');
const RESTART_FROM = T0 + 5 * 60_000; // 12:05:00, the last event before the pause
const RESTART_TO = T0 + 5 * 60_000 + 30_000; // 12:05:30, the first event after it
const NODES = 80;

interface Ev {
  t: number;
  verb: string;
  uri: string;
  user: string;
  ua: string;
  code?: number;
  message?: string;
  resource?: string;
  namespace?: string;
}

let seq = 0;
function line(e: Ev): string {
  const id = `id-${++seq}`;
  return JSON.stringify({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: id, stage: 'ResponseComplete',
    requestURI: e.uri, verb: e.verb, user: { username: e.user }, userAgent: e.ua,
    objectRef: { resource: e.resource ?? 'pods', namespace: e.namespace, apiVersion: 'v1' },
    responseStatus: e.code === 429 ? { metadata: {}, status: 'Failure', message: e.message, reason: 'TooManyRequests', code: 429 } : { metadata: {}, code: e.code ?? 200 },
    requestReceivedTimestamp: ts(e.t), stageTimestamp: ts(e.t + 20),
  });
}

/** The relist of one agent's pods on its node, in the form the client-go of the test sends. */
function relist(node: string, form: 'list' | 'watch-list'): { verb: string; uri: string } {
  const sel = `fieldSelector=spec.nodeName%3D${node}`;
  return form === 'list'
    ? { verb: 'list', uri: `/api/v1/pods?${sel}&limit=500&resourceVersion=0` }
    : { verb: 'watch', uri: `/api/v1/pods?allowWatchBookmarks=true&${sel}&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=300&watch=true` };
}

/**
 * 12:00:00–12:05:00 and 12:05:40–12:10:00: a controller's configmap get every 100 ms (the input's spacing, so a
 * pause of 10 s is a gap). 12:05:00–12:05:30: nothing (the apiserver restarts). 12:05:30 on: every node's vector
 * agent and kubelet relist their pods, one request every 50 ms: 160 in 8 s (20/s).
 * `init429`: the first 20 vector relists are answered 429 "storage is (re)initializing" and retried once each at
 * 12:05:39; a controller-manager list with a limit and no selector falls inside that window (12:05:30.500).
 */
function makeLog(form: 'list' | 'watch-list', o: { init429?: boolean; continuePages?: boolean } = {}): string {
  seq = 0;
  const evs: Ev[] = [];
  for (let t = T0; t <= RESTART_FROM; t += 100) evs.push({ t, verb: 'get', uri: '/api/v1/namespaces/a/configmaps/c', user: 'system:serviceaccount:a:ctl', ua: 'ctl/1', resource: 'configmaps', namespace: 'a' });
  for (let t = RESTART_TO + 10_000; t <= T0 + 10 * 60_000; t += 100) evs.push({ t, verb: 'get', uri: '/api/v1/namespaces/a/configmaps/c', user: 'system:serviceaccount:a:ctl', ua: 'ctl/1', resource: 'configmaps', namespace: 'a' });
  let t = RESTART_TO;
  for (let i = 0; i < NODES; i++) {
    const node = `node-${i}`;
    const r = relist(node, form);
    const rejected = o.init429 === true && i < 20;
    evs.push({ t, ...r, user: 'system:serviceaccount:vector:vector', ua: 'vector/0.34.1', ...(rejected ? { code: 429, message: 'storage is (re)initializing' } : {}) });
    if (rejected) evs.push({ t: RESTART_TO + 9_000 + i, ...r, user: 'system:serviceaccount:vector:vector', ua: 'vector/0.34.1' });
    t += 50;
    evs.push({ t, ...relist(node, form), user: `system:node:${node}`, ua: 'kubelet/v1.34.1 (linux/amd64) kubernetes/abcdef' });
    t += 50;
  }
  if (o.init429 === true) evs.push({ t: RESTART_TO + 500, verb: 'list', uri: '/api/v1/pods?limit=500', user: 'system:kube-controller-manager', ua: 'kube-controller-manager/v1.34.1 (linux/amd64) kubernetes/abcdef/shared-informers' });
  if (o.continuePages === true) {
    // a page 5 s after the restart (its token older than the restarted cache) and one 3 min later
    evs.push({ t: RESTART_TO + 5_000, verb: 'list', uri: '/api/v1/pods?continue=abc&limit=500', user: 'system:serviceaccount:argo:argo', ua: 'argo/3' });
    evs.push({ t: RESTART_TO + 180_000, verb: 'list', uri: '/api/v1/pods?continue=def&limit=500', user: 'system:serviceaccount:argo:argo', ua: 'argo/3' });
  }
  evs.sort((a, b) => a.t - b.t);
  return evs.map(line).join('\n') + '\n';
}

async function scan(log: string, version: string): Promise<any> {
  const r = await runCli(['-o', 'json', '--kube-version', version, '-'], log);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

const group = (rep: any, ua: string): any => rep.listGroups.find((g: any) => g.userAgent.startsWith(ua));
const restartOf = (rep: any): any => rep.findings.find((f: any) => f.kind === 'apiserver-restart');
const stormOf = (rep: any): any => rep.findings.find((f: any) => f.kind === 'list-storm');

describe('a relist storm written as lists and as watch-lists', () => {
  it('gives the same groups, storm and relist counts; only the verdicts of the version differ', async () => {
    const lists = await scan(makeLog('list'), '1.34');
    const watchLists = await scan(makeLog('watch-list'), '1.34');
    for (const rep of [lists, watchLists]) {
      // 160 relists in [12:05:30, 12:05:38): 80 vector + 80 kubelet, none before the pause
      expect(rep.totals.listRequests).toBe(160);
      expect(group(rep, 'vector').requests).toBe(80);
      expect(group(rep, 'kubelet').requests).toBe(80);
      expect(group(rep, 'kubelet').nodes).toBe(80);
      expect(restartOf(rep)).toMatchObject({ listsInMinuteBefore: 0, listsInMinuteAfter: 160, signs: ['relist burst after'] });
      expect(stormOf(rep)).toMatchObject({ resource: 'pods', requests: 160, peakPerSecond: 20 });
    }
    expect(lists.totals.watchRequests).toBe(0);
    expect(watchLists.totals.watchRequests).toBe(0);
    expect(group(lists, 'vector')).toMatchObject({ verb: 'list', watchLists: 0, servedFrom: { etcd: 0, cache: 80, unknown: 0, rejected: 0 }, reasons: { 'resourceVersion=0': 80 } });
    expect(group(watchLists, 'vector')).toMatchObject({
      verb: 'list',
      watchLists: 80,
      servedFrom: { etcd: 0, cache: 80, unknown: 0, rejected: 0 },
      reasons: { 'watch-list from the watch cache (+1 etcd limit:1 range for the current revision)': 80 },
    });
    expect(stormOf(lists).summary).toMatch(/^160 pods lists in 8 s/);
    expect(stormOf(watchLists).summary).toMatch(/^160 pods watch-lists in 8 s/);
    expect(restartOf(watchLists).summary).toContain('then 160 lists and watch-lists in the next minute against 0 in the minute before');
  });

  it('on 1.33 (WatchList gate off) a watch-list read nothing: refused, the client falls back to a list', async () => {
    const rep = await scan(makeLog('watch-list'), '1.33');
    expect(group(rep, 'vector')).toMatchObject({ watchLists: 80, servedFrom: { etcd: 0, cache: 0, unknown: 0, rejected: 80 } });
    expect(group(rep, 'vector').reasons).toEqual({ 'watch-list refused (WatchList gate off in 1.33; the client falls back to a list)': 80 });
  });

  it('a watch-list refused with 422 is not a list: the fallback list after it is, once', async () => {
    // as a 1.33 server answers client-go 0.35: 422 to the watch-list, then the reflector lists
    const refused = makeLog('watch-list')
      .split('\n')
      .filter((l) => l.length > 0)
      .flatMap((l) => {
        const e = JSON.parse(l);
        if (e.verb !== 'watch') return [l];
        const fallback = { ...e, auditID: `${e.auditID}-list`, verb: 'list', requestURI: e.requestURI.replace(/allowWatchBookmarks=true&|&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=300&watch=true/g, '') + '&limit=500&resourceVersion=0' };
        return [JSON.stringify({ ...e, responseStatus: { metadata: {}, code: 422 } }), JSON.stringify(fallback)];
      })
      .join('\n');
    const rep = await scan(refused + '\n', '1.33');
    expect(rep.totals.listRequests).toBe(160);
    expect(rep.totals.watchRequests).toBe(160);
    expect(group(rep, 'vector')).toMatchObject({ watchLists: 0, requests: 80, servedFrom: { etcd: 0, cache: 80, unknown: 0, rejected: 0 } });
    expect(restartOf(rep)).toMatchObject({ listsInMinuteAfter: 160 });
  });
});

/** makeLog's watch-lists answered `code`, each followed by the reflector's fallback list (resourceVersion `rv`,
 * limit=500), as client-go 0.35 does against a server whose WatchList gate is off. */
function skewed(code: 200 | 422, rv: '' | '0'): string {
  return makeLog('watch-list')
    .split('\n')
    .filter((l) => l.length > 0)
    .flatMap((l) => {
      const e = JSON.parse(l);
      if (e.verb !== 'watch') return [l];
      const base = e.requestURI.replace(/allowWatchBookmarks=true&|&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=300&watch=true/g, '');
      const fallback = { ...e, auditID: `${e.auditID}-list`, verb: 'list', requestURI: `${base}&limit=500${rv === '' ? '' : `&resourceVersion=${rv}`}` };
      return [JSON.stringify({ ...e, responseStatus: { metadata: {}, code } }), JSON.stringify(fallback)];
    })
    .join('\n') + '\n';
}

describe('version skew: client-go 0.35 watch-lists against a 1.29 apiserver (issue 46 #2)', () => {
  it('refused watch-lists read nothing: the storm says so, and never counts them as etcd reads', async () => {
    // 160 watch-lists logged 200 (a log that keeps them as lists), no fallback: every one refused by the gate
    const rep = await scan(makeLog('watch-list'), '1.29');
    expect(group(rep, 'vector')).toMatchObject({ watchLists: 80, servedFrom: { etcd: 0, cache: 0, unknown: 0, rejected: 80 } });
    const st = stormOf(rep);
    expect(st).toMatchObject({ requests: 160, etcdShare: 0, refusedShare: 1, severity: 'low' });
    expect(st.summary).toContain('; 100% refused before storage (read nothing).');
    expect(st.summary).not.toContain('went to etcd');
    expect(st.fix).toMatch(/^Refused before storage: these watch-lists read nothing/);
    expect(st.clients.map((c: any) => [c.client, c.etcdShare])).toEqual([['kubelet', 0], ['vector', 0]]);
    expect(rep.findings.filter((f: any) => f.kind === 'list-from-etcd' || f.kind === 'etcd-list-amplification')).toEqual([]);
  });

  it('the fallback list is what reaches etcd: half the storm\'s requests, the refused half read nothing', async () => {
    // 160 refused watch-lists + 160 fallback lists without resourceVersion (limit=500: etcd on 1.29)
    const rep = await scan(skewed(200, ''), '1.29');
    expect(group(rep, 'vector')).toMatchObject({ requests: 160, watchLists: 80, servedFrom: { etcd: 80, cache: 0, unknown: 0, rejected: 80 } });
    const st = stormOf(rep);
    expect(st).toMatchObject({ requests: 320, etcdShare: 0.5, refusedShare: 0.5 });
    expect(st.summary).toContain('; 50% went to etcd, 50% refused before storage (read nothing).');
    expect(st.fix).toMatch(/^The storm reaches etcd/);
    const f = rep.findings.find((x: any) => x.kind === 'list-from-etcd' && x.client === 'vector');
    expect(f).toMatchObject({ requests: 160, etcdRequests: 80 });
    expect(f.summary).toContain('sent 160 pod lists from 80 nodes without resourceVersion, 80 of them refused before storage (read nothing); 80 were served from etcd');
    // with resourceVersion=0 the fallback is the watch cache's: nothing of the storm reached etcd
    const rv0 = stormOf(await scan(skewed(200, '0'), '1.29'));
    expect(rv0).toMatchObject({ requests: 320, etcdShare: 0, refusedShare: 0.5 });
    expect(rv0.summary).toContain('; 50% served from the watch cache (harmless for etcd), 50% refused before storage (read nothing).');
    // as a real 1.29 answers (422): the watch-lists are watches that never streamed, the storm is the 160 lists
    const real = await scan(skewed(422, ''), '1.29');
    expect(real.totals).toMatchObject({ listRequests: 160, watchRequests: 160 });
    expect(stormOf(real)).toMatchObject({ requests: 160, etcdShare: 1, refusedShare: 0 });
    expect(stormOf(real).summary).toContain('; 100% went to etcd.');
  });

  it('the postmortem\'s incident line says the same as the storm', async () => {
    const r = await runCli(['-o', 'markdown', '--kube-version', '1.29', '-'], skewed(200, ''));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('320 pods lists, peak 40/s, 50% from etcd, 50% refused');
    const none = await runCli(['-o', 'markdown', '--kube-version', '1.29', '-'], makeLog('watch-list'));
    expect(none.stdout).toContain('| 160 pods lists, peak 20/s, 100% refused |');
  });

  it('a watch refused with an error never streamed: it is no watch ending before a pause', async () => {
    // 10 watches end in the 10 s before a 30 s pause: a restart's sign when they streamed (200), none when refused (422)
    const pause = (code: number): string => {
      const evs: string[] = [];
      for (let t = T0; t <= RESTART_FROM; t += 100) evs.push(line({ t, verb: 'get', uri: '/api/v1/namespaces/a/configmaps/c', user: 'u', ua: 'ctl/1', resource: 'configmaps', namespace: 'a' }));
      for (let i = 0; i < 10; i++) evs.push(line({ t: RESTART_FROM - 5_000 + i, verb: 'watch', uri: '/api/v1/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true', user: 'u', ua: 'informer/0.35', code }));
      for (let t = RESTART_TO; t <= T0 + 10 * 60_000; t += 100) evs.push(line({ t, verb: 'get', uri: '/api/v1/namespaces/a/configmaps/c', user: 'u', ua: 'ctl/1', resource: 'configmaps', namespace: 'a' }));
      return evs.sort((a, b) => Date.parse(JSON.parse(a).stageTimestamp) - Date.parse(JSON.parse(b).stageTimestamp)).join('\n') + '\n';
    };
    for (const engine of ['wasm', 'js']) {
      const streamed = await runCli(['-o', 'json', '--kube-version', '1.34', '--engine', engine, '-'], pause(200));
      expect(restartOf(JSON.parse(streamed.stdout)), engine).toMatchObject({ watchesClosedBefore: 10, signs: ['watches ended before'] });
      const refused = JSON.parse((await runCli(['-o', 'json', '--kube-version', '1.29', '--engine', engine, '-'], pause(422))).stdout);
      expect(restartOf(refused), engine).toBeUndefined();
      expect(refused.findings.find((f: any) => f.kind === 'audit-gap'), engine).toMatchObject({ watchesClosedBefore: 0 });
    }
  });
});

describe('the watch cache starting up after a restart (1.31+)', () => {
  it('counts the 429s per client, not as reads; a limit-without-selector list in that window read etcd', async () => {
    const rep = await scan(makeLog('watch-list', { init429: true }), '1.34');
    // vector: 80 first tries (20 answered 429) + 20 retries = 100 requests, 80 served from the cache
    expect(group(rep, 'vector')).toMatchObject({ requests: 100, watchLists: 100, rejectedInitializing: 20, servedFrom: { etcd: 0, cache: 80, unknown: 0, rejected: 20 } });
    expect(group(rep, 'vector').reasons['answered 429: API Priority and Fairness, or the watch cache (re)initialising']).toBe(20);
    expect(restartOf(rep)).toMatchObject({ rejectedInMinuteAfter: 20, rejectedInitializing: 20, rejectedClients: [{ client: 'vector', requests: 20 }] });
    expect(restartOf(rep).summary).toContain('; 20 requests answered 429 in the minute after (20 "storage is (re)initializing": its watch cache was not ready, so they read nothing), most by vector 20.');
    // rv="" limit=500 is a consistent read from the cache on 1.34, but at 12:05:30.5 the pods cache was not ready
    const kcm = group(rep, 'kube-controller-manager');
    expect(kcm).toMatchObject({ requests: 1, servedFrom: { etcd: 1, cache: 0, unknown: 0, rejected: 0 } });
    expect(kcm.reasons).toEqual({ 'limit without selector while the watch cache (re)initialised after a restart (1.31+: delegated to etcd)': 1 });
  });

  it('before 1.31 there is no such window: the same list is classified by its query alone', async () => {
    const rep = await scan(makeLog('list', { init429: true }), '1.30');
    expect(group(rep, 'kube-controller-manager').reasons).toEqual({ 'no resourceVersion (paginated)': 1 });
  });
});

describe('continue pages after a restart (1.34+ cache snapshots)', () => {
  it('a page in the minute after its apiserver restarted read etcd; one three minutes later came from a snapshot', async () => {
    const rep = await scan(makeLog('list', { continuePages: true }), '1.34');
    expect(group(rep, 'argo')).toMatchObject({ requests: 2, servedFrom: { etcd: 1, cache: 1, unknown: 0, rejected: 0 } });
    expect(group(rep, 'argo').reasons).toEqual({
      'continue token within a minute of this apiserver’s restart (1.34+: older than its new cache’s snapshots, so etcd)': 1,
      'continue token from cache snapshot (1.34+, if still in history)': 1,
    });
    // 1.33 has no snapshots: every continue page reads etcd, restart or not
    const old = await scan(makeLog('list', { continuePages: true }), '1.33');
    expect(group(old, 'argo').reasons).toEqual({ 'continue token': 2 });
  });
});

describe('1.36 sharded lists and AKS bodies', () => {
  it('the shards of one client are one group, whatever their range', async () => {
    const shard = (i: number, n: number): string =>
      JSON.stringify({
        kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: `sh-${i}`, stage: 'ResponseComplete', verb: 'list',
        requestURI: `/api/v1/pods?limit=500&resourceVersion=0&shardSelector=${encodeURIComponent(`shardRange(object.metadata.uid, '0x${i.toString(16)}000000000000000', '0x${(i + 1).toString(16)}000000000000000')`)}`,
        user: { username: 'system:serviceaccount:s:s' }, userAgent: 'sharded/1', objectRef: { resource: 'pods', apiVersion: 'v1' },
        responseStatus: { code: 200 }, requestReceivedTimestamp: ts(T0 + i * 1000 + n), stageTimestamp: ts(T0 + i * 1000 + n + 5),
      });
    const rep = await scan([0, 1, 2, 3].map((i) => shard(i, 0)).join('\n') + '\n', '1.36');
    expect(rep.listGroups).toHaveLength(1);
    expect(rep.listGroups[0]).toMatchObject({ requests: 4, selector: 'shard=<range>', servedFrom: { cache: 4 } });
  });

  it('"skipped-too-big-size-object" in place of a body is no error and no returned count', async () => {
    const e = JSON.parse(line({ t: T0, verb: 'list', uri: '/api/v1/pods?limit=500&resourceVersion=0', user: 'u', ua: 'aks/1' }));
    const rep = await scan(JSON.stringify({ ...e, level: 'RequestResponse', responseObject: 'skipped-too-big-size-object', requestObject: 'skipped-too-big-size-object' }) + '\n', '1.30');
    expect(rep.totals.skippedLines).toBe(0);
    expect(rep.listGroups[0]).toMatchObject({ requests: 1, objectsReturnedPerRequest: null });
  });
});
