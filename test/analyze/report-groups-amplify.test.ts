// How a read group's requests are counted (429s and their reasons, reads a restart or an apiserver trace moves to
// etcd) and where an etcd-served list's objects and bytes per request come from: etcd reads, --objects, /metrics.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLine, runCli } from '../support.js';
import type { GroupReport, ScanReport } from '../../src/analyze/report.js';

const T = Date.UTC(2026, 10, 30, 12, 10, 30); // the lists' minute is 12:10
const iso = (ms: number): string => new Date(ms).toISOString();
let seq = 0;

/** A list by `who` at `ms` (pods unless the URI names configmaps). */
function list(ms: number, who: string, uri: string, extra: Record<string, unknown> = {}): string {
  const resource = uri.includes('/configmaps') ? 'configmaps' : 'pods';
  const namespace = /\/namespaces\/([^/]+)\//.exec(uri)?.[1];
  return auditLine({ auditID: `ga${seq++}`, verb: 'list', requestURI: uri, user: { username: `system:serviceaccount:ops:${who}` }, userAgent: `${who}/1`, objectRef: { resource, namespace, apiVersion: 'v1' }, requestReceivedTimestamp: iso(ms), stageTimestamp: iso(ms + 5), ...extra });
}
const answered429 = (message: string) => ({ responseStatus: { metadata: {}, status: 'Failure', message, reason: 'TooManyRequests', code: 429 } });
const INITIALIZING = 'storage is (re)initializing';

/** One slow etcd read (zap); `response` is what etcd said it returned. */
function read(ms: number, key: string, end: string, response: string): string {
  return JSON.stringify({ level: 'warn', ts: iso(ms), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '120.5ms', 'expected-duration': '100ms', prefix: 'read-only range ', request: `key:${JSON.stringify(key)} range_end:${JSON.stringify(end)} `, response });
}
const allPods = (ms: number, response: string) => read(ms, '/registry/pods/', '/registry/pods0', response);
const shopPods = (ms: number, response: string) => read(ms, '/registry/pods/shop/', '/registry/pods/shop0', response);

async function scanFiles(files: Record<string, string>, args: string[]): Promise<ScanReport> {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-amplify-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const r = await runCli(['-o', 'json', ...args, ...Object.keys(files).map((f) => join(dir, f))]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as ScanReport;
}
async function scan(lines: string[], args: string[]): Promise<ScanReport> {
  const r = await runCli(['-o', 'json', ...args, '-'], lines.join('\n') + '\n');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as ScanReport;
}
const groupOf = (r: ScanReport, who: string): GroupReport => r.listGroups.find((g) => g.userAgent.startsWith(`${who}/`))!;

const INIT_ETCD = 'limit without selector while the watch cache (re)initialised after a restart (1.31+: delegated to etcd)';
const APF_OR_INIT = 'answered 429: API Priority and Fairness, or the watch cache (re)initialising';
const APF = 'answered 429 (API Priority and Fairness)';

describe('429s, and the lists a restarting watch cache sends to etcd (1.31)', () => {
  // 12:10:30 kcm's list with limit=500 is answered 429 "initializing", at 12:10:40 vector's: the pods cache of this
  // input was not ready from the first to the last of them. kcm's retry at +5 s (a consistent read from the cache by
  // its query on 1.31) falls inside, and so does pager's exact page at +6 s (etcd by its query anyway). cm's page of
  // configmaps (a continue token: etcd on 1.31) is refused by APF.
  // (an input's first second is counted at its end, as dedup's head: a get a minute before keeps the rest in order)
  const log = [
    auditLine({ auditID: 'ga-first', verb: 'get', requestURI: '/api/v1/namespaces/a/configmaps/c', objectRef: { resource: 'configmaps', namespace: 'a', name: 'c', apiVersion: 'v1' }, requestReceivedTimestamp: iso(T - 60_000), stageTimestamp: iso(T - 59_995) }),
    list(T, 'kcm', '/api/v1/pods?limit=500', answered429(INITIALIZING)),
    list(T + 3000, 'cm', '/api/v1/configmaps?continue=abc&limit=500', answered429('Too many requests, please try again later.')),
    list(T + 5000, 'kcm', '/api/v1/pods?limit=500'),
    list(T + 6000, 'pager', '/api/v1/pods?limit=500&resourceVersion=100'),
    list(T + 10_000, 'vector', '/api/v1/pods?limit=500', answered429(INITIALIZING)),
  ];
  let scanned: Promise<ScanReport> | undefined;
  const rep = () => (scanned ??= scan(log, ['--kube-version', '1.31', '--objects', 'pods=1000', '--objects', 'configmaps=50']));

  it.each([
    // the 429 comes first: its reason is the initialising one; the retry is the restart's, not a continue page's
    ['kcm', { requests: 2, rejectedInitializing: 1, servedFrom: { etcd: 1, cache: 0, unknown: 0, rejected: 1 } }, { [APF_OR_INIT]: 1, [INIT_ETCD]: 1 }],
    // served from etcd by its own query: the restart changes nothing, and its reason stays its query's
    ['pager', { requests: 1, rejectedInitializing: 0, servedFrom: { etcd: 1, cache: 0, unknown: 0, rejected: 0 } }, { 'limit with resourceVersion≠0 (exact page)': 1 }],
    // no cache was initialising for it: APF alone
    ['cm', { requests: 1, rejectedInitializing: 0, servedFrom: { etcd: 0, cache: 0, unknown: 0, rejected: 1 } }, { [APF]: 1 }],
    ['vector', { requests: 1, rejectedInitializing: 1, servedFrom: { etcd: 0, cache: 0, unknown: 0, rejected: 1 } }, { [APF_OR_INIT]: 1 }],
  ])('%s: counts and reasons', async (who, counts, reasons) => {
    const g = groupOf(await rep(), who);
    expect(g).toMatchObject(counts);
    expect(g.reasons).toEqual(reasons);
  });

  it('a list the restart sent to etcd gets the figures of an etcd list: --objects, unfiltered, so 1×, estimated by --objects alone', async () => {
    expect(groupOf(await rep(), 'kcm')).toMatchObject({ objectsReadPerRequest: 1000, objectsReturnedPerRequest: 1000, amplification: 1, bytesReadPerRequest: null, estimated: true, figureSources: { objectsRead: 'given', objectsReturned: 'unfiltered-list', bytesRead: null } });
  });

  it('a group whose every request was refused read nothing from etcd, whatever its query: no figures', async () => {
    expect(groupOf(await rep(), 'cm')).toMatchObject({ objectsReadPerRequest: null, objectsReturnedPerRequest: null, amplification: null, estimated: false, figureSources: { objectsRead: null, objectsReturned: null, bytesRead: null } });
    expect(groupOf(await rep(), 'vector')).toMatchObject({ objectsReadPerRequest: null, amplification: null });
  });
});

describe("the apiserver's traces that show a storage read of etcd (1.28, -v=3)", () => {
  const klogTime = (ms: number): string => {
    const d = new Date(ms);
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    return `I${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}000`;
  };
  const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
  const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  /** A request's httplog line, ending at `ms`. */
  const httplog = (ua: string, ms: number, n: number, uri: string, code = 200) =>
    `${klogTime(ms)}       1 httplog.go:132] "HTTP" verb="LIST" URI="${uri}" latency="650ms" userAgent="${ua}" audit-ID="${id(n)}" srcIP="10.0.3.1:4000" apf_pl="workload-low" apf_fs="service-accounts" apf_iseats=10 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="649ms" resp=${code}`;
  /** Its trace, just before: the storage step read etcd with resourceVersion `rv`; 3 items written back. */
  const trace = (ua: string, ms: number, n: number, rv: string) => {
    const hms = (t: number) => new Date(t).toISOString().slice(11, 23);
    return [
      `${klogTime(ms - 1)}       1 trace.go:236] Trace[${n}]: "List" accept:application/json, */*,audit-id:${id(n)},client:10.0.3.1,protocol:HTTP/2.0,resource:pods,scope:cluster,url:/api/v1/pods,user-agent:${ua},verb:LIST (30-Nov-2026 ${hms(ms - 650)}) (total time: 650ms):`,
      `Trace[${n}]: ["List(recursive=true) etcd3" audit-id:${id(n)},key:/pods,resourceVersion:${rv},resourceVersionMatch:,limit:0,continue: 600ms (${hms(ms - 650)})]`,
      `Trace[${n}]: ---"Writing http response done" count:3 50ms (${hms(ms)})`,
      `Trace[${n}]: [650ms] [650ms] END`,
    ];
  };
  const traced = (ua: string, ms: number, n: number, rv: string, code = 200) => [...trace(ua, ms, n, rv), httplog(ua, ms, n, rv === '' ? '/api/v1/pods' : `/api/v1/pods?resourceVersion=${rv}`, code)];
  const log = [
    // mixed: one list without resourceVersion (etcd by its query), three with resourceVersion=0 (the cache by theirs),
    // two of those traced reading etcd: 3 traced etcd reads, 1 counted already, so 2 move from the cache
    ...traced('mixed/1', T0 + 1000, 1, ''),
    ...traced('mixed/1', T0 + 2000, 2, '0'),
    ...traced('mixed/1', T0 + 3000, 3, '0'),
    httplog('mixed/1', T0 + 4000, 4, '/api/v1/pods?resourceVersion=0'),
    // cached: only resourceVersion=0 lists, two of three traced reading etcd
    ...traced('cached/1', T0 + 5000, 5, '0'),
    ...traced('cached/1', T0 + 6000, 6, '0'),
    httplog('cached/1', T0 + 7000, 7, '/api/v1/pods?resourceVersion=0'),
    // two: two cache reasons of 2 each (resourceVersion=7 seen first, then resourceVersion=0), 3 traced reading etcd
    ...traced('two/1', T0 + 7100, 11, '7'),
    ...traced('two/1', T0 + 7200, 12, '7'),
    ...traced('two/1', T0 + 7300, 13, '0'),
    httplog('two/1', T0 + 7400, 14, '/api/v1/pods?resourceVersion=0'),
    // refused: answered 429 (though its trace names an etcd read): no etcd list, nothing to move
    ...traced('refused/1', T0 + 8000, 8, '', 429),
    // trace-only: a trace with no httplog line (-v=2): no APF priority level
    ...trace('traceonly/1', T0 + 9000, 9, ''),
  ];
  let scanned: Promise<ScanReport> | undefined;
  const rep = () => (scanned ??= scanFiles({ 'kube-apiserver.log': log.join('\n') + '\n' }, ['--kube-version', '1.28', '--syslog-year', '2026', '--objects', 'pods=1000']));
  const TRACE_ETCD = "the apiserver's trace of the request shows its storage read etcd";

  it('the traced reads beyond those counted from etcd move from the cache: 1 + min(3 − 1, 3) = 3 from etcd, 1 from the cache', async () => {
    const g = groupOf(await rep(), 'mixed');
    expect(g).toMatchObject({ requests: 4, servedFrom: { etcd: 3, cache: 1, unknown: 0, rejected: 0 }, apiserverLog: { httplog: 4, traced: 3, observedEtcd: 3 } });
    expect(g.reasons[TRACE_ETCD]).toBe(2);
    expect(g.reasons['no resourceVersion']).toBe(1);
  });

  it('a group with no etcd read by its queries becomes an etcd list once a trace shows one: its figures follow', async () => {
    const g = groupOf(await rep(), 'cached');
    expect(g).toMatchObject({ requests: 3, servedFrom: { etcd: 2, cache: 1, unknown: 0, rejected: 0 }, objectsReadPerRequest: 1000 });
    expect(g.reasons[TRACE_ETCD]).toBe(2);
    // 3 returned per traced request ("Writing http response done" count:3): 1000 / 3
    expect(g).toMatchObject({ objectsReturnedPerRequest: 3, amplification: 333.3, figureSources: { objectsRead: 'given', objectsReturned: 'apiserver-trace' } });
  });

  // mixed: 1 without resourceVersion (etcd), 3 with resourceVersion=0 of which 2 move; cached: 3 with 0, 2 move
  it.each([
    ['mixed', 4, { "the apiserver's trace of the request shows its storage read etcd": 2, 'no resourceVersion': 1, 'resourceVersion=0': 1 }],
    ['cached', 3, { "the apiserver's trace of the request shows its storage read etcd": 2, 'resourceVersion=0': 1 }],
    // 3 move: the reasons tie at 2, so resourceVersion=0 (first by name) gives its 2, then resourceVersion=N 1
    ['two', 4, { "the apiserver's trace of the request shows its storage read etcd": 3, 'resourceVersion=N, no limit': 1 }],
  ])('the moved reads leave their cache reason: %s’s reasons add up to its %i requests', async (who, requests, reasons) => {
    const g = groupOf(await rep(), who);
    expect(g.reasons).toEqual(reasons);
    expect(Object.values(g.reasons).reduce((a, b) => a + b, 0)).toBe(requests);
  });

  it('a refused request moves nothing, trace or not: no etcd list, no figures', async () => {
    expect(groupOf(await rep(), 'refused')).toMatchObject({ requests: 1, servedFrom: { etcd: 0, cache: 0, unknown: 0, rejected: 1 }, objectsReadPerRequest: null, amplification: null, figureSources: { objectsRead: null } });
  });

  it.each([
    ['mixed', 'workload-low'],
    ['traceonly', null],
  ])("%s: the APF priority level httplog named, or null with none", async (who, level) => {
    expect(groupOf(await rep(), who).apiserverLog!.priorityLevel).toBe(level);
  });
});

describe('the objects and bytes an etcd list of every pod read (1.30, no resourceVersion)', () => {
  const pods = (n: number) => Array.from({ length: n }, (_, i) => list(T + i * 10, 'lister', '/api/v1/pods'));

  it.each([
    // 1,000 × 13,300,000 / 7,000; an empty range read's header bytes (count 0) are no bytes of an object
    ['bytes per object leave out empty reads', [allPods(T, 'range_response_count:7000 size:13300000'), shopPods(T, 'range_response_count:0 size:7000')], 1_900_000, 'estimate-bytes-per-object'],
    // a range whose reads did not all give their size gives no bytes per object; the etcd log's own bytes are of
    // another count than --objects, so none
    ['a range with a read of no size gives none', [allPods(T, 'range_response_count:100 size:1000'), allPods(T + 100, 'range_response_count:100')], null, null],
    ['only empty reads: no bytes per object, and the etcd bytes are not of 1,000 objects', [allPods(T, 'range_response_count:0 size:500')], null, null],
  ])('--objects pods=1000: %s', async (_what, reads, bytes, source) => {
    const g = groupOf(await scan([...pods(4), ...reads], ['--kube-version', '1.30', '--objects', 'pods=1000']), 'lister');
    expect(g).toMatchObject({ objectsReadPerRequest: 1000, bytesReadPerRequest: bytes, bytesReadTotal: bytes === null ? null : bytes * 4, figureSources: { objectsRead: 'given', bytesRead: source } });
  });

  it('a group without times (implausible ones) is matched with reads at any time: (100 + 300) / 2 = 200', async () => {
    // 1901 is before any real clock: the list and the first read keep no time (the read: minute -1)
    const old = Date.UTC(1901, 0, 1);
    const lines = [list(old, 'lister', '/api/v1/pods'), allPods(old, 'range_response_count:100 size:1000'), allPods(T, 'range_response_count:300 size:3000')];
    const g = groupOf(await scan(lines, ['--kube-version', '1.30']), 'lister');
    expect(g).toMatchObject({ firstSeen: null, objectsReadPerRequest: 200, bytesReadPerRequest: 2000, figureSources: { objectsRead: 'etcd-log', bytesRead: 'etcd-log' } });
  });

  it('a list by metadata.name in a namespace reads one key: its ratio is 1 / returned (a body of 2 items: 0.5)', async () => {
    const items = [{ metadata: { name: 'web', namespace: 'shop' } }, { metadata: { name: 'web', namespace: 'shop' } }];
    const one = list(T, 'lister', '/api/v1/namespaces/shop/pods?fieldSelector=metadata.name%3Dweb', { level: 'RequestResponse', responseObject: { kind: 'PodList', items } });
    const g = groupOf(await scan([one], ['--kube-version', '1.30']), 'lister');
    expect(g).toMatchObject({ servedFrom: { etcd: 1 }, objectsReadPerRequest: 1, objectsReturnedPerRequest: 2, amplification: 0.5, figureSources: { objectsRead: 'single-object', objectsReturned: 'audit-response' } });
  });
});

describe("the apiserver's /metrics where the etcd log does not say (1.30)", () => {
  const metrics = (objects: number, size: number | null) =>
    ['# TYPE apiserver_storage_objects gauge', `apiserver_storage_objects{resource="pods"} ${objects}`, ...(size === null ? [] : ['# TYPE apiserver_resource_size_estimate_bytes gauge', `apiserver_resource_size_estimate_bytes{group="",resource="pods"} ${size}`]), ''].join('\n');
  const audit = (uri: string) => Array.from({ length: 4 }, (_, i) => list(T + i * 10, 'lister', uri)).join('\n') + '\n';
  const ALL = '/api/v1/pods';
  const SHOP = '/api/v1/namespaces/shop/pods';
  const run = async (uri: string, m: string, etcd: string[] = [], args: string[] = []) => {
    const files: Record<string, string> = { 'audit.log': audit(uri), 'metrics.txt': m };
    if (etcd.length > 0) files['etcd.log'] = etcd.join('\n') + '\n';
    return groupOf(await scanFiles(files, ['--kube-version', '1.30', ...args]), 'lister');
  };

  it.each<[string, () => Promise<GroupReport>, Record<string, unknown>]>([
    // the etcd log's count is what was read; the gauge is only where it says nothing
    ['the etcd log wins over the gauge', () => run(ALL, metrics(5000, null), [allPods(T, 'range_response_count:7000 size:13300000')]), { objectsReadPerRequest: 7000, bytesReadPerRequest: 13_300_000, figureSources: { objectsRead: 'etcd-log', objectsReturned: 'unfiltered-list', bytesRead: 'etcd-log' } }],
    // the gauge counts every pod: no stand-in for what a list of one namespace read
    ['a namespace list gets no count from the gauge', () => run(SHOP, metrics(5000, 9_000_000)), { namespace: 'shop', servedFrom: { etcd: 4 }, objectsReadPerRequest: null, bytesReadPerRequest: null, amplification: null, figureSources: { objectsRead: null, objectsReturned: null, bytesRead: null } }],
    // 5,000 objects × (20,000 B / 10 objects) of a read of one namespace, before the size estimate
    ['bytes per object from any read of the resource come before the size estimate', () => run(ALL, metrics(5000, 9_000_000), [shopPods(T, 'range_response_count:10 size:20000')]), { objectsReadPerRequest: 5000, bytesReadPerRequest: 10_000_000, figureSources: { objectsRead: 'metrics', bytesRead: 'estimate-bytes-per-object' } }],
    ['with none, the size estimate is the bytes of a full list', () => run(ALL, metrics(5000, 9_000_000)), { objectsReadPerRequest: 5000, bytesReadPerRequest: 9_000_000, bytesReadTotal: 36_000_000, figureSources: { objectsRead: 'metrics', bytesRead: 'metrics' } }],
    // the estimate is of every pod, not of the 1,000 --objects says
    ['--objects: the size estimate is not of that count', () => run(ALL, metrics(5000, 9_000_000), [], ['--objects', 'pods=1000']), { objectsReadPerRequest: 1000, bytesReadPerRequest: null, figureSources: { objectsRead: 'given', bytesRead: null } }],
    ['a size estimate of 0 says nothing', () => run(ALL, metrics(5000, 0)), { objectsReadPerRequest: 5000, bytesReadPerRequest: null, bytesReadTotal: null, figureSources: { objectsRead: 'metrics', bytesRead: null } }],
  ])('%s', async (_what, get, want) => {
    expect(await get()).toMatchObject(want);
  });
});
