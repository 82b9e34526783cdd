// A real etcd (issue 21, "Proven on a real etcd"): the etcd fixtures are transcriptions, so this starts the etcd
// installed here (Debian's etcd-server, 3.4.23), stores 7,130 pod-sized values under /registry/pods/, reads them as
// kube-apiserver does, and checks that audit-scan reads etcd's own log of those reads as etcd wrote it: the ranges,
// the reads of each, the objects and the bytes, once per logger (zap JSON and capnslog text, both in 3.4).
//
// --experimental-warning-apply-duration=0s logs every read: etcd logs a read when it took longer than the duration
// (`d > warningApplyDuration`, etcdserver/util.go@v3.4.23) and 0s is the least the flag takes.
//
// What etcd's `size` is: proto.Size of the RangeResponse when EtcdServer.Range returns, before the gRPC layer fills
// in the header's cluster_id, member_id and raft_term (v3rpc/key.go: s.hdr.fill after s.kv.Range). So the size is
// worked out here from the response, its header holding only the revision.
//
// etcd's zap logger samples (pkg/logutil/zap.go@v3.4.23: Sampling{Initial: 100, Thereafter: 100}, a 1 s tick, per
// message and level): in a second, the first 100 lines of one message are written, then every 100th. The storm at
// the end (300 reads at once) shows it, and that the report says where its etcd counts are a lower bound.
//
// No etcd on PATH: skipped with the reason in its name; in CI (CI=true, .ci/run installs etcd-server) it fails.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnCli } from './support.js';
import type { ScanReport } from '../src/analyze/report.js';

// AUDIT_SCAN_ETCD=<path> runs another etcd build (3.5's zap has the same sampler; capnslog is 3.4's only).
const ETCD = process.env.AUDIT_SCAN_ETCD ?? 'etcd';

function etcdVersion(): string | null {
  const r = spawnSync(ETCD, ['--version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) return null;
  return /etcd Version: (\S+)/.exec(r.stdout)?.[1] ?? null;
}

const VERSION = etcdVersion();
const IN_CI = process.env.CI === 'true';
const SKIP_REASON = `no etcd binary (${ETCD} --version failed): apt-get install etcd-server (.ci/run installs it in CI)`;
// capnslog was removed in etcd 3.5: only 3.4 writes both forms.
const LOGGERS: Array<'zap' | 'capnslog'> = VERSION !== null && /^3\.4\./.test(VERSION) ? ['zap', 'capnslog'] : ['zap'];
// AUDIT_SCAN_ETCD_LOGS=<dir> keeps the logs etcd wrote (to read them, or to make fixtures of them).
const KEEP = process.env.AUDIT_SCAN_ETCD_LOGS;

const NAMESPACES: Array<[string, number]> = [
  ['kube-system', 110],
  ['team-a', 3000],
  ['team-b', 2520],
  ['team-c', 1500],
]; // 7,130 pods
const PODS = NAMESPACES.reduce((s, [, n]) => s + n, 0);
const LEASES = 100;
const STORM = 300;

const node = (i: number): string => `node-${String(i).padStart(3, '0')}`;
const b64 = (s: string): string => Buffer.from(s, 'latin1').toString('base64');
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('latin1');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A pod-sized value: 1,864 to 1,870 bytes, about the 1,867 of the demo incident's pods. */
function podValue(ns: string, name: string, i: number): string {
  const head = JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: ns, uid: `uid-${i}` }, spec: { nodeName: node(i % LEASES) } });
  return head + ' '.repeat(1867 + (i % 7) - 3 - head.length);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

interface Etcd {
  url: string;
  logFile: string;
  proc: ChildProcess;
  dir: string;
}

async function startEtcd(logger: 'zap' | 'capnslog'): Promise<Etcd> {
  const dir = mkdtempSync(join(tmpdir(), `audit-scan-etcd-${logger}-`));
  const client = await freePort();
  let peer = await freePort();
  while (peer === client) peer = await freePort();
  const url = `http://127.0.0.1:${client}`;
  const peerUrl = `http://127.0.0.1:${peer}`;
  const logFile = join(dir, `etcd-${logger}.log`);
  const args = [
    '--name', 'm1', '--data-dir', join(dir, 'data'),
    '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl, '--initial-cluster', `m1=${peerUrl}`,
    '--logger', logger, '--log-outputs', 'stderr',
    '--experimental-warning-apply-duration', '0s',
    // the values go in as a few large transactions
    '--max-txn-ops', '1000', '--max-request-bytes', String(8 << 20),
  ];
  const proc = spawn(ETCD, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const out = createWriteStream(logFile);
  let head = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`etcd did not start in 20 s:\n${head}`)), 20_000);
    proc.stderr!.on('data', (d: Buffer) => {
      out.write(d);
      if (head.length < 200_000) {
        head += d.toString('utf8');
        // zap: "serving client traffic insecurely; …"; capnslog: "embed: serving insecure client requests on …"
        if (/serving client traffic insecurely|serving insecure client requests/.test(head)) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`etcd exited (${code}) before serving:\n${head}`));
    });
  });
  proc.stderr!.on('end', () => out.end());
  return { url, logFile, proc, dir };
}

async function stopEtcd(e: Etcd): Promise<void> {
  if (e.proc.exitCode !== null || e.proc.signalCode !== null) return;
  const closed = new Promise<void>((r) => e.proc.once('close', () => r()));
  e.proc.kill('SIGTERM');
  await Promise.race([closed, sleep(10_000).then(() => e.proc.kill('SIGKILL'))]);
  await closed;
}

interface KvJson {
  key?: string;
  create_revision?: string;
  mod_revision?: string;
  version?: string;
  value?: string;
  lease?: string;
}
interface RangeJson {
  header?: { revision?: string };
  kvs?: KvJson[];
  more?: boolean;
  count?: string;
}

async function call<T>(e: Etcd, path: string, body: unknown): Promise<T> {
  const r = await fetch(e.url + path, { method: 'POST', body: JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${path}: ${r.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

const varintLen = (n: number): number => {
  let l = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    l++;
  }
  return l;
};
const bytesField = (len: number): number => (len > 0 ? 1 + varintLen(len) + len : 0);
const intField = (v: string | undefined): number => (v === undefined || Number(v) === 0 ? 0 : 1 + varintLen(Number(v)));
const message = (len: number): number => 1 + varintLen(len) + len;

/** The `size` etcd logs for a RangeResponse: its protobuf size, the header holding only the revision (see above). */
export function loggedRangeSize(r: RangeJson): number {
  let n = message(intField(r.header?.revision));
  for (const kv of r.kvs ?? []) {
    const k = bytesField(unb64(kv.key).length) + intField(kv.create_revision) + intField(kv.mod_revision) + intField(kv.version) + bytesField(unb64(kv.value).length) + intField(kv.lease);
    n += message(k);
  }
  if (r.more === true) n += 2;
  return n + intField(r.count);
}

/** What a row of the report's etcdRanges should say, worked out from the reads made and what etcd returned. */
interface Expected {
  key: string;
  limited: boolean;
  internal: string | null;
  objects: number[];
  bytes: number[];
}

class Reads {
  readonly rows = new Map<string, Expected>();
  constructor(private readonly e: Etcd) {}

  async range(row: Omit<Expected, 'objects' | 'bytes'>, req: Record<string, unknown>): Promise<RangeJson> {
    const body: Record<string, unknown> = { ...req, key: b64(req.key as string) };
    if (typeof req.range_end === 'string') body.range_end = b64(req.range_end);
    const r = await call<RangeJson>(this.e, '/v3/kv/range', body);
    const k = `${row.internal ?? ''}|${row.key}|${row.limited}`;
    let x = this.rows.get(k);
    if (x === undefined) this.rows.set(k, (x = { ...row, objects: [], bytes: [] }));
    x.objects.push((r.kvs ?? []).length);
    x.bytes.push(loggedRangeSize(r));
    return r;
  }
}

async function putAll(e: Etcd): Promise<void> {
  const ops: Array<{ request_put: { key: string; value: string } }> = [];
  let i = 0;
  for (const [ns, n] of NAMESPACES) {
    for (let j = 0; j < n; j++, i++) {
      const name = `pod-${String(j).padStart(5, '0')}`;
      ops.push({ request_put: { key: b64(`/registry/pods/${ns}/${name}`), value: b64(podValue(ns, name, i)) } });
    }
  }
  // leases of one size, written in one transaction: every lease read returns the same bytes
  for (let l = 0; l < LEASES; l++) ops.push({ request_put: { key: b64(`/registry/leases/kube-node-lease/${node(l)}`), value: b64(`{"kind":"Lease","spec":{"holderIdentity":"${node(l)}"}}`) } });
  for (let at = 0; at < ops.length; at += 1000) await call(e, '/v3/kv/txn', { success: ops.slice(at, at + 1000) });
}

const ALL = { key: '/registry/pods/', limited: false, internal: null };

/** The reads kube-apiserver makes, each kind a few times: fewer than 100 in all, so zap's sampler keeps them all. */
async function readAsApiserver(reads: Reads): Promise<void> {
  for (let n = 0; n < 3; n++) await reads.range(ALL, { key: '/registry/pods/', range_end: '/registry/pods0' });
  // a paginated list: pages of 500, each continuing after the last key ("\0" appended) at the first page's revision
  let key = '/registry/pods/';
  let revision = 0;
  for (;;) {
    const r = await reads.range({ key: '/registry/pods/', limited: true, internal: null }, { key, range_end: '/registry/pods0', limit: 500, ...(revision > 0 ? { revision } : {}) });
    revision ||= Number(r.header!.revision);
    if (r.more !== true) break;
    key = unb64(r.kvs!.at(-1)!.key) + '\0';
  }
  for (let n = 0; n < 5; n++) await reads.range({ key: '/registry/pods/<ns>/', limited: false, internal: null }, { key: '/registry/pods/kube-system/', range_end: '/registry/pods/kube-system0' });
  for (let n = 0; n < 10; n++) await reads.range({ key: '/registry/pods/<ns>/<name>', limited: false, internal: null }, { key: `/registry/pods/team-a/pod-${String(n * 97).padStart(5, '0')}` });
  for (let n = 0; n < 3; n++) await reads.range({ key: '/registry/pods/', limited: false, internal: 'count_only (object-count polling)' }, { key: '/registry/pods/', range_end: '/registry/pods0', count_only: true });
  for (let n = 0; n < 2; n++) await reads.range({ key: '/registry/pods/', limited: false, internal: 'keys_only (object-count stats, 1.34+)' }, { key: '/registry/pods/', range_end: '/registry/pods0', keys_only: true });
  for (let n = 0; n < 2; n++) await reads.range({ key: '/registry/pods/', limited: true, internal: 'limit:1 (current-revision fetch)' }, { key: '/registry/pods/', range_end: '/registry/pods0', limit: 1 });
  for (let n = 0; n < 3; n++) await reads.range({ key: '/registry/health', limited: false, internal: 'health check' }, { key: '/registry/health' });
}

/** STORM lease gets at once (30 in flight), as kubelets renewing their leases: more than zap keeps in a second. */
async function storm(reads: Reads): Promise<number> {
  const t0 = Date.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < STORM) {
      const i = next++;
      await reads.range({ key: '/registry/leases/<ns>/<name>', limited: false, internal: null }, { key: `/registry/leases/kube-node-lease/${node(i % LEASES)}` });
    }
  };
  await Promise.all(Array.from({ length: 30 }, worker));
  return Date.now() - t0;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

const started: Etcd[] = [];
afterAll(async () => {
  for (const e of started) {
    await stopEtcd(e);
    rmSync(e.dir, { recursive: true, force: true });
  }
});

describe('a real etcd', () => {
  it.runIf(VERSION === null && IN_CI)('is installed in CI', () => {
    expect.fail(`CI=true and ${SKIP_REASON}`);
  });
  if (VERSION === null && !IN_CI) console.warn(`test/etcd-real.test.ts skipped: ${SKIP_REASON}`);

  describe.skipIf(VERSION === null).each(LOGGERS)(VERSION === null ? `(skipped: ${SKIP_REASON}) %s` : `etcd ${VERSION} --logger %s`, (logger) => {
    it('logs every read as etcd returned it, and audit-scan reads the log as etcd wrote it', async () => {
      const e = await startEtcd(logger);
      started.push(e);
      await putAll(e);
      // the writes were logged under the same message as the reads: a new sampler second before the reads
      await sleep(1100);
      const reads = new Reads(e);
      await readAsApiserver(reads);
      await sleep(1100);
      const stormMs = await storm(reads);
      await stopEtcd(e);
      if (KEEP !== undefined) {
        mkdirSync(KEEP, { recursive: true });
        spawnSync('cp', [e.logFile, KEEP]);
      }

      const log = readFileSync(e.logFile, 'utf8');
      const lines = log.split('\n').filter((l) => l.length > 0);
      const rangeLines = lines.filter((l) => l.includes('read-only range '));
      const stormLines = rangeLines.filter((l) => l.includes('/registry/leases/'));
      const full = rangeLines.find((l) => l.includes(logger === 'zap' ? '"request":"key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" "' : '"key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" "'));
      // what etcd wrote for a full list: the objects (range_response_count) and the bytes (size) returned
      const want = reads.rows.get('|/registry/pods/|false')!;
      expect(full, 'a full-prefix read in the log').toContain(`range_response_count:${PODS} size:${want.bytes[0]}`);

      // zap: 100 lines of a message a second, then one in 100; capnslog writes every line. (A machine too busy to make
      // 300 reads in 2 s would make them slower than the sampler drops: the storm then shows nothing.)
      const dense = logger === 'zap' && stormMs < 2000;
      if (logger === 'zap' && !dense) console.warn(`etcd-real: the storm took ${stormMs} ms, too slow to show zap's sampling`);
      if (dense) {
        expect(stormLines.length).toBeLessThan(STORM);
        expect(stormLines.length).toBeGreaterThanOrEqual(100);
        // all in one sampler second: the first 100, then the 200th and the 300th
        if (stormMs < 900) expect(stormLines.length).toBe(102);
      } else if (logger === 'capnslog') {
        expect(stormLines.length).toBe(STORM);
      }
      expect(rangeLines.length - stormLines.length, 'every other read is in the log').toBe([...reads.rows.values()].filter((r) => !r.key.startsWith('/registry/leases/')).reduce((s, r) => s + r.objects.length, 0));

      const r = await spawnCli(['-o', 'json', '--top', '50', e.logFile]);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as ScanReport;
      const input = report.inputs[0]!;
      // every line etcd wrote is recognised: none skipped
      expect([input.lines, input.skippedLines, input.skipReasons]).toEqual([lines.length, 0, {}]);
      // a read over 100 ms also has a trace line (zap), which audit-scan merges with the read's own line
      const traceLines = lines.filter((l) => /"msg":"trace\[\d+\] range"/.test(l));
      expect(input.etcdEntries).toBe(rangeLines.length + traceLines.length);
      expect(report.kubernetes.etcdVersion).toBe(VERSION);

      const logged = (x: Expected): number => (x.key.startsWith('/registry/leases/') ? stormLines.length : x.objects.length);
      const expected = [...reads.rows.values()]
        .map((x) => ({
          key: x.key,
          limited: x.limited,
          internal: x.internal,
          reads: logged(x),
          objectsPerRead: round1(mean(x.objects)),
          objectsMax: Math.max(...x.objects),
          // the storm's reads all return one lease of the same size: the mean of those logged is the mean of all
          bytesPerRead: Math.round(mean(x.bytes)),
          errors: 0,
        }))
        .sort((a, b) => `${a.internal}|${a.key}|${a.limited}`.localeCompare(`${b.internal}|${b.key}|${b.limited}`));
      const got = report.etcdRanges
        .map((x) => ({ key: x.key, limited: x.limited, internal: x.internal, reads: x.reads, objectsPerRead: x.objectsPerRead, objectsMax: x.objectsMax, bytesPerRead: x.bytesPerRead, errors: x.errors }))
        .sort((a, b) => `${a.internal}|${a.key}|${a.limited}`.localeCompare(`${b.internal}|${b.key}|${b.limited}`));
      expect(got).toEqual(expected);
      for (const x of report.etcdRanges) expect(x.tookMsMax, x.key).not.toBeNull();

      const internal = expected.filter((x) => x.internal !== null);
      expect(report.totals.etcdSlowRanges).toBe(expected.filter((x) => x.internal === null).reduce((s, x) => s + x.reads, 0));
      expect(report.totals.etcdInternalRanges).toBe(internal.reduce((s, x) => s + x.reads, 0));
      expect(report.totals.etcdInternalByReason).toEqual(Object.fromEntries(internal.map((x) => [x.internal, x.reads])));

      // where zap's sampler may have dropped lines, the report says its counts are a lower bound, and where
      const sampled = report.method.etcdSampled ?? [];
      if (dense) {
        expect(sampled.length).toBeGreaterThan(0);
        const stormTimes = stormLines.map((l) => Date.parse((JSON.parse(l) as { ts: string }).ts));
        const covered = (t: number): boolean => sampled.some((s) => Date.parse(s.from) <= t && t < Date.parse(s.to));
        expect(stormTimes.every(covered)).toBe(true);
        expect(report.method.estimated.join(' ')).toMatch(/lower bound/);
      } else if (logger === 'capnslog') {
        expect(sampled).toEqual([]);
        expect(report.method.estimated.join(' ')).not.toMatch(/lower bound/);
      }
    });
  });
});
