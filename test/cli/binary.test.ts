// The single-file executable (issue 22): `npm run build:binary` (scripts/build-binary.mjs) makes a binary that,
// copied alone into an empty folder, prints what `node bin/audit-scan.js` prints, byte for byte: the compiled
// engine and the scan workers come from its own assets. Built once here, in a temp folder (about 5–30 s).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnCli } from '../support.js';

const NAME = `audit-scan-${process.platform}-${process.arch}`;
const tmp = mkdtempSync(join(tmpdir(), 'audit-scan-binary-'));
const alone = join(tmp, 'alone');
const exe = join(alone, NAME);
const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

/** Runs the binary (cwd: the repository, so input paths read the same as for node). */
function runBinary(args: string[], env: Record<string, string> = {}, bin = exe): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: ROOT, env: { PATH: '/usr/bin:/bin', NO_COLOR: '1', TZ: 'UTC', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  // dist/ is built by pretest (npm test) or by hand; the script refuses to run without it
  const built = execFileSync(process.execPath, [join(ROOT, 'scripts/build-binary.mjs'), '--out', join(tmp, 'out')], { cwd: ROOT, encoding: 'utf8' }).trim();
  expect(built).toBe(join(tmp, 'out', NAME));
  mkdirSync(alone);
  copyFileSync(built, exe);
  execFileSync('chmod', ['+x', exe]);
}, 300_000);

describe('the single-file binary', () => {
  it('is one file, of a size the README states (80–100 MB)', () => {
    const mb = statSync(exe).size / 1e6;
    expect(mb).toBeGreaterThan(50);
    expect(mb).toBeLessThan(110);
  });

  it('prints its version', async () => {
    const r = await runBinary(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  for (const args of [['fixtures/demo'], ['-o', 'json', 'fixtures/demo'], ['-o', 'markdown', 'fixtures/demo'], ['-o', 'html', 'fixtures/demo']]) {
    it(`${args.join(' ')}: the same bytes as node bin/audit-scan.js, on stdout and stderr`, async () => {
      const [bin, node] = await Promise.all([runBinary(args), spawnCli(args)]);
      expect(bin.code).toBe(0);
      expect(bin.stderr).toBe(node.stderr);
      expect(bin.stdout.length).toBeGreaterThan(1000);
      expect(bin.stdout === node.stdout).toBe(true);
    });
  }

  it('splits work across worker threads (the worker is an asset too), with the same answer', async () => {
    const args = ['-o', 'json', '-j', '2', '--engine', 'wasm', 'fixtures/demo'];
    const env = { AUDIT_SCAN_MIN_SPLIT_BYTES: '4096' };
    const [bin, node] = await Promise.all([runBinary(args, env), spawnCli(args, null, { env })]);
    expect(bin.stderr).toBe(node.stderr);
    expect(bin.stderr).not.toContain('engine');
    expect(bin.stdout === node.stdout).toBe(true);
  });

  it('inflates gzip on a thread of its own (evaluated, no file to find), with the same answer', async () => {
    const args = ['-o', 'json', 'fixtures/demo'];
    const env = { AUDIT_SCAN_INFLATE_MIN_BYTES: '0' };
    const [bin, node] = await Promise.all([runBinary(args, env), spawnCli(args)]);
    expect(bin.code).toBe(0);
    expect(bin.stderr).toBe(node.stderr);
    expect(bin.stdout === node.stdout).toBe(true);
  });

  it('says that the DuckDB store is not in it, exit 1', async () => {
    const r = await runBinary(['load', '--db', join(tmp, 'x.duckdb'), 'fixtures/demo']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^audit-scan: load: the single-file binary has no DuckDB, which load, sql, export and scan --db need \(a scan of log files does not\)\. Install audit-scan with npm \(README "Install"\), then @duckdb\/node-api@\S+ next to it\n$/);
  });

  it('is the kubectl plugin under the name krew links it as', async () => {
    const plugin = join(tmp, 'kubectl-audit_scan');
    symlinkSync(exe, plugin);
    const r = await runBinary(['--help'], {}, plugin);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: kubectl audit-scan \[options\]/);
    // the help names no demo folder that the binary does not have
    expect(r.stdout).not.toContain('fixtures/demo');
  });
});

describe('the release (scripts/release.sh)', () => {
  it('packs the binary for krew and fills the manifest with its sha256', () => {
    const out = join(tmp, 'release');
    const printed = execFileSync('bash', [join(ROOT, 'scripts/release.sh')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, AUDIT_SCAN_BINARY: exe, RELEASE_DIR: out, RELEASE_URL_BASE: 'https://downloads.example.com/audit-scan/v' + version },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const archive = join(out, `audit-scan-v${version}-linux-amd64.tar.gz`);
    expect(printed.split('\n').filter((l) => l !== '')).toEqual([archive, join(out, `audit-scan-${version}.tgz`), join(out, 'SHA256SUMS'), join(out, 'audit-scan.yaml')]);
    const sha = createHash('sha256').update(readFileSync(archive)).digest('hex');
    const manifest = readFileSync(join(out, 'audit-scan.yaml'), 'utf8');
    expect(manifest).toContain(`  version: v${version}\n`);
    expect(manifest).toContain(`uri: https://downloads.example.com/audit-scan/v${version}/audit-scan-v${version}-linux-amd64.tar.gz\n`);
    expect(manifest).toContain(`sha256: ${sha}\n`);
    expect(manifest).toContain('bin: audit-scan-linux-x64\n');
    expect(manifest).not.toMatch(/@[A-Z0-9_]+@/);
    expect(readFileSync(join(out, 'SHA256SUMS'), 'utf8')).toContain(`${sha}  audit-scan-v${version}-linux-amd64.tar.gz`);
    // what krew unpacks: the binary (it runs) and the README
    const unpacked = join(tmp, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', archive, '-C', unpacked]);
    expect(execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' })).toBe('LICENSE\naudit-scan-linux-x64\nREADME.md\n');
    expect(execFileSync(join(unpacked, 'audit-scan-linux-x64'), ['--version'], { encoding: 'utf8' })).toBe(`${version}\n`);
  }, 120_000);
});
