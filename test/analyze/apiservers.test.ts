// Several apiservers (issue 23): shares, an apiserver left idle after its restart, one down for good, a merged
// log, and where a restart's relists landed, on three generated apiserver logs whose every figure is worked out
// by hand below.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PassThrough, Writable } from 'node:stream';
import { auditLine, runCli } from '../support.js';
import { run } from '../../src/cli/main.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}
import { apiserverOfInput } from '../../src/analyze/apiservers.js';

const T0 = Date.UTC(2026, 10, 30, 12);
const at = (s: number) => new Date(T0 + Math.round(s * 1000)).toISOString();
let seq = 0;
// 30 clients, 10 per apiserver before the restart: client i starts on apiserver i % 3 (a, b, c)
const client = (i: number) => ({ userAgent: `app-${i}/1.0`, user: { username: `system:serviceaccount:apps:app-${i}` } });
const get = (i: number, s: number) => auditLine({ auditID: `g${seq++}`, verb: 'get', requestURI: `/api/v1/namespaces/apps/configmaps/c${i}`, objectRef: { resource: 'configmaps', namespace: 'apps', name: `c${i}`, apiVersion: 'v1' }, ...client(i), requestReceivedTimestamp: at(s), stageTimestamp: at(s) });
const list = (i: number, s: number) => auditLine({ auditID: `l${seq++}`, verb: 'list', requestURI: '/api/v1/pods', objectRef: { resource: 'pods', apiVersion: 'v1' }, ...client(i), requestReceivedTimestamp: at(s), stageTimestamp: at(s) });
const watchEnd = (i: number, fromS: number, toS: number) => auditLine({ auditID: `w${seq++}`, verb: 'watch', requestURI: '/api/v1/namespaces/apps/configmaps?watch=true&resourceVersion=5', objectRef: { resource: 'configmaps', namespace: 'apps', apiVersion: 'v1' }, ...client(i), requestReceivedTimestamp: at(fromS), stageTimestamp: at(toS) });
// the apiserver's own loopback client: one request a second on the restarted apiserver once it is back
const probe = (s: number) => auditLine({ auditID: `p${seq++}`, verb: 'get', requestURI: '/api/v1/namespaces/default/endpoints/kubernetes', objectRef: { resource: 'endpoints', namespace: 'default', name: 'kubernetes', apiVersion: 'v1' }, user: { username: 'system:apiserver' }, userAgent: 'kube-apiserver/v1.30.2', requestReceivedTimestamp: at(s), stageTimestamp: at(s) });

const A = 0;
const B = 1;
const C = 2;
/** Each client's one get a second, at +k×100 ms for the k-th client of its apiserver, in [fromS, toS). */
function gets(out: string[][], where: (i: number) => number, fromS: number, toS: number, clients: number[] = Array.from({ length: 30 }, (_, i) => i)): void {
  for (let s = fromS; s < toS; s++) for (const i of clients) out[where(i)]!.push(get(i, s + Math.floor(i / 3) / 10));
}
/** a's clients (i % 3 = 0) after a went down: even ones (0, 6, …, 24) to b, odd ones (3, 9, …, 27) to c. */
const moved = (i: number) => (i % 3 !== A ? i % 3 : (i / 3) % 2 === 0 ? B : C);
const A_CLIENTS = [0, 3, 6, 9, 12, 15, 18, 21, 24, 27];

/** The common start: 600 s balanced (10 gets/s on each), a's 10 clients' watches end on a at 599.9 s and a stops;
 * at 601 s each of them lists pods 10 times on the apiserver it moved to (100 lists: 50 on b, 50 on c). */
function start(): string[][] {
  const out: string[][] = [[], [], []];
  gets(out, (i) => i % 3, 0, 600);
  for (const i of A_CLIENTS) out[A]!.push(watchEnd(i, 300, 599.9));
  for (const i of A_CLIENTS) for (let k = 0; k < 10; k++) out[moved(i)]!.push(list(i, 601 + k / 100));
  return out;
}

// The scratch folders of this file's logs (about 25 MB each), removed when its tests end: the run's folder
// (global-setup.ts) goes only when the run ends, and a mutation run's test runner lives for hundreds of runs of
// this file (22 GB once).
const scratch: string[] = [];
const scratchDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'apiservers-'));
  scratch.push(d);
  return d;
};
afterAll(() => {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
});

function write(logs: string[][], opts: { merged?: boolean; gzip?: boolean } = {}): string[] {
  const dir = scratchDir();
  const sorted = logs.map((l) => [...l].sort((x, y) => Date.parse(JSON.parse(x).stageTimestamp) - Date.parse(JSON.parse(y).stageTimestamp)));
  if (opts.merged) {
    const p = join(dir, 'audit.log');
    writeFileSync(p, sorted.flat().join('\n') + '\n');
    return [p];
  }
  return sorted.map((l, i) => {
    const p = join(dir, `apiserver-${'abc'[i]}-audit.log${opts.gzip ? '.gz' : ''}`);
    const text = l.join('\n') + '\n';
    writeFileSync(p, opts.gzip ? gzipSync(text) : text);
    return p;
  });
}

async function scan(files: string[], extra: string[] = []): Promise<any> {
  const r = await runCli(['-o', 'json', '--kube-version', '1.30', ...extra, ...files]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}
const ofKind = (r: any, kind: string) => r.findings.filter((f: any) => f.kind === kind);

/** a back at 660 s; its 10 clients stay on b and c until `backS` (or the log's end at 1800 s). */
function pinned(backS = 1800): string[][] {
  const out = start();
  gets(out, moved, 600, backS);
  gets(out, (i) => i % 3, backS, 1800);
  for (let s = 660; s < 1800; s++) out[A]!.push(probe(s));
  return out;
}

describe('apiserver imbalance after a restart', () => {
  it('finds an apiserver whose clients stayed on the others, with its share before and after and where they went', async () => {
    const r = await scan(write(pinned()));
    // Before (the 10 min before a's last event at 599.9 s): a 6,000 gets + 10 watches, b and c 6,000 each:
    // 6,010 / 18,010 = 0.334 → 0.33. After 660 s: each second a 1 (the probe), b and c 10 + 5 moved = 15:
    // a 1/31 = 0.03, b and c 15/31 = 0.48, for 19 one-minute steps (660 s – 1,800 s = 1,140 s), still at the end.
    const [im] = ofKind(r, 'apiserver-imbalance');
    expect(im).toMatchObject({
      severity: 'medium',
      apiserver: 'apiserver-a',
      restartAt: at(660),
      start: at(660),
      end: at(1800),
      seconds: 1140,
      endedAfterLog: true,
      evenShare: 0.33,
      shareBefore: 0.33,
      shareAfter: 0.03,
      others: [
        { apiserver: 'apiserver-b', shareBefore: 0.33, shareAfter: 0.48 },
        { apiserver: 'apiserver-c', shareBefore: 0.33, shareAfter: 0.48 },
      ],
      clientsBefore: 10,
      clientsMoved: 10,
      // 5 clients each, 1 get a second for 1,140 s: 5,700 requests
      movedTo: [
        { apiserver: 'apiserver-b', clients: 5, requests: 5700 },
        { apiserver: 'apiserver-c', clients: 5, requests: 5700 },
      ],
    });
    expect(ofKind(r, 'apiserver-imbalance')).toHaveLength(1);
    expect(im.summary).toBe(
      `apiserver-a served 3% of the requests for 19 min after it restarted at ${at(660)} (33% in the 10 minutes before; an even share is 33%): apiserver-b 33% → 48%, apiserver-c 33% → 48%, still so when the log ends. ` +
        '10 of the 10 clients it served before sent most of their requests elsewhere (apiserver-b 5, apiserver-c 5): clients keep their HTTP/2 connection to the apiserver they reconnected to.',
    );
    expect(im.fix).toContain('--goaway-chance');
    expect(im.fix).toContain('default 0, off; allowed 0 to 0.02');
    expect(im.risk).toContain('do not retry a request on a GOAWAY');
    // the restart itself is found as before: a's watches ended in the 10 s before its 60.1 s gap
    const [restart] = ofKind(r, 'apiserver-restart');
    expect(restart).toMatchObject({ start: at(599.9), end: at(660), gapSeconds: 60.1, signs: ['watches ended before'] });
    // a: 6,010 + 1,140 probes = 7,150 (7,150 / 55,250 = 0.129); b and c: 10 gets/s for 1,800 s + 5 moved for
    // 1,200 s + 50 lists = 18,000 + 6,000 + 50 = 24,050 (0.435)
    expect(r.apiservers.identified).toBe(true);
    expect(r.apiservers.apiservers.map((a: any) => [a.name, a.requests, a.share, a.restarts])).toEqual([
      ['apiserver-a', 7150, 0.13, [at(660)]],
      ['apiserver-b', 24050, 0.44, []],
      ['apiserver-c', 24050, 0.44, []],
    ]);
  });

  it('says where the relist storm of the restarted apiserver’s clients landed', async () => {
    const r = await scan(write(pinned()));
    const [storm] = ofKind(r, 'list-storm');
    expect(storm.requests).toBe(100);
    expect(storm.afterRestart).toEqual({
      apiserver: 'apiserver-a',
      restartStart: at(599.9),
      landedOn: [
        { apiserver: 'apiserver-b', lists: 50, clients: 5 },
        { apiserver: 'apiserver-c', lists: 50, clients: 5 },
      ],
    });
    expect(storm.summary).toContain('The relists of apiserver-a’s clients (it went down at 12:09:59) landed on apiserver-b (50 from 5 clients), apiserver-c (50 from 5 clients).');
  });

  it('finds nothing when the clients come back at once (balanced), or within 4 minutes; 5 minutes is a finding', async () => {
    for (const back of [660, 900]) expect(ofKind(await scan(write(pinned(back))), 'apiserver-imbalance'), `back at ${back}`).toEqual([]);
    // back at 960 s: the steps 660–960 s are low (1/31), the step from 960 s is not (a 11/31 = 0.35)
    const [im] = ofKind(await scan(write(pinned(960))), 'apiserver-imbalance');
    expect(im).toMatchObject({ seconds: 300, end: at(960), endedAfterLog: false, shareAfter: 0.03 });
  });

  it('an apiserver down for good is a restart finding, not an imbalance', async () => {
    const out = start();
    gets(out, moved, 600, 1800);
    const r = await scan(write(out));
    expect(ofKind(r, 'apiserver-imbalance')).toEqual([]);
    const [down] = ofKind(r, 'apiserver-restart');
    // its last event at 599.9 s; b and c go on to 1,800 s: 1,200.1 s
    expect(down).toMatchObject({ input: expect.stringMatching(/apiserver-a-audit\.log$/), start: at(599.9), end: at(1800), gapSeconds: 1200.1, watchesClosedBefore: 10, signs: ['watches ended before', 'no events until the log ends'] });
    expect(down.summary).toContain('10 of its 10 clients went on with other apiservers (apiserver-b 5, apiserver-c 5)');
    expect(ofKind(r, 'apiserver-restart')).toHaveLength(1);
  });

  it('a merged log names no apiserver: no imbalance, and the method says why', async () => {
    const r = await scan(write(pinned(), { merged: true }));
    expect(ofKind(r, 'apiserver-imbalance')).toEqual([]);
    expect(r.apiservers.identified).toBe(false);
    expect(r.method.apiservers).toMatch(/^Apiservers: one apiserver identity \(apiservers-\w+\): the audit events came from one input, so the logs do not say which apiserver served which request/);
    const t = await runCli(['--kube-version', '1.30', ...write(pinned(), { merged: true })]);
    expect(t.stdout).toContain('one apiserver identity');
    expect(t.stdout).not.toContain('Apiservers: apiserver');
  });

  it('gives the same answer with any thread count (gzip inputs are read by workers)', async () => {
    const files = write(pinned(), { gzip: true });
    const one = await scan(files, ['-j', '1']);
    const three = await scan(files, ['-j', '3']);
    expect(three.apiservers).toEqual(one.apiservers);
    expect(three.findings).toEqual(one.findings);
    expect(ofKind(one, 'apiserver-imbalance')).toHaveLength(1);
  });

  it('every format shows each apiserver, and HTML charts their rates', async () => {
    const files = write(pinned());
    const table = await runCli(['--kube-version', '1.30', ...files]);
    expect(table.stdout).toContain('Apiservers: apiserver-a 13% (7,150; restarted 12:11:00), apiserver-b 44% (24,050), apiserver-c 44% (24,050)');
    const md = await runCli(['-o', 'markdown', '--kube-version', '1.30', ...files]);
    expect(md.stdout).toContain('Apiservers: apiserver-a 13%');
    expect(md.stdout).toContain('apiserver-a served 3% of the requests for 19 min');
    const html = await runCli(['-o', 'html', '--kube-version', '1.30', ...files]);
    expect(html.stdout).toContain('Requests per second per apiserver');
    expect(html.stdout).toMatch(/data-series="3"/);
  });
});

// Issue 46 #1: the restart leaves no sign of its own in the log (a policy that omits leases and watches, no relist
// burst), only its silence. a stops for 40 s (600–640 s) while b and c go on; its 10 clients move to b and c.
describe('a restart inferred from a gap', () => {
  /** balanced 0–600 s; a silent [600, 640); its clients on b and c from 600 s on, or back on a from `backS`. */
  function silent(opts: { backS?: number; endS?: number } = {}): string[][] {
    const endS = opts.endS ?? 1540;
    const backS = opts.backS ?? endS;
    const out: string[][] = [[], [], []];
    gets(out, (i) => i % 3, 0, 600);
    gets(out, moved, 600, backS);
    gets(out, (i) => i % 3, backS, endS);
    for (let s = 640; s < endS; s++) out[A]!.push(probe(s));
    return out;
  }

  it('a silence while the others keep their rate, then a lasting low share: a restart, inferred, and the imbalance with its fix', async () => {
    const r = await scan(write(silent()));
    const restarts = ofKind(r, 'apiserver-restart');
    expect(restarts).toHaveLength(1);
    // a's last get at 599.9 s (client 27 at +0.9 s), its first event after at 640 s (the probe): 40.1 s.
    // b and c before: 20 gets/s; during: 20 + 10 moved = 30/s. a's share before: 6,000 / 18,000 = 0.33.
    // After 640 s: a 1 of 31 a second (0.03) for 900 s, to the end of the log at 1,540 s.
    expect(restarts[0]).toMatchObject({
      input: expect.stringMatching(/apiserver-a-audit\.log$/),
      start: at(599.9),
      end: at(640),
      gapSeconds: 40.1,
      signs: ['inferred from gap'],
      certainty: 'inferred from gap',
      inferred: { peersRateBefore: 20, peersRateDuring: 30, shareBefore: 0.33, shareAfter: 0.03, evenShare: 0.33, lowSeconds: 900, endedAfterLog: true },
    });
    expect(restarts[0].summary).toContain('while the other apiservers kept their rate (20/s in the 10 minutes before, 30/s during it), and after it its share stayed at 3% for 15 min, to the end of the log (33% before; an even share is 33%): an apiserver restart inferred from the gap');
    expect(ofKind(r, 'audit-gap')).toEqual([]);
    const [im] = ofKind(r, 'apiserver-imbalance');
    expect(im).toMatchObject({ apiserver: 'apiserver-a', restartAt: at(640), seconds: 900, shareBefore: 0.33, shareAfter: 0.03, clientsMoved: 10 });
    expect(im.fix).toContain('--goaway-chance');
    // a: 6,000 + 900 probes; b and c: 10/s for 1,540 s + 5 moved for 940 s = 15,400 + 4,700 = 20,100
    expect(r.apiservers.apiservers.map((a: any) => [a.name, a.requests, a.restarts, a.restartsInferred])).toEqual([
      ['apiserver-a', 6900, [at(640)], [at(640)]],
      ['apiserver-b', 20100, [], []],
      ['apiserver-c', 20100, [], []],
    ]);
    const md = await runCli(['-o', 'markdown', '--kube-version', '1.30', ...write(silent())]);
    expect(md.stdout).toContain('apiserver restart inferred from a gap in');
  });

  it('a seen restart says so: certainty "seen", no inference', async () => {
    const r = await scan(write(pinned()));
    expect(ofKind(r, 'apiserver-restart')[0]).toMatchObject({ signs: ['watches ended before'], certainty: 'seen' });
    expect(ofKind(r, 'apiserver-restart')[0].inferred).toBeUndefined();
    expect(r.apiservers.apiservers[0].restartsInferred).toEqual([]);
  });

  it('not for an apiserver drained and put back (its share comes back), nor for one whose share comes back in under 5 minutes', async () => {
    for (const back of [640, 900]) {
      const r = await scan(write(silent({ backS: back })));
      expect(ofKind(r, 'apiserver-restart'), `back at ${back}`).toEqual([]);
      expect(ofKind(r, 'apiserver-imbalance'), `back at ${back}`).toEqual([]);
      // the pause is still reported, as a pause
      expect(ofKind(r, 'audit-gap')[0], `back at ${back}`).toMatchObject({ start: at(599.9), end: at(640), certainty: null });
    }
  });

  it('an inferred restart does not open the 1.34+ continue-page window; a seen one does', async () => {
    // one continue page on a, 10 s after it came back: etcd after a restart the log shows, a snapshot otherwise
    const page = (s: number) => auditLine({ auditID: `c${seq++}`, verb: 'list', requestURI: '/api/v1/pods?limit=500&continue=abc', objectRef: { resource: 'pods', apiVersion: 'v1' }, ...client(0), requestReceivedTimestamp: at(s), stageTimestamp: at(s) });
    const reasons = (r: any) => r.listGroups.find((g: any) => g.userAgent.startsWith('app-0/'))?.reasons;
    const inferred = silent();
    inferred[A]!.push(page(650));
    const ri = await scan(write(inferred), ['--kube-version', '1.34']);
    expect(ofKind(ri, 'apiserver-restart')[0]).toMatchObject({ certainty: 'inferred from gap' });
    expect(reasons(ri)).toEqual({ 'continue token from cache snapshot (1.34+, if still in history)': 1 });
    // (pinned() has client 0's 10 relists of its own, read from cache: only the page's reason is asked about)
    const seen = pinned();
    seen[A]!.push(page(670));
    const rs = await scan(write(seen), ['--kube-version', '1.34']);
    expect(ofKind(rs, 'apiserver-restart')[0]).toMatchObject({ certainty: 'seen' });
    expect(reasons(rs)).toMatchObject({ 'continue token within a minute of this apiserver’s restart (1.34+: older than its new cache’s snapshots, so etcd)': 1 });
  });

  it('not for a stream that simply ends, nor when every apiserver went quiet together', async () => {
    const ends: string[][] = [[], [], []];
    gets(ends, (i) => i % 3, 0, 600);
    gets(ends, moved, 600, 1540);
    const r = await scan(write(ends));
    expect(ofKind(r, 'apiserver-restart')).toEqual([]);
    expect(r.apiservers.apiservers.every((a: any) => a.restarts.length === 0)).toBe(true);
    // all three silent 600–640 s, then a pinned low: the pause is the whole cluster's (or every log's), not a's
    const quiet: string[][] = [[], [], []];
    gets(quiet, (i) => i % 3, 0, 600);
    gets(quiet, moved, 640, 1540, Array.from({ length: 30 }, (_, i) => i));
    for (let s = 640; s < 1540; s++) quiet[A]!.push(probe(s));
    const q = await scan(write(quiet));
    expect(ofKind(q, 'apiserver-restart')).toEqual([]);
  });
});

// One file holding the three apiservers' events, each record naming its apiserver (issue 23): read per apiserver
// named, the same figures as the three files above.
describe('apiservers named by the records of one file', () => {
  const all = (logs: string[][]): Array<[number, string]> =>
    logs.flatMap((l, i) => l.map((x) => [i, x] as [number, string])).sort((x, y) => Date.parse(JSON.parse(x[1]).stageTimestamp) - Date.parse(JSON.parse(y[1]).stageTimestamp));
  const file = (name: string, text: string): string => {
    const p = join(scratchDir(), name);
    writeFileSync(p, text);
    return p;
  };
  /** aws logs filter-log-events --output json: pretty-printed, one stream per apiserver */
  const cloudWatch = (logs: string[][]): string =>
    file('eks-audit.json', JSON.stringify({ events: all(logs).map(([i, m], n) => ({ logStreamName: `kube-apiserver-audit-${'abc'[i]}`, timestamp: Date.parse(JSON.parse(m).stageTimestamp), message: m, ingestionTime: Date.parse(JSON.parse(m).stageTimestamp) + 1000, eventId: String(n) })), searchedLogStreams: [] }, null, 4) + '\n');
  /** Fluent Bit's tail and kubernetes filter: the line in "log", the pod in kubernetes.pod_name */
  const fluentBit = (logs: string[][], named = true): string =>
    file('fluent-bit.log', all(logs).map(([i, m]) => JSON.stringify({ date: Date.parse(JSON.parse(m).stageTimestamp) / 1000, log: m, ...(named ? { kubernetes: { pod_name: `kube-apiserver-master-${'abc'[i]}`, namespace_name: 'kube-system', host: `master-${'abc'[i]}` } } : {}) })).join('\n') + '\n');
  /** The report's apiservers and findings with the apiservers' and inputs' names made alike. */
  const alike = (r: any, names: RegExp, inputs: RegExp): unknown => {
    const text = JSON.stringify({ apiservers: r.apiservers.apiservers.map(({ inputs: _, ...a }: any) => a), identified: r.apiservers.identified, findings: r.findings.map(({ inputs: _, ...f }: any) => f) });
    return JSON.parse(text.replace(inputs, 'input-$1').replace(names, 'server-$1'));
  };

  it('a CloudWatch export of three streams gives the three files’ apiservers, shares and findings', async () => {
    const logs = pinned();
    const files = await scan(write(logs));
    const cw = await scan([cloudWatch(logs)]);
    // the figures of the first test: a 7,150 (0.13), b and c 24,050 (0.44); a pinned at 3% for 1,140 s
    expect(cw.apiservers.apiservers.map((a: any) => [a.name, a.requests, a.share, a.restarts])).toEqual([
      ['kube-apiserver-audit-a', 7150, 0.13, [at(660)]],
      ['kube-apiserver-audit-b', 24050, 0.44, []],
      ['kube-apiserver-audit-c', 24050, 0.44, []],
    ]);
    const [im] = ofKind(cw, 'apiserver-imbalance');
    expect(im).toMatchObject({ apiserver: 'kube-apiserver-audit-a', restartAt: at(660), seconds: 1140, shareBefore: 0.33, shareAfter: 0.03, clientsMoved: 10 });
    const [restart] = ofKind(cw, 'apiserver-restart');
    expect(restart).toMatchObject({ input: expect.stringMatching(/eks-audit\.json \[kube-apiserver-audit-a\]$/), start: at(599.9), end: at(660), gapSeconds: 60.1 });
    expect(ofKind(cw, 'list-storm')[0].afterRestart.landedOn).toEqual([
      { apiserver: 'kube-apiserver-audit-b', lists: 50, clients: 5 },
      { apiserver: 'kube-apiserver-audit-c', lists: 50, clients: 5 },
    ]);
    expect(cw.method.apiservers).toContain('the apiserver their records\' wrapper names');
    expect(alike(cw, /kube-apiserver-audit-([abc])/g, /[^"]*eks-audit\.json \[kube-apiserver-audit-([abc])\]/g)).toEqual(alike(files, /apiserver-([abc])/g, /[^"]*apiserver-([abc])-audit\.log/g));
  });

  it('a Fluent Bit log of three pods: the same, for any thread count', async () => {
    const logs = pinned();
    const files = await scan(write(logs));
    const fb = fluentBit(logs);
    const split = async (j: string): Promise<any> => {
      const stdout = new Sink();
      const code = await run(['-o', 'json', '--kube-version', '1.30', '-j', j, fb], { stdin: new PassThrough(), stdout, stderr: new Sink(), stdinIsTTY: false, stdoutIsTTY: false, columns: undefined, env: { AUDIT_SCAN_MIN_SPLIT_BYTES: '100000', TZ: 'UTC', NO_COLOR: '1' } });
      expect(code).toBe(0);
      return JSON.parse(stdout.text);
    };
    const one = await split('1');
    const three = await split('3');
    expect(three.apiservers).toEqual(one.apiservers);
    expect(three.findings).toEqual(one.findings);
    expect(one.apiservers.apiservers.map((a: any) => [a.name, a.requests, a.share])).toEqual([
      ['kube-apiserver-master-a', 7150, 0.13],
      ['kube-apiserver-master-b', 24050, 0.44],
      ['kube-apiserver-master-c', 24050, 0.44],
    ]);
    expect(alike(one, /kube-apiserver-master-([abc])/g, /[^"]*fluent-bit\.log \[kube-apiserver-master-([abc])\]/g)).toEqual(alike(files, /apiserver-([abc])/g, /[^"]*apiserver-([abc])-audit\.log/g));
  });

  it('a shipper’s file whose records name no apiserver stays unidentified', async () => {
    const r = await scan([fluentBit(pinned(), false)]);
    expect(r.apiservers.identified).toBe(false);
    expect(r.apiservers.apiservers.map((a: any) => a.name)).toEqual(['fluent-bit']);
    expect(ofKind(r, 'apiserver-imbalance')).toEqual([]);
    expect(r.method.apiservers).toMatch(/^Apiservers: one apiserver identity \(fluent-bit\)/);
  });
});

describe('which apiserver wrote an input', () => {
  it.each([
    ['logs/apiserver-a-audit.log', 'apiserver-a'],
    ['logs/apiserver-a-audit-2026-11-30T12-00-00.000.log.gz', 'apiserver-a'],
    ['audit-m1/audit.log', 'm1'],
    ['audit-m1/audit-2026-11-30T12-00-00.000.log.gz', 'm1'],
    ['m2/audit.log.1', 'm2'],
    ['/var/log/pods/kube-system_kube-apiserver-node-1_0123abcd-4567-89ef-0123-456789abcdef/kube-apiserver/0.log', 'kube-apiserver-node-1'],
    [`/var/log/containers/kube-apiserver-node-2_kube-system_kube-apiserver-${'a'.repeat(64)}.log`, 'kube-apiserver-node-2'],
    ['must-gather.local.1/quay-io-x/audit_logs/kube-apiserver/master-0-audit-2026-11-30T12-00-00.000.log.gz', 'master-0'],
    ['must-gather.local.1/quay-io-x/audit_logs/openshift-apiserver/master-0-audit.log.gz', 'openshift-apiserver/master-0'],
    ['kube-apiserver-audit-0a1b2c3d.json', 'kube-apiserver-0a1b2c3d'],
    ['kube-apiserver-m3.log', 'kube-apiserver-m3'],
    ['audit.log', 'audit.log'],
    ['(stdin)', '(stdin)'],
  ])('%s → %s', (name, apiserver) => {
    expect(apiserverOfInput(name)).toBe(apiserver);
  });
});
