// The postmortem parts of the report (issue 13), on a log whose every figure is worked out by hand: the what-if
// of each fix and of every fix at once, the summary, the evidence, the incident and the method.
import { describe, expect, it } from 'vitest';
import { auditLine, runCli } from '../support.js';
import type { Finding, ScanReport } from '../../src/analyze/report.js';
import { fixMovesToCache, shortFix, whyOfReason } from '../../src/analyze/postmortem.js';

const T = Date.UTC(2026, 10, 30, 12, 10, 30);
const iso = (ms: number) => new Date(ms).toISOString();
let seq = 0;
const list = (ms: number, uri: string, ua: string, sa: string, resource: string, ns?: string) =>
  auditLine({ auditID: `p${seq++}`, verb: 'list', requestURI: uri, objectRef: { resource, apiVersion: 'v1', ...(ns ? { namespace: ns } : {}) }, userAgent: ua, user: { username: `system:serviceaccount:${sa}` }, requestReceivedTimestamp: iso(ms), stageTimestamp: iso(ms + 40) });
const etcdRead = (ms: number, count: number, size: number) =>
  JSON.stringify({ level: 'warn', ts: iso(ms), caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '120.5ms', 'expected-duration': '100ms', prefix: 'read-only range ', request: 'key:"/registry/pods/" range_end:"/registry/pods0" ', response: `range_response_count:${count} size:${size}` });

// 12:10:30: vector lists pods by node 20 times (n0, n1) without resourceVersion: etcd; an informer lists pods 6 times
// with resourceVersion=0: the watch cache. 12:10:31: a poller lists events 4 times: etcd (events have no watch
// cache). etcd logged one read of all pods: 1,000 objects, 2,000,000 bytes.
const LOG = [
  ...Array.from({ length: 20 }, (_, i) => list(T + i * 10, `/api/v1/pods?fieldSelector=spec.nodeName%3Dn${i % 2}`, 'vector/0.34.1', 'vector:vector', 'pods')),
  ...Array.from({ length: 6 }, (_, i) => list(T + 500 + i * 10, '/api/v1/pods?resourceVersion=0', 'informer/1.0', 'ops:informer', 'pods')),
  ...Array.from({ length: 4 }, (_, i) => list(T + 1000 + i * 10, '/api/v1/namespaces/shop/events', 'poller/2.0', 'shop:poller', 'events', 'shop')),
  etcdRead(T + 100, 1000, 2_000_000),
];

async function scan(lines: string[]): Promise<ScanReport> {
  const r = await runCli(['-o', 'json', '--kube-version', '1.30', '-'], lines.join('\n') + '\n');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as ScanReport;
}

describe('the what-if of a fix, from the log', () => {
  it('serving vector from the watch cache: etcd requests 24 → 4, objects 20,000 → 0, bytes 40 MB → 0, peak 20/s → 4/s', async () => {
    const r = await scan(LOG);
    const vector = r.findings.find((f) => (f as Finding).client === 'vector') as Finding;
    // 20 lists × 1,000 objects, × 2,000,000 bytes; the events group has no etcd figure, so it adds nothing on
    // either side; the peak second (12:10:30) held vector's 20 etcd lists, the next one the poller's 4
    const expected = {
      etcdRequests: { before: 24, after: 4 },
      objectsRead: { before: 20_000, after: 0 },
      bytesRead: { before: 40_000_000, after: 0 },
      peakEtcdRequestsPerSecond: { before: 20, after: 4 },
    };
    expect(vector.whatIf).toEqual(expected);
    // vector's is the only fix that moves reads to the watch cache, so all fixes at once are the same
    expect(r.whatIf).toEqual(expected);
  });

  it('evidence: the earliest request, and the etcd reads of its range', async () => {
    const vector = (await scan(LOG)).findings.find((f) => (f as Finding).client === 'vector') as Finding;
    expect(vector.evidence).toEqual({
      sampleRequestURI: '/api/v1/pods?fieldSelector=spec.nodeName%3Dn0',
      etcd: { key: '/registry/pods/', reads: 1, objectsPerRead: 1000, bytesPerRead: 2_000_000, tookMsMax: 120.5 },
    });
    expect(vector.why).toBe(whyOfReason('no resourceVersion', 'pods'));
  });

  it('--redact leaves the sample request out (its URI names namespaces and objects)', async () => {
    const r = await runCli(['-o', 'json', '--kube-version', '1.30', '--redact', '-'], LOG.join('\n') + '\n');
    const vector = (JSON.parse(r.stdout) as ScanReport).findings.find((f) => 'evidence' in f) as Finding;
    expect(vector.evidence!.sampleRequestURI).toBeNull();
  });
});

describe('the summary', () => {
  it('window, peak, offenders and what etcd read against what it returned', async () => {
    const r = await scan(LOG);
    expect(r.summary).toEqual({
      // first and last requests received, in whole seconds: 12:10:30 to the end of 12:10:31; the etcd line does
      // not stretch it
      window: { start: iso(T), end: iso(T + 2000), seconds: 2 },
      // 20 vector + 6 informer lists in 12:10:30
      peakRequestsPerSecond: { value: 26, at: iso(T) },
      offenders: [
        {
          client: 'vector',
          username: 'system:serviceaccount:vector:vector',
          resource: 'pods',
          severity: 'low', // 20 etcd lists at 2×, 40 MB: under every medium threshold (severityOf)
          // 1,000 read ÷ 2 nodes seen = ~500 returned: 2×
          what: '20 pod lists from etcd, 1,000 read / ~500 returned (2×), 40 MB',
          fix: 'Send resourceVersion=0&resourceVersionMatch=NotOlderThan so the watch cache serves the list (pods by spec.nodeName use the watch-cache index)',
        },
      ],
      objectsRead: 20_000,
      objectsReturned: 10_000,
      bytesRead: 40_000_000,
    });
  });

  it('the method names what was measured and what estimated, and the version assumed', async () => {
    const r = await scan(LOG);
    expect(r.method).toEqual({
      measured: [
        'bytes read per list: the etcd log (size of the same key range)',
        'objects read per list: the etcd log (range_response_count of the same key range)',
        'requests, verbs, clients and times: the audit log (one request per auditID, however many stages)',
      ],
      estimated: ['objects returned per list (~): objects read ÷ nodes seen, for per-node selectors'],
      kubernetes: `verdicts follow kube-apiserver 1.30 (${r.kubernetes.reason})`,
      // one input: which apiserver served what is not known (issue 23)
      apiservers: 'Apiservers: one apiserver identity ((stdin)): the audit events came from one input, so the logs do not say which apiserver served which request (a merged log, or a single apiserver); apiserver shares and imbalance need one log per apiserver',
      // the log has lists only, no watch or get at all (issue 47 #2)
      auditPolicy: 'The logs hold no watches or gets: if their audit policy drops them, these go unseen: the watches that end at a restart and watch-lists; gets without resourceVersion. audit-scan policy LOGS prints a policy that keeps them at Metadata',
    });
  });

  it('says nothing of the audit policy when the logs hold every kind of read, or a filter chose the verbs', async () => {
    const { auditPolicyNote } = await import('../../src/analyze/postmortem.js');
    expect(auditPolicyNote(new Map([['list', 1], ['watch', 1], ['get', 1]]), 3, false)).toBeNull();
    expect(auditPolicyNote(new Map([['list', 5]]), 5, true)).toBeNull();
    expect(auditPolicyNote(new Map(), 0, false)).toBeNull();
    const stageOnly = "The logs' reads hold no response (only the RequestReceived stage): no status codes or latencies, so refused and slow requests go unseen. audit-scan policy LOGS prints a policy that keeps the stages after it";
    expect(auditPolicyNote(new Map([['list', 1], ['watch', 1], ['get', 1]]), 3, false, true)).toBe(stageOnly);
    expect(auditPolicyNote(new Map([['list', 1], ['get', 1]]), 2, false, true)).toMatch(/^The logs hold no watches: .* keeps them at Metadata\. The logs' reads hold no response/);
    expect(auditPolicyNote(new Map([['create', 5]]), 5, false)).toBe('The logs hold no lists or watches or gets: if their audit policy drops them, these go unseen: list storms and the etcd reads of lists; the watches that end at a restart and watch-lists; gets without resourceVersion. audit-scan policy LOGS prints a policy that keeps them at Metadata');
  });

  it('latency per group, from each request’s final stage: 40 ms each', async () => {
    const r = await scan(LOG);
    expect(r.listGroups.map((g) => [g.userAgent, g.latencyMs, g.etcdLatencyMs, g.apfQueueWaitMs])).toEqual([
      ['vector/0.34.1', { p50: 40, p90: 40, p99: 40, max: 40, n: 20 }, null, null],
      ['poller/2.0', { p50: 40, p90: 40, p99: 40, max: 40, n: 4 }, null, null],
      ['informer/1.0', { p50: 40, p90: 40, p99: 40, max: 40, n: 6 }, null, null],
    ]);
  });
});

describe('the parts', () => {
  it.each<[string, string]>([
    ['Send resourceVersion=0&resourceVersionMatch=NotOlderThan so the watch cache serves the list, or use an informer.', 'Send resourceVersion=0&resourceVersionMatch=NotOlderThan so the watch cache serves the list'],
    ['Pages 2..n of a paginated list read etcd before 1.34: list with resourceVersion=0 and no limit (one page), or upgrade.', 'List with resourceVersion=0 and no limit (one page)'],
    ['Read from an informer cache; or send resourceVersion=0.', 'Read from an informer cache'],
    ['Spread pod starts. Longer TTLs lengthen the period.', 'Spread pod starts'],
    ['Served from the watch cache: costs CPU. Spread restarts.', 'Costs CPU'], // what follows the first colon
    ['queue it with APF', 'Queue it with APF'],
    ['Upgrade to 1.34.', 'Upgrade to 1.34'], // the closing full stop only
    ['Spread pod starts. Longer TTLs: fewer waves.', 'Spread pod starts'], // a colon after the first sentence is not the action's
    ['. Odd: b', '. Odd: b'], // neither a colon nor a cut at the very start counts
    [': b', ': b'],
  ])('shortFix(%j) = %j', (fix, short) => expect(shortFix(fix)).toBe(short));

  it.each<[Record<string, number>, boolean]>([
    [{ 'no resourceVersion': 3 }, true],
    [{ 'continue token (before 1.34)': 3, 'events: no watch cache': 9 }, true], // the most frequent reason decides
    [{ 'events: no watch cache': 3 }, false],
    [{ 'watch cache disabled (--watch-cache-sizes)': 3 }, false],
    [{}, false],
  ])('a fix moves %j to the watch cache: %s', (reasons, moves) => expect(fixMovesToCache(reasons)).toBe(moves));
});
