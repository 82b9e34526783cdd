// Issue 24: partial results across processes. Each `partial` runs as its own process; `merge -o json` over the
// parts must be byte-equal to `audit-scan -o json` over all the inputs, for any number of shards and any cut.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
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
