// The real CLI as a child process: help, exit codes, stdin, gzip, and a reader that goes away (EPIPE).
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BIN, ROOT, auditLine, runCli, spawnCli } from '../support.js';

describe('audit-scan as a process', () => {
  it('prints help with examples and exit codes, exit 0', async () => {
    const r = await spawnCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit status:');
    expect(r.stdout).toContain('kubectl logs');
  });

  it('prints its version', async () => {
    const r = await spawnCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).version);
  });

  it('exits 2 naming the flag on a usage error, before reading input', async () => {
    const r = await spawnCli(['--output', 'yaml', 'fixtures/demo']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--output');
    const t = await spawnCli(['--top', 'zero', 'fixtures/demo']);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('--top');
  });

  it('reports a missing file, scans the rest, exits 1', async () => {
    const r = await spawnCli(['-o', 'json', 'no-such.log', 'fixtures/audit/seed-vector-requestresponse.jsonl']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no-such.log: no such file or directory');
    expect(JSON.parse(r.stdout).totals.requests).toBe(8);
  });

  it('reads gzip on stdin with -', async () => {
    const gz = gzipSync(readFileSync(`${ROOT}/fixtures/audit/seed-vector-requestresponse.jsonl`));
    const r = await spawnCli(['-o', 'json', '-'], gz);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).inputs[0]).toMatchObject({ name: '(stdin)', gzip: true, auditEvents: 8 });
  });

  it('reads stdin when no file is given and stdin is a pipe', async () => {
    const r = await spawnCli(['-o', 'json'], readFileSync(`${ROOT}/fixtures/etcd/seed-slow-range.jsonl`));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).totals.etcdSlowRanges).toBe(8);
  });

  it('prints usage and exits 2 with no file and stdin on a terminal', async () => {
    const r = await runCli([], null, { stdinIsTTY: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('stdin is a terminal');
  });

  it('reports a corrupt gzip and exits 1, keeping what was read', async () => {
    const gz = gzipSync(readFileSync(`${ROOT}/fixtures/demo/apiserver-b-audit.log`));
    const r = await spawnCli(['-o', 'json', '-'], gz.subarray(0, Math.floor(gz.length / 2)));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\(stdin\): .*(unexpected end of file|corrupt)/);
    expect(JSON.parse(r.stdout).inputs[0].auditEvents).toBeGreaterThan(100);
  });

  it('a report many times a pipe\'s buffer, read slowly, arrives whole before the process leaves', async () => {
    // main() leaves a scan with process.exit() once its writes are done: nothing may be cut off. 3,000 clients
    // listing pods each with its own node selector: some 2 MB of JSON against a 64 KB pipe, the reader paused.
    const lines = Array.from({ length: 3000 }, (_, i) => auditLine({ auditID: `id-${i}`, userAgent: `agent-${i}/1.0`, user: { username: `system:serviceaccount:ns:sa-${i}` }, requestURI: `/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-${i}` })).join('\n') + '\n';
    const dir = mkdtempSync(join(tmpdir(), 'slow-reader-'));
    writeFileSync(join(dir, 'audit.log'), lines);
    const { code, out, err } = await new Promise<{ code: number | null; out: Buffer; err: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, '-o', 'json', '--top', '5000', join(dir, 'audit.log')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      const parts: Buffer[] = [];
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.stdout.pause();
      setTimeout(() => {
        child.stdout.on('data', (d: Buffer) => parts.push(d));
        child.stdout.resume();
      }, 700);
      child.on('close', (c) => resolve({ code: c, out: Buffer.concat(parts), err }));
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out.length).toBeGreaterThan(1 << 20);
    const report = JSON.parse(out.toString('utf8'));
    expect(report.inputs[0].auditEvents).toBe(3000);
    expect(report.listGroups.length).toBeGreaterThan(1000);
  });

  it('exits 0 quietly when the reader closes the pipe (| head)', async () => {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [BIN, '-o', 'json', 'fixtures/demo'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (c) => {
        expect(stderr).not.toContain('Error');
        resolve(c);
      });
    });
    expect(code).toBe(0);
  });
});

describe('interruptions and write errors', () => {
  it('SIGINT prints what was read so far and exits 130', async () => {
    const child = spawn(process.execPath, [BIN, '-o', 'json', '-'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const line = readFileSync(`${ROOT}/fixtures/audit/seed-vector-requestresponse.jsonl`, 'utf8');
    // keep stdin open: the scan is still reading when the signal comes
    child.stdin.write(line);
    await new Promise((r) => setTimeout(r, 700));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    const drained = new Promise((r) => child.stdout.on('end', r));
    child.stdin.on('error', () => {}); // the child stops reading at once: our end of the pipe may break
    child.kill('SIGINT');
    // The first Ctrl-C is enough: stdin is still open and silent, and the scan must not wait for it.
    const code = await exited;
    await drained;
    child.stdin.destroy();
    expect(code).toBe(130);
    expect(JSON.parse(stdout).totals.requests).toBe(8);
    expect(stderr).toContain('interrupted');
  });

  it('a write error on stdout (not EPIPE) exits 2 and claims no success', async () => {
    const { Writable, PassThrough } = await import('node:stream');
    const { run } = await import('../../src/cli/main.js');
    let err = '';
    const stdout = new Writable({ write: (_c, _e, cb) => cb(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })) });
    const stderr = new Writable({ write: (c, _e, cb) => ((err += c), cb()) });
    const stdin = new PassThrough();
    stdin.end();
    const code = await run(['fixtures/demo'], { stdin, stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, columns: undefined, env: {} });
    expect(code).toBe(2);
    expect(err).toContain('cannot write output: no space left on device');
  });
});
