// Trust (issue 11): no crash and no false all-clear on inputs users meet in their first week. Every case runs
// the real CLI as a child process; the logs are built here with known answers (times, counts), and each case
// failed on the code before the issue (eceffab): a crash, a hang, a wrong count, or an all-clear.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, findingsOf, spawnCli, spawnCliRss } from './support.js';
import type { ScanReport } from '../src/analyze/report.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-scan-trust-'));
const file = (name: string, text: string | Buffer): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const iso = (ms: number): string => new Date(ms).toISOString();
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const DAY = 86_400_000;

interface Ev {
  id: string;
  t: number;
  verb?: string;
  uri?: string;
  user?: string;
  ua?: string;
  ref?: Record<string, string>;
  stage?: string;
  level?: string;
  code?: number;
  requestObject?: unknown;
}
/** One audit event line, received at t and completed 5 ms later. */
function ev(e: Ev): string {
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: e.level ?? 'Metadata',
    auditID: e.id,
    stage: e.stage ?? 'ResponseComplete',
    requestURI: e.uri ?? '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1',
    verb: e.verb ?? 'update',
    user: { username: e.user ?? 'system:node:n1' },
    userAgent: e.ua ?? 'kubelet/v1.30.2 (linux/amd64) kubernetes/abc1234',
    objectRef: e.ref ?? { resource: 'leases', namespace: 'kube-node-lease', name: 'n1', apiGroup: 'coordination.k8s.io', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: e.code ?? 200 },
    ...(e.requestObject === undefined ? {} : { requestObject: e.requestObject }),
    requestReceivedTimestamp: iso(e.t),
    stageTimestamp: iso(e.t + 5),
  });
}
const lines = (evs: Ev[]): string => evs.map(ev).join('\n') + '\n';
const json = (r: { stdout: string }): ScanReport => JSON.parse(r.stdout) as ScanReport;
const kinds = (r: ScanReport): string[] => r.findings.map((f) => f.kind);

/** Kubelet lease updates every `stepMs` from `from`, n of them. */
function leases(prefix: string, from: number, n: number, stepMs: number): Ev[] {
  return Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, t: from + i * stepMs }));
}
/** Lists of configmaps without resourceVersion by one agent: etcd reads. */
function agentLists(prefix: string, from: number, n: number, stepMs: number): Ev[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    t: from + i * stepMs,
    verb: 'list',
    uri: '/api/v1/configmaps',
    user: 'system:serviceaccount:ops:agent',
    ua: 'agent/2.0',
    ref: { resource: 'configmaps', apiVersion: 'v1' },
  }));
}

describe('time spans and impossible times cost nothing and hide nothing', () => {
  it('reads two logs written six years apart (2017 and 2023) together', async () => {
    const a = file('2017.log', lines(agentLists('old', Date.UTC(2017, 8, 11, 19, 55), 60, 1000)));
    const b = file('2023.log', lines(agentLists('new', Date.UTC(2023, 5, 1, 12), 60, 1000)));
    const r = await spawnCli(['-o', 'json', a, b]);
    expect(r.code).toBe(0);
    const rep = json(r);
    expect(rep.totals.requests).toBe(120);
    expect(rep.inputs.map((i) => [i.firstSeen, i.implausibleTimes])).toEqual([
      ['2017-09-11T19:55:00.005Z', 0],
      ['2023-06-01T12:00:00.005Z', 0],
    ]);
  });

  it.skipIf(!existsSync(join(ROOT, '..', 'shared', 'corpus')))('reads the real 2017 and 2023 corpus files together', async () => {
    const c = join(ROOT, '..', 'shared', 'corpus', 'audit');
    const r = await spawnCli(['-o', 'json', join(c, 'liggitt__audit2rbac__testdata__demo.log'), join(c, 'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log')]);
    expect(r.code).toBe(0);
    expect(json(r).inputs.map((i) => i.auditEvents)).toEqual([37, 100]);
  });

  it("counts Go's zero time and the Unix epoch as implausible, out of the time analysis, and still counts the requests", async () => {
    const base = leases('l', T0, 150, 1000);
    const f = file('zero.log', lines([...base, { id: 'z', t: Date.UTC(1, 0, 1) }, { id: 'e', t: 0 }]));
    const r = await spawnCli(['-o', 'json', f]);
    expect(r.code).toBe(0);
    const rep = json(r);
    expect(rep.totals.requests).toBe(152);
    expect(rep.inputs[0]).toMatchObject({ implausibleTimes: 2, implausibleKinds: { zero: 2 }, firstSeen: iso(T0 + 5), lastSeen: iso(T0 + 149_005) });
    expect(kinds(rep)).toEqual([]);
    expect(r.stderr).toContain("zero.log: 2 events have times that cannot be real (2 before 1971: Go's zero time 0001-01-01, the Unix epoch, or an unset clock)");
  });

  it('finds one event a year older than the rest, and a time far in the future', async () => {
    const base = leases('l', T0, 200, 3000);
    const f = file('stray.log', lines([{ id: 'old', t: T0 - 365 * DAY }, ...base, { id: 'future', t: Date.UTC(2099, 0, 1) }]));
    const r = await spawnCli(['-o', 'json', f]);
    expect(r.code).toBe(0);
    const rep = json(r);
    expect(rep.totals.requests).toBe(202);
    expect(rep.inputs[0]).toMatchObject({ implausibleTimes: 2, implausibleKinds: { far: 1, future: 1 }, firstSeen: iso(T0 + 5), lastSeen: iso(T0 + 199 * 3000 + 5) });
    // No year-long "audit gap", no timeline from last year.
    expect(kinds(rep)).toEqual([]);
    expect(rep.timeline.series[0]!.points[0]![0]).toBe(iso(T0));
    expect(r.stderr).toContain('1 more than a day in the future; 1 far from the rest of the input');
  });

  it('finds TokenRequest waves 90 days apart (the sparkline used to overflow the stack)', async () => {
    const token = (id: string, t: number): Ev => ({ id, t, verb: 'create', uri: '/api/v1/namespaces/a/serviceaccounts/b/token', ref: { resource: 'serviceaccounts', namespace: 'a', name: 'b', subresource: 'token', apiVersion: 'v1' } });
    const start = T0 - 100 * DAY; // both waves in the past: a time a day ahead of now cannot be real
    const evs = [...Array.from({ length: 10 }, (_, i) => token(`a${i}`, start + i * 100)), ...Array.from({ length: 10 }, (_, i) => token(`b${i}`, start + 90 * DAY + i * 100))];
    const r = await spawnCli(['-o', 'json', file('tokens.log', lines(evs))]);
    expect(r.code).toBe(0);
    const t = json(r).findings.find((f) => f.kind === 'token-refresh-storm') as { waves: Array<{ requests: number }>; periodSeconds: number; sparkline: number[] };
    expect(t.waves.map((w) => w.requests)).toEqual([10, 10]);
    expect(t.periodSeconds).toBe(90 * 86_400);
    expect(t.sparkline).toHaveLength(60);
  });

  // The base: 2 lease updates a second for 200 s and a 200-list etcd storm at 100 s. Three of its lease updates
  // (0.5%) are moved back by 1 day, 1 year or 100 years: the same groups, the same findings, the same memory.
  const base = [...leases('l', T0, 400, 500), ...agentLists('s', T0 + 100_000, 200, 25)].sort((a, b) => a.t - b.t);
  const strays = new Set(['l-7', 'l-137', 'l-267']);
  const shifted = (by: number): string => lines(base.map((e) => (strays.has(e.id) ? { ...e, t: e.t - by } : e)));

  it('the same events with a few moved 1 day, 1 year or 100 years away give the same groups, findings and memory', async () => {
    const runs = [];
    for (const [name, by] of [['none', 0], ['day', DAY], ['year', 365 * DAY], ['century', 36_525 * DAY]] as const) {
      const r = await spawnCliRss(['-o', 'json', '-j', '1', file(`shift-${name}.log`, shifted(by))]);
      expect(r.code).toBe(0);
      runs.push({ name, rep: json(r), rss: r.maxRssKb });
    }
    const [none, ...moved] = runs;
    for (const m of moved) {
      expect(m.rep.totals.requests).toBe(600);
      expect(m.rep.inputs[0]!.implausibleTimes).toBe(3);
      expect(m.rep.listGroups).toEqual(none!.rep.listGroups);
      expect(m.rep.findings).toEqual(none!.rep.findings);
      expect(m.rep.inputs[0]!.firstSeen).toBe(none!.rep.inputs[0]!.firstSeen);
      // before the fix a year apart cost 50× the memory; within 25% is the same cost (RSS varies with the machine's load)
      expect(Math.abs(m.rss - none!.rss) / none!.rss).toBeLessThan(0.25);
    }
    expect(runs.map((x) => x.rep.inputs[0]!.implausibleKinds)).toEqual([{}, { far: 3 }, { far: 3 }, { zero: 3 }]);
    expect(kinds(none!.rep)).toEqual(['list-from-etcd', 'list-storm']);
  });

  it('a log that spans 10 years costs what the same events over 10 minutes cost', async () => {
    const evs = (span: number): string => lines(base.map((e, i) => ({ ...e, t: T0 - span + Math.floor((i * span) / base.length) })));
    const short = await spawnCliRss(['-o', 'json', '-j', '1', file('span-10m.log', evs(10 * 60_000))]);
    const long = await spawnCliRss(['-o', 'json', '-j', '1', file('span-10y.log', evs(3652 * DAY))]);
    expect([short.code, long.code]).toEqual([0, 0]);
    expect(json(long).listGroups.map((g) => g.requests)).toEqual(json(short).listGroups.map((g) => g.requests));
    // Evenly spread over years is a quiet log, not strays: nothing is left out.
    expect(json(long).inputs[0]!.implausibleTimes).toBe(0);
    expect(Math.abs(long.maxRssKb - short.maxRssKb) / short.maxRssKb).toBeLessThan(0.25);
  });

  it('gives the same answer with any thread count and cut when times are far apart', async () => {
    const f = file('shift-year-j.log', shifted(365 * DAY));
    const one = await spawnCli(['-o', 'json', '-j', '1', f]);
    const three = await spawnCli(['-o', 'json', '-j', '3', f], null, { env: { AUDIT_SCAN_MIN_SPLIT_BYTES: '4096' } });
    expect(three.stdout).toBe(one.stdout);
  });
});

describe('the wrong file is never an all-clear', () => {
  const klog = [
    'I1130 12:00:00.123456       1 httplog.go:132] "HTTP" verb="LIST" URI="/api/v1/pods?fieldSelector=spec.nodeName%3Dn1" latency="337ms" userAgent="vector/0.34.1" audit-ID="3f1c" srcIP="10.0.0.7:4711" resp=200',
    'I1130 12:00:00.200000       1 trace.go:236] Trace[1925263712]: "List" accept:application/json,audit-id:3f1c,client:10.0.0.7,protocol:HTTP/2.0,resource:pods,scope:cluster,url:/api/v1/pods,user-agent:vector/0.34.1,verb:LIST (30-Nov-2026 12:00:00.000) (total time: 337ms):',
    'W1130 12:00:01.000000       1 reflector.go:547] k8s.io/client-go/informers/factory.go:160: failed to list *v1.Pod: the server was unable to return a response in the time allotted',
  ].join('\n') + '\n';

  // a kubelet's own log: klog, and no request line of the apiserver's
  const kubelet = [
    'I1130 12:00:00.123456    1234 kubelet.go:2448] "SyncLoop (PLEG): event for pod" pod="shop/web-1" event={"ID":"a"}',
    'E1130 12:00:01.000000    1234 pod_workers.go:1298] "Error syncing pod, skipping" err="failed to \"StartContainer\""',
  ].join('\n') + '\n';

  // (here the trace, cut, comes after the httplog line of its request: an earlier stage after the final one, dropped)
  it("the apiserver's own log is read, not refused (issue 45): its httplog line and trace are one request", async () => {
    const r = await spawnCli(['-o', 'json', '--syslog-year', '2026', file('kube-apiserver.log', klog)]);
    expect(r.code).toBe(0);
    const rep = json(r);
    expect(rep.totals.requests).toBe(1);
    expect(rep.inputs[0]!.looksLike).toBeNull();
    expect(rep.apiserverLog!.inputs[0]!.requests).toEqual({ httplog: 1, traceOnly: 0, timeoutOnly: 0, joined: 0 });
    expect(rep.apiserverLog!.inputs[0]!.traceBlocksCut).toBe(1);
  });

  it.each([
    ["a kubelet's klog log", 'kubelet.log', kubelet, 'kubelet.log: no audit events or etcd entries (it looks like a klog log with no request line in it'],
    ['a README', 'README.md', readFileSync(join(ROOT, 'README.md')), 'README.md: no audit events or etcd entries (it looks like text or Markdown, not a log (first line: "# audit-scan"))'],
    ['kubectl get -o json output', 'pods.json', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }) + '\n', 'pods.json: no audit events or etcd entries (it holds Kubernetes objects (kind Pod), not audit events'],
    ['a controller JSON log', 'controller.log', JSON.stringify({ level: 'info', ts: '2026-11-30T12:00:00Z', msg: 'Starting workers', controller: 'x' }) + '\n', 'controller.log: no audit events or etcd entries (it looks like a JSON log of some component (first message: Starting workers)'],
  ])('%s: exit 1, says what it looks like, and the table does not say all is well', async (_what, name, text, want) => {
    const r = await spawnCli([file(name, text)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(want);
    expect(r.stdout).toContain('Nothing to analyse');
    expect(r.stdout).not.toContain('No client reads etcd heavily');
  });

  it('empty stdin: exit 1, "nothing arrived on stdin"', async () => {
    const r = await spawnCli(['-o', 'json', '-'], '');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(stdin): no audit events or etcd entries (nothing arrived on stdin)');
    expect(json(r).inputs[0]!.looksLike).toBe('nothing arrived on stdin');
  });

  it('a wrong file among good ones is a warning and the scan goes on (exit 0)', async () => {
    const r = await spawnCli(['-o', 'json', 'fixtures/demo', file('kubelet.log', kubelet)]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('kubelet.log: no audit events or etcd entries (it looks like a klog log with no request line in it');
    expect(json(r).totals.requests).toBe(1608);
  });
});

describe('a typo never makes a database', () => {
  it.each([
    ['scan', ['scan', '--db']],
    ['sql', ['sql', '--db']],
    ['export', ['export', '--parquet', join(dir, 'pq'), '--db']],
  ])('%s --db <missing> exits 1 naming the file and creates nothing', async (_name, args) => {
    const db = join(dir, `typo-${_name}.duckdb`);
    const r = await spawnCli([...args, db, ...(_name === 'sql' ? ['SELECT 1'] : [])]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${db}: no such store (create one with: audit-scan load <logs> --db ${db})`);
    expect(existsSync(db)).toBe(false);
  });
});

describe('restarts shorter than a fixed 30 s', () => {
  // 20 lease updates a second; silence from 59.95 s to 74.95 s (15 s); then 200 pod lists with rv=0 in 10 s.
  const busy = [...leases('a', T0, 1200, 50), ...leases('b', T0 + 74_950, 1200, 50)];
  const relist = Array.from({ length: 200 }, (_, i): Ev => ({ id: `r${i}`, t: T0 + 74_950 + i * 50, verb: 'list', uri: '/api/v1/pods?limit=500&resourceVersion=0', ref: { resource: 'pods', apiVersion: 'v1' } }));

  it('finds a 15 s silence on a busy apiserver: 100× its 50 ms spacing is under 5 s, so 5 s makes a gap', async () => {
    const r = await spawnCli(['-o', 'json', file('busy.log', lines([...busy, ...relist].sort((x, y) => x.t - y.t)))]);
    const [g] = findingsOf(json(r), 'apiserver-restart');
    expect(g).toMatchObject({ start: iso(T0 + 59_955), end: iso(T0 + 74_955), gapSeconds: 15, gapThresholdSeconds: 5, listsInMinuteBefore: 0, listsInMinuteAfter: 200, signs: ['relist burst after'] });
  });

  it('--gap 30s still sets a fixed threshold', async () => {
    const r = await spawnCli(['-o', 'json', '--gap', '30s', file('busy-fixed.log', lines([...busy, ...relist].sort((x, y) => x.t - y.t)))]);
    expect(kinds(json(r))).not.toContain('apiserver-restart');
  });

  it('a quiet apiserver (an event every 2 s) does not call a 15 s pause a gap', async () => {
    const quiet = [...leases('q', T0, 60, 2000), ...leases('p', T0 + 118_000 + 15_000, 60, 2000)];
    const r = await spawnCli(['-o', 'json', file('quiet.log', lines(quiet))]);
    expect(kinds(json(r))).toEqual([]);
  });

  it('the identity lease taken over by a new holder is a restart, with no pause around it', async () => {
    const idLease = (i: number, holder: string): Ev => ({
      id: `id${i}`,
      t: T0 + i * 10_000 + 3,
      level: 'Request',
      user: 'system:apiserver',
      ua: 'kube-apiserver/v1.30.2 (linux/amd64) kubernetes/abc1234',
      uri: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-x3k2',
      ref: { resource: 'leases', namespace: 'kube-system', name: 'apiserver-x3k2', apiGroup: 'coordination.k8s.io', apiVersion: 'v1' },
      requestObject: { kind: 'Lease', spec: { holderIdentity: `apiserver-x3k2_${holder}` } },
    });
    const evs = [...leases('k', T0, 2400, 50), ...Array.from({ length: 12 }, (_, i) => idLease(i, i < 6 ? 'old-uuid' : 'new-uuid'))].sort((x, y) => x.t - y.t);
    const f = file('lease.log', lines(evs));
    const r = await spawnCli(['-o', 'json', f]);
    const [g] = findingsOf(json(r), 'apiserver-restart');
    expect(g).toMatchObject({ start: iso(T0 + 60_008), end: iso(T0 + 60_008), gapSeconds: 0, signs: ['identity lease taken over'] });
    // The holder change is found across a cut between threads too.
    const cut = await spawnCli(['-o', 'json', '-j', '3', f], null, { env: { AUDIT_SCAN_MIN_SPLIT_BYTES: '8192' } });
    expect(cut.stdout).toBe(r.stdout);
  });
});

describe('copies of one log count once', () => {
  // A: seconds 0–59 of an apiserver's log, 10 requests a second. B: seconds 30–89 of the same log (its first 300
  // requests are A's last 300). C: A gzipped under another name.
  const req = (s: number, k: number): Ev => ({ id: `r-${s}-${k}`, t: T0 + s * 1000 + k * 100, verb: 'get', uri: '/api/v1/namespaces/a/pods/p', ref: { resource: 'pods', namespace: 'a', name: 'p', apiVersion: 'v1' } });
  const secs = (from: number, to: number): Ev[] => Array.from({ length: to - from }, (_, i) => Array.from({ length: 10 }, (_, k) => req(from + i, k))).flat();
  const a = file('a.log', lines(secs(0, 60)));
  const b = file('b.log', lines(secs(30, 90)));
  const c = file('a-copy.log.gz', gzipSync(readFileSync(a)));

  it('an overlapping export and a gzipped copy: 900 distinct requests, each named with what it repeats', async () => {
    const r = await spawnCli(['-o', 'json', a, b, c]);
    expect(r.code).toBe(0);
    const rep = json(r);
    expect(rep.totals).toMatchObject({ requests: 900, getRequests: 900, duplicateRequests: 900 });
    expect(rep.inputs.map((i) => [i.duplicateRequests, i.duplicateOf, i.overlaps])).toEqual([
      [0, null, []],
      [300, null, [{ input: a, requests: 300 }]],
      [600, a, [{ input: a, requests: 600 }]],
    ]);
    expect(r.stderr).toContain('b.log: 300 of its 600 requests repeat');
    expect(r.stderr).toContain(`a-copy.log.gz: a copy of ${a}: 600 of its 600 requests are there and counted once`);
  });

  it('the same answer with several threads and small cuts', async () => {
    const one = await spawnCli(['-o', 'json', '-j', '1', a, b, c]);
    const three = await spawnCli(['-o', 'json', '-j', '3', a, b, c], null, { env: { AUDIT_SCAN_MIN_SPLIT_BYTES: '4096' } });
    expect(three.stdout).toBe(one.stdout);
  });

  it('rotated files of one apiserver are not copies: a request split across them counts once, nothing is left out', async () => {
    const all = secs(0, 60);
    const first = file('rot-1.log', lines([...all.slice(0, 300), { ...all[300]!, stage: 'RequestReceived' }]));
    const second = file('rot-2.log', lines(all.slice(300)));
    const rep = json(await spawnCli(['-o', 'json', first, second]));
    expect(rep.totals).toMatchObject({ requests: 600, duplicateRequests: 0 });
  });
});

describe('Ctrl-C works the first time', () => {
  it('with a terminal as stdin (a pseudo-terminal from script(1)): exit 130 and the report', async () => {
    const out = join(dir, 'pty.json');
    // `exec` makes audit-scan the terminal's only foreground process, so no shell (dash in CI, bash here)
    // decides what a Ctrl-C does to it; script -e passes its exit code through.
    const cmd = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} -o json - > ${JSON.stringify(out)}`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', SHELL: '/bin/sh' } });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    await new Promise((r) => setTimeout(r, 2500));
    child.stdin.write('\x03'); // one Ctrl-C, through the terminal's line discipline
    const code = await Promise.race([new Promise<number | null>((r) => child.on('exit', (c) => r(c))), new Promise<string>((r) => setTimeout(() => r('timeout'), 8000))]);
    if (code === 'timeout') child.kill('SIGKILL');
    expect(code).toBe(130);
    expect(text).toContain('interrupted');
    expect(JSON.parse(readFileSync(out, 'utf8')).schemaVersion).toBe(1);
  });

  it('during load from a silent pipe: exit 130, the cut input is not committed', async () => {
    const db = join(dir, 'cut.duckdb');
    const child = spawn(process.execPath, [BIN, 'load', '--db', db, '-'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    child.stdin.write(lines(leases('x', T0, 10, 100)));
    // wait until load has opened its store (it is then reading stdin, its SIGINT handler set), however slow the
    // machine is today
    for (let t = 0; t < 200 && !existsSync(db); t++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('hung'), 8000))]);
    child.stdin.destroy();
    expect(code).toBe(130);
    expect(stderr).toContain('(stdin): interrupted; not loaded');
    const q = await spawnCli(['sql', '--db', db, '-o', 'json', 'SELECT count(*) AS n FROM requests']);
    expect(JSON.parse(q.stdout)).toEqual([{ n: 0 }]);
  }, 30_000);
});
