// How buildReport puts the report together: the release read from an apiserver log (at the last kept request) or
// from /metrics, the etcd threshold, what the etcd-only finding says of the audit, the method's notes, ties in order.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apfFiles, buildReport, describeEtcdPrefix, filteredAway, type ScanReport } from '../../src/analyze/report.js';
import { ScanState } from '../../src/aggregate/scan-state.js';
import { NO_FILTER } from '../../src/aggregate/filters.js';
import type { AuditEvent } from '../../src/model/audit-event.js';
import { auditLine, scanJson } from '../support.js';

const T0 = Date.UTC(2026, 10, 30, 12);
const at = (ms: number) => new Date(T0 + ms).toISOString();
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** one klog line of kube-apiserver, `ms` after 12:00:00 on 30 Nov (the year from --syslog-year) */
const klog = (ms: number, caller: string, text: string) => {
  const d = new Date(T0 + ms);
  return `I1130 ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}000       1 ${caller}] ${text}`;
};
const versionLine = (ms: number, v: string) => klog(ms, 'server.go:156', `Version: ${v}`);
const httplog = (ms: number, id: string) => klog(ms, 'httplog.go:132', `"HTTP" verb="LIST" URI="/api/v1/pods?limit=500" latency="20ms" userAgent="ctl/1.0" audit-ID="${id}" srcIP="10.0.0.1:40023" resp=200`);
let seq = 0;
/** one audit event, received `ms` after 12:00:00, answered 100 ms later */
const req = (verb: string, ms: number, f: Record<string, unknown> = {}) =>
  auditLine({ auditID: `b-${seq++}`, verb, requestURI: verb === 'get' ? '/api/v1/namespaces/a/pods/p' : '/api/v1/pods', objectRef: { resource: 'pods', apiVersion: 'v1', ...(verb === 'get' ? { namespace: 'a', name: 'p' } : {}) }, requestReceivedTimestamp: at(ms), stageTimestamp: at(ms + 100), ...f });
/** the same, only its RequestReceived stage (no status: a policy that omits every later stage) */
const received = (verb: string, ms: number) => {
  const o = JSON.parse(req(verb, ms, { stage: 'RequestReceived', stageTimestamp: at(ms) }));
  delete o.responseStatus;
  return JSON.stringify(o);
};
/** etcd's slow read of all pods, `ms` after 12:00:00, under the threshold the line states */
const slowRead = (ms: number, expected: string, took = '350ms') =>
  JSON.stringify({ level: 'warn', ts: at(ms), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took, 'expected-duration': expected, prefix: 'read-only range ', request: 'key:"/registry/pods/" range_end:"/registry/pods0" ', response: 'range_response_count:50 size:5000' });

function folder(files: Record<string, string[]>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-build-'));
  const out: Record<string, string> = {};
  for (const [name, lines] of Object.entries(files)) writeFileSync((out[name] = join(dir, name)), lines.join('\n') + '\n');
  return out;
}
const scan = async (args: string[], stdin: string[] | null = null): Promise<ScanReport> => {
  const { code, r, stderr } = await scanJson(args, stdin === null ? null : stdin.join('\n') + '\n');
  expect(code, stderr).toBeLessThan(2);
  return r;
};

describe('the release an apiserver log names: its Version line at the last request kept', () => {
  // v1.28.3 printed at 12:00:00.000, v1.29.0 at 12:00:01.000; the log has no request, so the audit's last kept
  // request decides: its second (1 s buckets) ends at 12:00:00.999 or 12:00:01.999
  const f = folder({ 'apiserver.log': [versionLine(0, 'v1.28.3'), versionLine(1000, 'v1.29.0')], 'before.log': [req('list', 400)], 'after.log': [req('list', 1400)] });
  it.each([
    ['the last request at 12:00:00.4: the release before the upgrade, though the upgrade is 600 ms later', 'before.log', 'v1.28.3'],
    ['the last request at 12:00:01.4: the release after it', 'after.log', 'v1.29.0'],
  ])('%s', async (_what, audit, want) => {
    const r = await scan(['--syslog-year', '2026', f[audit]!, f['apiserver.log']!]);
    expect(r.kubernetes).toMatchObject({ version: want.slice(1), source: 'inferred', reason: `from the apiserver's own log: its Version line ${want}` });
  });
  it('the latest request counts, not the last line: a log out of time order (12:00:30.4, then 12:00:00.4)', async () => {
    const g = folder({ 'apiserver.log': [versionLine(0, 'v1.28.3'), versionLine(20_000, 'v1.29.0')], 'audit.log': [req('list', 30_400), req('list', 400)] });
    const r = await scan(['--syslog-year', '2026', g['audit.log']!, g['apiserver.log']!]);
    expect(r.kubernetes).toMatchObject({ version: '1.29.0', reason: "from the apiserver's own log: its Version line v1.29.0" });
  });
});

describe('the release /metrics names', () => {
  // two apiservers (two start times), each one dump: v1.29.4 at 12:00, v1.30.2 at 12:01
  const dump = (start: string, v: string) => ['# TYPE process_start_time_seconds gauge', `process_start_time_seconds ${start}`, `kubernetes_build_info{git_version="${v}",major="1",minor="${v.split('.')[1]}"} 1`];
  it('the latest dump’s release, and every release named, in order, in the reason', async () => {
    const f = folder({ 'metrics-20261130T120100Z.txt': dump('1.7966e+09', 'v1.30.2'), 'metrics-20261130T120000Z.txt': dump('1.7965e+09', 'v1.29.4') });
    const r = await scan([f['metrics-20261130T120100Z.txt']!, f['metrics-20261130T120000Z.txt']!]);
    expect(r.kubernetes).toMatchObject({ version: '1.30.2', source: 'metrics', reason: "kubernetes_build_info in the apiserver's /metrics (v1.29.4, v1.30.2)" });
  });
});

describe('the etcd-only finding: the threshold etcd states, and what it says of the audit log', () => {
  const ranges = (r: ScanReport) => r.findings.filter((x) => x.kind === 'etcd-slow-ranges').map((x) => x.summary);
  it.each([
    // 300 ms twice, 100 ms once: the threshold most lines state, wherever the first line is
    ['the threshold most lines state', ['100ms', '300ms', '300ms'], 'etcd logged 3 slow reads (over 300 ms, the threshold its log states)'],
    // as many lines each: the lower threshold, though the higher came first
    ['as many lines each: the lower threshold', ['300ms', '100ms'], 'etcd logged 2 slow reads (over 100 ms, the threshold its log states)'],
  ])('%s', async (_what, expected, want) => {
    const r = await scan(['--kube-version', '1.30', '-'], expected.map((e, i) => slowRead(i * 1000, e)));
    expect(ranges(r)).toEqual([`${want} of /registry/pods/, 50 objects each, up to 350 ms. Add the apiserver audit log to see which client sent them.`]);
  });

  const AUDIT = 'No list in the audit log explains them: check that the audit log covers the same time and comes from the apiservers of this etcd.';
  const FILTERED = 'The filters left out the audit requests that would name the client.';
  const ADD = 'Add the apiserver audit log to see which client sent them.';
  const etcd = [slowRead(5000, '100ms', '150ms'), slowRead(6000, '100ms', '150ms')];
  const f = folder({
    'gets.log': [req('get', 0), req('get', 1000)],
    'mixed.log': [req('get', 0), req('list', 1000), req('list', 2000)],
    'lists.log': [req('list', 1000), req('list', 2000)],
    'apiserver.log': [httplog(1000, 'h-1'), httplog(2000, 'h-2')],
    'etcd.log': etcd,
  });
  it.each([
    ['an audit log of gets only: no list explains the reads', ['gets.log'], [], AUDIT],
    ['the filters kept the gets and left out the lists: still none of the kept requests is a list', ['mixed.log'], ['--verb', 'get'], AUDIT],
    ['the filters left out every audit request', ['lists.log'], ['--verb', 'get'], FILTERED],
    ["the filters left out every request of the apiserver's log, and there is no audit log", ['apiserver.log'], ['--verb', 'get'], ADD],
  ])('%s', async (_what, inputs, args, want) => {
    const r = await scan(['--kube-version', '1.30', '--syslog-year', '2026', ...args, ...inputs.map((n) => f[n]!), f['etcd.log']!]);
    expect(r.listGroups).toEqual([]);
    expect(ranges(r)).toEqual([`etcd logged 2 slow reads (over 100 ms, the threshold its log states) of /registry/pods/, 50 objects each, up to 150 ms. ${want}`]);
  });
});

describe('the method: what the audit policy hides, and where figures came from', () => {
  const STAGE = "The logs' reads hold no response (only the RequestReceived stage): no status codes or latencies, so refused and slow requests go unseen. audit-scan policy LOGS prints a policy that keeps the stages after it";
  it.each<[string, string[], string | undefined]>([
    ['every read only its RequestReceived stage', [received('list', 0), received('get', 1000), req('watch', 2000)], STAGE],
    ['one read group answered, one not', [received('list', 0), req('get', 1000), req('watch', 2000)], undefined],
    // each group holds an unanswered request, but the list group holds an answered one too
    ['every group with a request unanswered, one with one answered too', [received('list', 0), req('list', 500), received('get', 1000), req('watch', 2000)], undefined],
    ['every verb answered', [req('list', 0), req('get', 1000), req('watch', 2000)], undefined],
    ['no watches or gets', [req('list', 0)], 'The logs hold no watches or gets: if their audit policy drops them, these go unseen: the watches that end at a restart and watch-lists; gets without resourceVersion. audit-scan policy LOGS prints a policy that keeps them at Metadata'],
  ])('%s', async (_what, lines, want) => {
    const r = await scan(['--kube-version', '1.30', '-'], lines);
    expect(r.method.auditPolicy).toBe(want);
  });

  it('no note when a filter chose the verbs, nor when there is no audit log at all', async () => {
    expect((await scan(['--kube-version', '1.30', '--verb', 'list', '-'], [req('list', 0)])).method.auditPolicy).toBeUndefined();
    expect((await scan(['--kube-version', '1.30', '-'], [slowRead(0, '100ms')])).method.auditPolicy).toBeUndefined();
  });

  it('the apiservers sentence only when some input has requests: none for an etcd log alone', async () => {
    const etcdOnly = await scan(['--kube-version', '1.30', '-'], [slowRead(0, '100ms')]);
    expect(Object.keys(etcdOnly.method).sort()).toEqual(['estimated', 'kubernetes', 'measured']);
    const audit = await scan(['--kube-version', '1.30', '-'], [req('list', 0), req('get', 1000), req('watch', 2000)]);
    expect(audit.method.apiservers).toMatch(/^Apiservers: one apiserver identity \(/);
  });

  it('the filters applied are listed after what every line read gives, joined by spaces', async () => {
    const r = await scan(['--kube-version', '1.30', '--since', at(0), '--verb', 'list', '-'], [req('list', 0), req('get', 1000)]);
    expect(r.method.measured).toEqual([
      'requests, verbs, clients and times: the audit log (one request per auditID, however many stages)',
      `the Kubernetes and etcd versions, the nodes and the object counts of full lists: every line read, before the filters (--since ${at(0)} --verb list)`,
    ]);
  });

  it('two dumps of one apiserver: the lists counted between them are measured', async () => {
    const dump = (lists: number, fetched: number, returned: number) => [
      'process_start_time_seconds 1.7965e+09',
      'kubernetes_build_info{git_version="v1.29.4",major="1",minor="29"} 1',
      'apiserver_storage_objects{resource="pods"} 7130',
      `apiserver_storage_list_total{resource="pods"} ${lists}`,
      `apiserver_storage_list_fetched_objects_total{resource="pods"} ${fetched}`,
      `apiserver_storage_list_returned_objects_total{resource="pods"} ${returned}`,
    ];
    const f = folder({ 'metrics-20261130T120000Z.txt': dump(100, 713_000, 11_000), 'metrics-20261130T120100Z.txt': dump(180, 1_283_400, 19_800) });
    const r = await scan(['--kube-version', '1.29', f['metrics-20261130T120000Z.txt']!, f['metrics-20261130T120100Z.txt']!]);
    // 80 lists between them: (1,283,400 − 713,000) ÷ 80 = 7,130 fetched, (19,800 − 11,000) ÷ 80 = 110 returned
    expect(r.metrics!.resources.find((x) => x.resource === 'pods')!.etcdLists).toMatchObject({ lists: 80, fetchedPerList: 7130, returnedPerList: 110 });
    expect(r.method.measured).toContain('objects fetched and returned per etcd list, between two metrics dumps of one apiserver: apiserver_storage_list_fetched_objects_total and _returned_objects_total ÷ apiserver_storage_list_total (these count the limit:1 revision reads of consistent reads too)');
  });
});

describe('time gaps measured inexactly at a cut between segments', () => {
  const T = Date.UTC(2026, 0, 1);
  const ev = (i: number, t: number): AuditEvent => ({
    auditID: `id-${i}`, stage: 'ResponseComplete', level: 'Metadata', verb: 'get', requestURI: '/api/v1/namespaces/a/pods/p', username: 'u', userAgent: 'ua/1', nodeName: null,
    resource: 'pods', apiGroup: '', namespace: 'a', name: 'p', subresource: '', code: 200, receivedMs: t, stageMs: t, returnedItems: null, remainingItems: null,
    tokenExpirationSeconds: null, leaseHolder: null, queryKnown: true, etcdLatencyMs: null, apfQueueWaitMs: null,
  });
  const steady = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i * 100);
  /** `inputs` logs, each cut in two segments after its first 200 events (an hour later than the 5,000 after the
   * cut, which come first in the segment: more than HEAD_TIMES older events, so the cut is measured inexactly) */
  function report(inputs: number): ScanReport {
    const state = new ScanState(null, null, undefined, { filter: NO_FILTER, bucketMs: 1000, gapMs: null, nowMs: Date.UTC(2026, 0, 2) });
    let n = 0;
    for (let k = 0; k < inputs; k++) {
      const name = `${'abc'[k]}.log`;
      const idx = state.addInput(name);
      const before = steady(200, T + 3_600_000);
      const after = steady(5000, T);
      state.beginSegment(idx, name, 's0');
      for (const t of before) state.addAuditEvent(ev(n++, t));
      const r0 = state.endSegment();
      state.beginSegment(idx, name, 's1', before[before.length - 1]! + 1);
      for (const t of after) state.addAuditEvent(ev(n++, t));
      const r1 = state.endSegment();
      state.reconcile(r0);
      state.reconcile(r1);
    }
    state.finishPending();
    return buildReport(state, { kubeVersion: null, etcdVersion: null, consistentListFromCache: null, watchCacheDisabled: new Set(), objectsGiven: new Map(), top: 10, toolVersion: 'test' });
  }
  const says = (n: string) => `time gaps: at ${n} where the input was cut for threads or shards, more than 4,096 events older than the cut came first (logs joined out of time order), so the spacing just after the cut was measured from there; -j 1 measures it exactly`;
  it.each([
    [1, says('1 place')],
    [2, says('2 places')],
  ])('%d input(s) so cut: the method says where', (inputs, want) => {
    expect(report(inputs).method.estimated).toEqual([want]);
  });
});

describe('ties, and the small rules around the report', () => {
  it('etcd key prefixes read as often: by name, in whichever order they were seen', () => {
    for (const seen of [[['/a', 2], ['/b', 2]], [['/b', 2], ['/a', 2]]] as Array<Array<[string, number]>>)
      expect(describeEtcdPrefix(null, new Map(seen)).prefixes).toEqual(['/a', '/b']);
  });

  it('user agents with as many requests: by name, whatever the log order', async () => {
    const r = await scan(['--kube-version', '1.30', '-'], [req('list', 0, { userAgent: 'amy/1' }), req('list', 1000, { userAgent: 'zed/1' }), req('list', 2000, { userAgent: 'bob/1' })]);
    expect(r.topUserAgents).toEqual([{ userAgent: 'amy/1', requests: 1 }, { userAgent: 'bob/1', requests: 1 }, { userAgent: 'zed/1', requests: 1 }]);
  });

  it('--apf-out names a finding whose client is unset by its kind', () => {
    expect(apfFiles({ findings: [{ kind: 'list-from-etcd', severity: 'high', client: undefined, apf: 'a: 1' }] as never })).toEqual([{ file: '1-list-from-etcd.yaml', yaml: 'a: 1\n' }]);
  });

  // filteredAway: the filters left out every request and every etcd read, and there was something to leave out
  const totals = (requests: number, slow: number, internal: number) => ({ requests, etcdSlowRanges: slow, etcdInternalRanges: internal }) as ScanReport['totals'];
  const filters = (requests: number, etcd: number) => ({ applied: ['--verb get'], requestsLeftOut: requests, etcdLinesLeftOut: etcd });
  it.each<[string, ReturnType<typeof filters> | null, ScanReport['totals'], boolean]>([
    ['every request left out', filters(5, 0), totals(0, 0, 0), true],
    ['every etcd line left out', filters(0, 3), totals(0, 0, 0), true],
    ['no filter', null, totals(0, 0, 0), false],
    ['a request kept', filters(5, 0), totals(1, 0, 0), false],
    ['a slow etcd read kept', filters(5, 0), totals(0, 1, 0), false],
    ['an internal etcd read kept', filters(5, 0), totals(0, 0, 1), false],
    ['one of each etcd read kept', filters(5, 0), totals(0, 1, 1), false],
    ['nothing to leave out: an empty log', filters(0, 0), totals(0, 0, 0), false],
  ])('%s', (_what, f, t, want) => {
    expect(filteredAway({ filters: f, totals: t })).toBe(want);
  });
});

describe('the apiserver log beside an audit log', () => {
  const BESIDE = "beside the audit log, the audit counts the requests (it names their users); the apiserver log's lists and gets are joined to the audit's groups by client, verb, resource and selector (its APF flow schema and priority level, its traces), never counted again";
  const ALONE = "the apiserver's log names no user: its list groups are keyed on user agent and APF flow schema, the user column says it is not in the log";
  const f = folder({ 'audit.log': [req('list', 0)], 'apiserver.log': [versionLine(0, 'v1.30.2'), httplog(1000, 'h-1'), httplog(2000, 'h-2')] });
  it.each([
    ['beside the audit log: evidence, never counted again', ['audit.log', 'apiserver.log'], BESIDE, 1],
    ['alone: its requests are the requests', ['apiserver.log'], ALONE, 2],
  ])('%s', async (_what, inputs, first, requests) => {
    const r = await scan(['--syslog-year', '2026', ...inputs.map((n) => f[n]!)]);
    expect(r.totals.requests).toBe(requests);
    expect(r.apiserverLog!.limits[0]).toBe(first);
  });
});
