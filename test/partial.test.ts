// Issue 24: partial results across processes. Each `partial` runs as its own process; `merge -o json` over the
// parts must be byte-equal to `audit-scan -o json` over all the inputs, for any number of shards and any cut.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { BIN, ROOT, spawnCli } from './support.js';
import { makeCase } from './generated-logs.js';
import { mulberry32 } from '../fixtures/prng.mjs';

const TMP = mkdtempSync(join(tmpdir(), 'audit-scan-partial-'));

/** Runs `audit-scan partial …` as its own process, its stdout (the gzip part) into `out`. */
function partial(args: string[], out: string, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const fd = openSync(out, 'w');
    const child = spawn(process.execPath, [BIN, 'partial', ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', TZ: 'UTC', ...env }, stdio: ['ignore', fd, 'pipe'] });
    closeSync(fd);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** The header line of a part. */
function headerOf(path: string): { segments: Array<{ input: number; start: number; end: number; whole: boolean }>; universe: { inputs: Array<{ name: string }> } } {
  const text = gunzipSync(readFileSync(path)).toString('utf8');
  return JSON.parse(text.slice(0, text.indexOf('\n'))) as ReturnType<typeof headerOf>;
}

function shuffled<T>(a: T[], seed: number): T[] {
  const r = mulberry32(seed);
  const out = [...a];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Shards `files` (in that order) K ways with seeded cuts, one process a shard, and merges the parts (given in a
 * seeded order). Returns the merge's stdout and the parts' headers. */
async function shardAndMerge(files: string[], k: number, seed: number, extra: string[], tag: string, copiesFlow = true): Promise<{ stdout: string; stderr: string; parts: string[] }> {
  const manifest = join(TMP, `${tag}-${k}-${seed}.txt`);
  writeFileSync(manifest, files.map((f) => (f.startsWith('/') ? f : join(ROOT, f))).join('\n') + '\n');
  const parts = Array.from({ length: k }, (_, i) => join(TMP, `${tag}-${k}-${seed}-${i + 1}.json.gz`));
  const runs = await Promise.all(parts.map((p, i) => partial([...extra, '--manifest', manifest, '--shard', `${i + 1}/${k}`], p, { AUDIT_SCAN_SHARD_SEED: String(seed) })));
  for (const r of runs) expect(r.code, r.stderr).toBe(0);
  let m = await spawnCli(['merge', '-o', 'json', ...shuffled(parts, seed)]);
  expect(m.code, m.stderr).toBe(0);
  if (m.stderr.includes('counted twice') && copiesFlow) {
    // Copies of one log under two names (the wrapped forms hold the same events): the flow merge prints.
    const copies = join(TMP, `${tag}-${k}-${seed}-copies.json`);
    const c = await spawnCli(['merge', '--copies', ...parts]);
    expect(c.code, c.stderr).toBe(0);
    writeFileSync(copies, c.stdout);
    const held = new Set((JSON.parse(c.stdout) as { copies: Array<{ input: number }> }).copies.map((x) => x.input));
    const redo = parts.map((p, i) => ({ p, i })).filter(({ p }) => headerOf(p).segments.some((s) => held.has(s.input)));
    const again = await Promise.all(redo.map(({ p, i }) => partial([...extra, '--skip-copies', copies, '--manifest', manifest, '--shard', `${i + 1}/${k}`], p, { AUDIT_SCAN_SHARD_SEED: String(seed) })));
    for (const r of again) expect(r.code, r.stderr).toBe(0);
    m = await spawnCli(['merge', '-o', 'json', ...shuffled(parts, seed)]);
    expect(m.code, m.stderr).toBe(0);
  }
  return { stdout: m.stdout, stderr: m.stderr, parts };
}

async function scanJson(files: string[], extra: string[] = []): Promise<string> {
  const r = await spawnCli(['-o', 'json', ...extra, ...files.map((f) => (f.startsWith('/') ? f : join(ROOT, f)))]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

/** Generated logs (test/generated-logs.ts): whole, one cut in two files with its last final event repeated at the
 * start of the second, and the Kubernetes version evidence (a control-plane user agent) in one file only. */
function generatedCorpus(): string[] {
  const files: string[] = [];
  for (const seed of [11, 12]) {
    const p = join(TMP, `gen-${seed}.log`);
    writeFileSync(p, makeCase(seed).bytes);
    files.push(p);
  }
  const c = makeCase(13);
  const a = c.bytes.subarray(0, c.cut);
  const lastFinal = a.toString('utf8').trimEnd().split(/\r?\n/).reverse().find((l) => l.includes('"ResponseComplete"'))!;
  writeFileSync(join(TMP, 'gen-13a.log'), a);
  writeFileSync(join(TMP, 'gen-13b.log'), Buffer.concat([Buffer.from(lastFinal + '\n'), c.bytes.subarray(c.cut)]));
  const version = JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: 'v-1', stage: 'ResponseComplete', requestURI: '/api/v1/nodes?limit=500', verb: 'list', user: { username: 'system:kube-controller-manager' }, userAgent: 'kube-controller-manager/v1.29.4 (linux/amd64) kubernetes/abc', objectRef: { resource: 'nodes', apiVersion: 'v1' }, responseStatus: { code: 200 }, requestReceivedTimestamp: '2026-01-01T00:00:01.000000Z', stageTimestamp: '2026-01-01T00:00:01.010000Z' });
  writeFileSync(join(TMP, 'gen-version.log'), version + '\n');
  return [...files, join(TMP, 'gen-13a.log'), join(TMP, 'gen-13b.log'), join(TMP, 'gen-version.log')];
}

const WRAPPED = ['cri.log', 'docker.log', 'fluent-bit.log', 'loki.jsonl', 'splunk-export.json', 'logs-insights.csv', 'journald-short.log'].map((f) => `fixtures/wrapped/audit/${f}`);

describe('partial and merge (issue 24)', () => {
  it('the demo, cut into 1 to 5 shards at seeded bytes and merged in a seeded order, gives the scan byte for byte', async () => {
    const demo = ['fixtures/demo/apiserver-a-audit.log.gz', 'fixtures/demo/apiserver-b-audit.log', 'fixtures/demo/etcd-master-1.log'];
    let etcdAlone = false;
    for (let k = 1; k <= 5; k++) {
      const seed = 100 + k;
      const files = shuffled(demo, seed);
      const [want, got] = await Promise.all([scanJson(files), shardAndMerge(files, k, seed, [], 'demo')]);
      expect(got.stdout).toBe(want);
      // the etcd log alone in a shard (its version evidence, and the audit logs', in other shards)
      const etcd = files.indexOf('fixtures/demo/etcd-master-1.log');
      etcdAlone ||= got.parts.some((p) => {
        const s = headerOf(p).segments;
        return s.length > 0 && s.every((x) => x.input === etcd);
      });
    }
    expect(etcdAlone).toBe(true);
  }, 60_000);

  it('generated logs and wrapped forms, 1 to 5 shards: the same JSON; the version evidence in one shard decides the version', async () => {
    const files = shuffled([...generatedCorpus(), ...WRAPPED], 7);
    const extra = ['--syslog-year', '2026'];
    const want = await scanJson(files, extra);
    expect((JSON.parse(want) as { kubernetes: { version: string } }).kubernetes.version).toMatch(/^1\.29/);
    for (let k = 1; k <= 5; k++) {
      const got = await shardAndMerge(files, k, 200 + k, extra, 'gen');
      expect(got.stdout).toBe(want);
    }
  }, 60_000);

  it('counts once a request whose stages fall in two shards', async () => {
    const ev = (id: string, stage: string, t: string): string =>
      JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: id, stage, requestURI: '/api/v1/pods?limit=500', verb: 'list', user: { username: 'alice' }, userAgent: 'x/1', objectRef: { resource: 'pods', apiVersion: 'v1' }, responseStatus: { code: 200 }, requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z', stageTimestamp: t });
    const filler = Array.from({ length: 200 }, (_, i) => ev(`f-${i}`, 'ResponseComplete', `2026-01-01T00:00:${String(10 + Math.floor(i / 10)).padStart(2, '0')}.000000Z`));
    const p = join(TMP, 'stages.log');
    writeFileSync(p, [ev('long', 'RequestReceived', '2026-01-01T00:00:00.000000Z'), ...filler, ev('long', 'ResponseComplete', '2026-01-01T00:01:00.000000Z')].join('\n') + '\n');
    const want = await scanJson([p]);
    const got = await shardAndMerge([p], 2, 0, [], 'stages');
    expect(got.parts.map((x) => headerOf(x).segments.length)).toEqual([1, 1]);
    expect(got.stdout).toBe(want);
    expect((JSON.parse(got.stdout) as { totals: { requests: number } }).totals.requests).toBe(201);
  }, 30_000);

  it('a copy of one log in two shards: merge counts it twice and says how to leave it out; after --skip-copies, the scan', async () => {
    const a = join(TMP, 'copy-a.log');
    const b = join(TMP, 'copy-b.log');
    copyFileSync(join(ROOT, 'fixtures/demo/apiserver-b-audit.log'), a);
    writeFileSync(b, readFileSync(a).subarray(0, 400_000));
    const files = [a, 'fixtures/demo/etcd-master-1.log', b];
    const want = await scanJson(files);
    const first = await shardAndMerge(files, 3, 5, [], 'copy', false);
    expect(first.stderr).toContain('counted twice');
    expect(first.stderr).toContain('--skip-copies copies.json');
    const copies = join(TMP, 'copies.json');
    const c = await spawnCli(['merge', '--copies', ...first.parts]);
    expect(c.code, c.stderr).toBe(0);
    writeFileSync(copies, c.stdout);
    // make again only the parts that hold the copy, as merge said
    const manifest = join(TMP, 'copy-3-5.txt');
    const bIndex = 2;
    const redo = first.parts.map((p, i) => ({ p, i })).filter(({ p }) => headerOf(p).segments.some((s) => s.input === bIndex));
    expect(redo.length).toBeGreaterThan(0);
    expect(redo.length).toBeLessThan(3);
    for (const { p, i } of redo) {
      const r = await partial(['--skip-copies', copies, '--manifest', manifest, '--shard', `${i + 1}/3`], p, { AUDIT_SCAN_SHARD_SEED: '5' });
      expect(r.code, r.stderr).toBe(0);
    }
    const m = await spawnCli(['merge', '-o', 'json', ...first.parts]);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toBe(want);
    expect(m.stderr).toContain('counted once');
  }, 40_000);

  it('counts a part given twice once, and names a missing shard', async () => {
    const files = ['fixtures/demo/apiserver-b-audit.log', 'fixtures/demo/etcd-master-1.log'];
    const want = await scanJson(files);
    const got = await shardAndMerge(files, 3, 9, [], 'twice');
    const twice = await spawnCli(['merge', '-o', 'json', got.parts[0]!, ...got.parts]);
    expect(twice.stdout).toBe(want);
    expect(twice.stderr).toContain('holds the same pieces as');
    const missing = await spawnCli(['merge', '-o', 'json', got.parts[0]!, got.parts[2]!]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/bytes \d+–\d+ are in no part .*is a shard's part missing\?/);
  }, 30_000);

  it('refuses parts counted with other options, or written by another version, naming the part and the difference', async () => {
    const f = join(ROOT, 'fixtures/demo/apiserver-b-audit.log');
    const one = join(TMP, 'opt-1.json.gz');
    const five = join(TMP, 'opt-5.json.gz');
    await Promise.all([partial(['--shard', '1/2', f], one), partial(['--bucket', '5s', '--shard', '2/2', f], five)]);
    const r = await spawnCli(['merge', one, five]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`merge: ${five}: it was counted with other options: --bucket 5s here, 1s in the first part`);
    const text = gunzipSync(readFileSync(one)).toString('utf8');
    const nl = text.indexOf('\n');
    const old = join(TMP, 'old.json.gz');
    writeFileSync(old, gzipSync(JSON.stringify({ ...JSON.parse(text.slice(0, nl)), version: '0.0.1' }) + text.slice(nl)));
    const v = await spawnCli(['merge', old]);
    expect(v.code).toBe(2);
    expect(v.stderr).toContain(`merge: ${old}: it was written by audit-scan 0.0.1`);
  }, 30_000);

  // Made by: cd fixtures/partial && node ../../bin/audit-scan.js partial ../audit/seed-vector-requestresponse.jsonl > seed-vector.part.json.gz
  // A part of this format and version must merge into the scan's report; one of another is refused by version.
  // A change to what a part holds must bump PARTIAL_FORMAT_VERSION (src/parallel/partial.ts) and remake this file.
  it('a golden part still merges into the scan, or is refused by its version with a clear error', async () => {
    const golden = 'fixtures/partial/seed-vector.part.json.gz';
    const h = JSON.parse(gunzipSync(readFileSync(join(ROOT, golden))).toString('utf8').split('\n')[0]!) as { formatVersion: number; version: string };
    const { PARTIAL_FORMAT_VERSION } = await import('../src/parallel/partial.js');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const m = await spawnCli(['merge', '-o', 'json', join(ROOT, golden)], null, { cwd: join(ROOT, 'fixtures/partial') });
    if (h.formatVersion === PARTIAL_FORMAT_VERSION && h.version === pkg.version) {
      expect(m.code, m.stderr).toBe(0);
      const s = await spawnCli(['-o', 'json', '../audit/seed-vector-requestresponse.jsonl'], null, { cwd: join(ROOT, 'fixtures/partial') });
      expect(m.stdout).toBe(s.stdout);
    } else {
      expect(m.code).toBe(2);
      expect(m.stderr).toMatch(/it (is of partial format \d+|was written by audit-scan \S+)/);
    }
  }, 20_000);
});

/** A watch cache (re)initialising after a restart (1.31+): 429s, then answered lists with a limit and no selector
 * (the marks a group keeps per input, renumbered when parts made apart merge). */
function initLog(): string {
  const ev = (i: number, code: number, uri: string): string =>
    JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: `init-${i}`, stage: 'ResponseComplete', requestURI: uri, verb: 'list', user: { username: 'system:serviceaccount:a:b' }, userAgent: 'agent/2', objectRef: { resource: 'pods', apiVersion: 'v1' }, responseStatus: code === 429 ? { code, message: 'storage is (re)initializing', reason: 'TooManyRequests' } : { code }, requestReceivedTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), stageTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i, 5)).toISOString() });
  const lines = [];
  for (let i = 0; i < 40; i++) lines.push(ev(i, i % 2 === 0 ? 429 : 200, i % 2 === 0 ? '/api/v1/pods?fieldSelector=spec.nodeName%3Dn' : '/api/v1/pods?limit=500'));
  const p = join(TMP, 'init.log');
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

/** A CloudWatch export naming two apiservers inside one input (its log streams): the first 300 events of each demo
 * apiserver's log, one stream each. */
function twoStreams(): string {
  const lines = (b: Buffer) => b.toString('utf8').split('\n').filter((l) => l.startsWith('{')).slice(0, 300);
  const a = lines(gunzipSync(readFileSync(join(ROOT, 'fixtures/demo/apiserver-a-audit.log.gz'))));
  const b = lines(readFileSync(join(ROOT, 'fixtures/demo/apiserver-b-audit.log')));
  const events = [...a.map((m) => ['a', m]), ...b.map((m) => ['b', m])].map(([k, m], n) => {
    // requests of their own (not copies of the demo's): their own audit IDs
    const e = JSON.parse(m!) as { stageTimestamp: string; auditID: string };
    const t = Date.parse(e.stageTimestamp);
    return { logStreamName: `kube-apiserver-audit-${k}`, timestamp: t, message: JSON.stringify({ ...e, auditID: `eks-${e.auditID}` }), ingestionTime: t + 1000, eventId: String(n) };
  });
  const p = join(TMP, 'eks-two-streams.json');
  writeFileSync(p, JSON.stringify({ events, searchedLogStreams: [] }, null, 1) + '\n');
  return p;
}

const sha256 = (f: string): string => createHash('sha256').update(readFileSync(f.startsWith('/') ? f : join(ROOT, f))).digest('hex');

// Issue 46 #3: each apiserver node scans its own log (`audit-scan partial audit.log > node-a.part`) with no manifest
// shared between machines; merge orders the inputs canonically, by the SHA-256 of each one's bytes.
describe('parts made apart, one process per input (issue 46 #3)', () => {
  const inputs = (): string[] => [
    'fixtures/demo/apiserver-a-audit.log.gz',
    'fixtures/demo/apiserver-b-audit.log',
    'fixtures/demo/etcd-master-1.log',
    twoStreams(), // apiservers named inside one input (CloudWatch log streams)
    'fixtures/apiserver-log/seed/apiserver-1.28-v2.log', // the apiserver's own log
    initLog(),
    ...generatedCorpus(), // a request cut across two files; the version evidence in one file only
  ];

  it('merge in any order gives, byte for byte, one scan of the inputs ordered by the SHA-256 of their bytes', async () => {
    const files = inputs();
    const extra = ['--syslog-year', '2026', '--kube-version', '1.31', '--etcd-version', '3.5.15'];
    const parts = files.map((_, i) => join(TMP, `apart-${i}.part`));
    // one `partial` process a part, each on its own input: no manifest, no --shard
    // (audit and the apiserver's own log among the parts: --beside-audit keeps the log's requests as the audit's
    // evidence, as one scan of both does)
    const make = (more: string[]) => Promise.all(files.map((f, i) => partial([...extra, ...more, f.startsWith('/') ? f : join(ROOT, f)], parts[i]!)));
    for (const r of await make([])) expect(r.code, r.stderr).toBe(0);
    const counted = await spawnCli(['merge', '-o', 'json', ...parts]);
    expect(counted.code).toBe(2);
    expect(counted.stderr).toContain("merge: the parts hold audit events and the apiserver's own log (");
    expect(counted.stderr).toContain('Make every part again with partial --beside-audit');
    for (const r of await make(['--beside-audit'])) expect(r.code, r.stderr).toBe(0);
    const canonical = [...files].sort((a, b) => (sha256(a) < sha256(b) ? -1 : 1));
    const want = await scanJson(canonical, extra);
    // the 429 marks, the named apiservers and the apiserver's own log are in the report, so their inputs' numbers are
    const w = JSON.parse(want) as { listGroups: Array<{ userAgent: string; reasons: Record<string, number> }> };
    // (the cache's start-up window is per input: TimeState.initRejects)
    expect((JSON.parse(want) as { apiservers: { apiservers: Array<{ name: string }> } }).apiservers.apiservers.map((x) => x.name)).toEqual(expect.arrayContaining(['kube-apiserver-audit-a', 'kube-apiserver-audit-b']));
    expect(w.listGroups.find((g) => g.userAgent === 'agent/2')?.reasons).toMatchObject({ 'limit without selector while the watch cache (re)initialised after a restart (1.31+: delegated to etcd)': 19 });
    for (const seed of [1, 2, 3]) {
      const m = await spawnCli(['merge', '-o', 'json', ...shuffled(parts, seed)]);
      expect(m.code, m.stderr).toBe(0);
      expect(m.stderr).toContain(`merge: ${files.length} lists of inputs, made apart: their inputs are merged in canonical order, by the SHA-256 of each one's bytes`);
      expect(m.stdout).toBe(want);
    }
  }, 90_000);

  it('a list split into shards merges with parts made apart: the report\'s input order is the one scan\'s', async () => {
    const [a, b, ...rest] = ['fixtures/demo/apiserver-b-audit.log', 'fixtures/demo/etcd-master-1.log', 'fixtures/demo/apiserver-a-audit.log.gz', initLog()];
    const manifest = join(TMP, 'mixed.txt');
    writeFileSync(manifest, [a, b].map((f) => join(ROOT, f!)).join('\n') + '\n');
    const shards = [1, 2, 3].map((i) => join(TMP, `mixed-shard-${i}.part`));
    const alone = rest.map((_, i) => join(TMP, `mixed-alone-${i}.part`));
    const runs = await Promise.all([
      ...shards.map((p, i) => partial(['--manifest', manifest, '--shard', `${i + 1}/3`], p, { AUDIT_SCAN_SHARD_SEED: '4' })),
      ...rest.map((f, i) => partial([f!.startsWith('/') ? f! : join(ROOT, f!)], alone[i]!)),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const m = await spawnCli(['merge', '-o', 'json', ...shuffled([...shards, ...alone], 9)]);
    expect(m.code, m.stderr).toBe(0);
    const order = (JSON.parse(m.stdout) as { inputs: Array<{ name: string }> }).inputs.map((i) => i.name);
    expect(order).toHaveLength(4);
    // the whole inputs in SHA-256 order among themselves
    const wholes = order.filter((n) => !n.endsWith('apiserver-b-audit.log') && !n.endsWith('etcd-master-1.log'));
    expect(wholes).toEqual([...wholes].sort((x, y) => (sha256(x) < sha256(y) ? -1 : 1)));
    expect(m.stdout).toBe(await scanJson(order));
  }, 60_000);

  it('refuses the same input made into a part twice, and one log read again after it grew', async () => {
    const dir = join(TMP, 'twice');
    mkdirSync(join(dir, 'node-a'), { recursive: true });
    mkdirSync(join(dir, 'node-b'), { recursive: true });
    const log = readFileSync(join(ROOT, 'fixtures/demo/apiserver-b-audit.log'));
    writeFileSync(join(dir, 'node-a', 'audit.log'), log.subarray(0, 200_000));
    writeFileSync(join(dir, 'node-b', 'audit.log'), readFileSync(join(ROOT, 'fixtures/demo/etcd-master-1.log')));
    const part = (node: string, out: string) => partial([join(dir, node, 'audit.log')], join(dir, out));
    for (const r of await Promise.all([part('node-a', 'a1.part'), part('node-a', 'a2.part'), part('node-b', 'b.part')])) expect(r.code, r.stderr).toBe(0);
    // made twice from the same bytes (or the same part given twice): refused, exit 2
    const twice = await spawnCli(['merge', join(dir, 'a1.part'), join(dir, 'b.part'), join(dir, 'a2.part')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/a2\.part and .*a1\.part hold the same input .*the same bytes, SHA-256\): one input made into a part twice would count its requests twice/);
    expect(twice.stdout).toBe('');
    const same = await spawnCli(['merge', join(dir, 'b.part'), join(dir, 'b.part')]);
    expect(same.code).toBe(2);
    // node-a's log grew, and was made into a part again: its first bytes are those of the first part's
    writeFileSync(join(dir, 'node-a', 'audit.log'), log.subarray(0, 400_000));
    expect((await part('node-a', 'a3.part')).code).toBe(0);
    const grown = await spawnCli(['merge', join(dir, 'a1.part'), join(dir, 'a3.part'), join(dir, 'b.part')]);
    expect(grown.code).toBe(2);
    expect(grown.stderr).toContain('hold one log twice');
    expect(grown.stderr).toContain('begin with the same 65536 bytes');
    expect(grown.stderr).toContain('the same log read twice, or read again after it grew; its requests would count twice');
    // two nodes' logs at one path and of one size are two inputs, not one read twice
    writeFileSync(join(dir, 'node-b', 'audit.log'), Buffer.from(log.subarray(200_000, 400_000)));
    writeFileSync(join(dir, 'node-a', 'audit.log'), log.subarray(0, 200_000));
    const [ra, rb] = await Promise.all([part('node-a', 'sa.part'), part('node-b', 'sb.part')]);
    expect([ra.code, rb.code]).toEqual([0, 0]);
    const both = await spawnCli(['merge', '-o', 'json', join(dir, 'sb.part'), join(dir, 'sa.part')]);
    expect(both.code, both.stderr).toBe(0);
    const names = (JSON.parse(both.stdout) as { inputs: Array<{ name: string; lines: number }> }).inputs;
    expect(names).toHaveLength(2);
  }, 60_000);
});

