// --follow in real child processes on real files: appends of whole and half lines, rotation by rename and
// create, copytruncate, a file that appears late, stdin that ends, SIGINT and SIGTERM; the counts of the JSON line
// after each step, and a final report equal to a plain scan of everything written. Then the terminal view in a
// pseudo-terminal (script(1)), drawn within its width, and `q`.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditLine, BIN, ROOT, spawnCli } from './support.js';
import { vw } from '../src/render/layout.js';

const T = Date.UTC(2026, 10, 30, 12);
const iso = (ms: number) => new Date(ms).toISOString();
// one request every 100 ms, steady (no gap, no storm): vector lists pods by node without resourceVersion
const events = (from: number, n: number): string[] =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return auditLine({ auditID: `f${i}`, requestURI: `/api/v1/pods?fieldSelector=spec.nodeName%3Dn${i % 4}`, userAgent: 'vector/0.34.1', user: { username: 'system:serviceaccount:vector:vector' }, requestReceivedTimestamp: iso(T + i * 100), stageTimestamp: iso(T + i * 100 + 20) });
  });
const text = (ls: string[]): string => ls.map((l) => l + '\n').join('');

/** A running `audit-scan --follow`, with its JSON lines as they come. */
function follow(args: string[], stdin: 'pipe' | 'ignore' = 'ignore') {
  const child = spawn(process.execPath, [BIN, '--follow', '--interval', '150ms', '-o', 'json', ...args], { cwd: ROOT, stdio: [stdin, 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', TZ: 'UTC' } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const lines = () => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  /** waits until the latest JSON line satisfies `ok` (a fresh line: one printed after this call) */
  const until = async (ok: (r: any) => boolean, what: string): Promise<any> => {
    const seen = lines().length;
    for (let t = 0; t < 150; t++) {
      const ls = lines();
      if (ls.length > seen && ok(ls[ls.length - 1])) return ls[ls.length - 1];
      expect(err).not.toContain('Warning');
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(lines().at(-1)?.totals)}; stderr: ${err}`);
  };
  return { child: child as ChildProcess, lines, until, exited, stderr: () => err };
}

/** The report without what names the inputs (and the apiservers their names map to) or belongs to the live run. */
function comparable(r: any): any {
  const { inputs: _i, live: _l, tool: _t, apiservers: _a, ...rest } = r;
  const { apiservers: _m, ...method } = rest.method;
  return { ...rest, method };
}

describe('--follow on a file', () => {
  it('appends, half lines, rename rotation, copytruncate; SIGINT prints a final report equal to a plain scan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-follow-'));
    const p = join(dir, 'audit.log');
    const written: string[] = [];
    const write = (ls: string[]) => {
      appendFileSync(p, text(ls));
      written.push(...ls);
    };
    const f = follow([p]);
    // the file is not there yet: waited for
    await f.until((r) => r.totals.requests === 0, 'a first line while waiting');
    expect(f.stderr()).toContain(`${p}: not there yet; waiting for it`);
    write(events(0, 100));
    let r = await f.until((x) => x.totals.requests === 100, '100 requests');
    expect(r.live).toMatchObject({ final: false, readBytes: Buffer.byteLength(text(written)) });
    expect(r.live.window).toMatchObject({ seconds: 300, requests: 100 });
    // a half line is held until its end comes
    const next = events(100, 51);
    appendFileSync(p, text(next.slice(0, 50)) + next[50]!.slice(0, 77));
    r = await f.until((x) => x.live.readBytes === Buffer.byteLength(text([...written, ...next.slice(0, 50)])) + 77, 'the half line read');
    expect(r.totals.requests).toBe(150);
    expect(r.inputs[0].skippedLines).toBe(0);
    appendFileSync(p, next[50]!.slice(77) + '\n');
    written.push(...next);
    r = await f.until((x) => x.totals.requests === 151, 'the line completed');
    expect(r.inputs[0]).toMatchObject({ lines: 151, auditEvents: 151, skippedLines: 0 });
    // rename and create (logrotate): lines written just before the rename are read from the old file
    write(events(151, 9));
    renameSync(p, p + '.1');
    write(events(160, 40));
    r = await f.until((x) => x.totals.requests === 200, '200 requests after the rotation');
    expect(f.stderr()).toContain(`${p}: rotated`);
    // copytruncate: the file is copied, emptied in place and written again from its start
    copyFileSync(p, p + '.2');
    truncateSync(p, 0);
    await new Promise((res) => setTimeout(res, 600));
    write(events(200, 30));
    r = await f.until((x) => x.totals.requests === 230, '230 requests after copytruncate');
    expect(f.stderr()).toContain(`${p}: shrank below`);
    expect(r.inputs[0]).toMatchObject({ lines: 230, auditEvents: 230 });
    f.child.kill('SIGINT');
    expect(await f.exited).toBe(0);
    const final = f.lines().at(-1);
    expect(final.live.final).toBe(true);
    const plain = await spawnCli(['-o', 'json', '-'], text(written));
    expect(comparable(final)).toEqual(comparable(JSON.parse(plain.stdout)));
    expect(final.totals.requests).toBe(230);
    expect(final.listGroups[0]).toMatchObject({ userAgent: 'vector/0.34.1', requests: 230, servedFrom: { etcd: 230 } });
  }, 60_000);

  it('a half line at the moment of SIGTERM is the truncated last line a plain scan counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-follow-'));
    const p = join(dir, 'audit.log');
    const all = events(0, 20);
    writeFileSync(p, text(all.slice(0, 19)) + all[19]!.slice(0, 50));
    const f = follow([p]);
    await f.until((x) => x.totals.requests === 19, '19 requests');
    f.child.kill('SIGTERM');
    expect(await f.exited).toBe(0);
    const final = f.lines().at(-1);
    expect(final.live.final).toBe(true);
    expect(final.inputs[0]).toMatchObject({ lines: 20, auditEvents: 19, skippedLines: 1, skipReasons: { 'truncated last line': 1 } });
    const plain = JSON.parse((await spawnCli(['-o', 'json', p])).stdout);
    expect(comparable(final)).toEqual(comparable(plain));
  }, 30_000);
});

describe('--follow on the apiserver\'s own log', () => {
  it('a trace block appended in two writes is one request with its httplog line; the final report equals a plain scan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-follow-'));
    const p = join(dir, 'kube-apiserver.log');
    const seed = readFileSync(join(ROOT, 'fixtures/apiserver-log/seed/apiserver-1.28-v3.log'), 'utf8').split('\n');
    // cut inside the first trace block: its header and first step in one write, the rest in the next
    const cut = seed.findIndex((l) => l.includes('trace.go:')) + 2;
    writeFileSync(p, seed.slice(0, cut).join('\n') + '\n');
    const f = follow(['--syslog-year', '2026', p]);
    await f.until((r) => r.totals.requests > 0, 'the first requests');
    appendFileSync(p, seed.slice(cut).join('\n'));
    const r = await f.until((x) => x.totals.requests === 93, 'all 93 requests');
    expect(r.inputs[0].skippedLines).toBe(0);
    f.child.kill('SIGINT');
    expect(await f.exited).toBe(0);
    const final = f.lines().at(-1);
    const plain = await spawnCli(['-o', 'json', '--syslog-year', '2026', p]);
    expect(comparable(final)).toEqual(comparable(JSON.parse(plain.stdout)));
    expect(final.findings[0].summary).toContain('; apiserver started (its log: "Serving securely")');
    expect(final.apiserverLog.inputs[0].requests).toEqual({ httplog: 93, traceOnly: 0, timeoutOnly: 0, joined: 17 });
  }, 60_000);
});

describe('--follow keeps the scan’s options', () => {
  it('filters, --top and --apf-out work as in a plain scan of the same bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-follow-'));
    const p = join(dir, 'audit.log');
    const others = Array.from({ length: 40 }, (_, i) => auditLine({ auditID: `o${i}`, userAgent: 'other/1', user: { username: 'alice' }, requestReceivedTimestamp: iso(T + i * 100), stageTimestamp: iso(T + i * 100 + 5) }));
    writeFileSync(p, text([...events(0, 60), ...others]));
    const flags = ['--user', 'system:serviceaccount:*', '--top', '1'];
    const f = follow([...flags, '--apf-out', join(dir, 'apf-live'), p]);
    await f.until((x) => x.totals.requests === 60, 'the filtered requests');
    f.child.kill('SIGINT');
    expect(await f.exited).toBe(0);
    const final = f.lines().at(-1);
    const plain = await spawnCli(['-o', 'json', ...flags, '--apf-out', join(dir, 'apf-plain'), p]);
    expect(comparable(final)).toEqual(comparable(JSON.parse(plain.stdout)));
    expect(final.totals.filteredOut).toBe(40);
    expect(final.listGroups).toHaveLength(1);
    expect(f.stderr()).toContain(`--apf-out: no finding calls for APF manifests; nothing written to ${join(dir, 'apf-live')}`);
  }, 30_000);
});

describe('--follow across the parts of a split line', () => {
  it('a containerd P part read before its F part is joined, not cut at a tick; two inputs at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-follow-'));
    const cri = join(dir, 'kube-apiserver.log');
    const other = join(dir, 'audit.log');
    const ev = events(0, 3);
    const cut = 90;
    writeFileSync(cri, `2026-11-30T12:00:00.000000000Z stdout F ${ev[0]}\n2026-11-30T12:00:00.100000000Z stdout P ${ev[1]!.slice(0, cut)}\n`);
    writeFileSync(other, text(events(100, 5)));
    const f = follow([cri, other]);
    // while the P part waits for its end, that input's segment is not cut: its reads wait with it
    let r = await f.until((x) => x.totals.requests === 5, 'the other input');
    r = await f.until(() => true, 'another tick');
    expect(r.totals.requests).toBe(5);
    appendFileSync(cri, `2026-11-30T12:00:00.100000000Z stdout F ${ev[1]!.slice(cut)}\n2026-11-30T12:00:00.200000000Z stdout F ${ev[2]}\n`);
    r = await f.until((x) => x.totals.requests === 8, 'the joined line and the next');
    expect(r.inputs.map((i: any) => [i.name, i.auditEvents, i.skippedLines])).toEqual([
      [cri, 3, 0],
      [other, 5, 0],
    ]);
    f.child.kill('SIGINT');
    expect(await f.exited).toBe(0);
    const plain = JSON.parse((await spawnCli(['-o', 'json', cri, other])).stdout);
    expect(comparable(f.lines().at(-1))).toEqual(comparable(plain));
  }, 30_000);
});

describe('--follow -', () => {
  it('reads stdin until it ends, then prints the final report and exits 0', async () => {
    const f = follow(['-'], 'pipe');
    f.child.stdin!.write(text(events(0, 40)));
    await f.until((x) => x.totals.requests === 40, '40 requests from stdin');
    f.child.stdin!.end(text(events(40, 10)));
    expect(await f.exited).toBe(0);
    const final = f.lines().at(-1);
    expect(final.live.final).toBe(true);
    expect(final.totals.requests).toBe(50);
    expect(final.inputs[0].name).toBe('(stdin)');
  }, 30_000);

  it('a gzip file is read once, not followed; with nothing left to follow, the final report comes at once', async () => {
    const f = follow(['fixtures/demo/apiserver-a-audit.log.gz']);
    expect(await f.exited).toBe(0);
    expect(f.stderr()).toContain('fixtures/demo/apiserver-a-audit.log.gz: read once, not followed (gzip)');
    const final = f.lines().at(-1);
    expect(final.live.final).toBe(true);
    const plain = JSON.parse((await spawnCli(['-o', 'json', 'fixtures/demo/apiserver-a-audit.log.gz'])).stdout);
    expect(comparable(final)).toEqual(comparable(plain));
  }, 30_000);
});

describe('--follow over days', () => {
  it('memory follows the groups, not the days: 10 days (90 MB) stream through a 64 MB heap, and the window slides', async () => {
    // one request every 4 s from 6 clients, ending a day before now, as a piped stream (kubectl logs -f) that ends
    const n = (10 * 86_400) / 4;
    const start = Math.floor((Date.now() - 11 * 86_400_000) / 60_000) * 60_000; // whole minutes: the window holds whole spacings
    const log =
      Array.from({ length: n }, (_, i) =>
        auditLine({ auditID: `d${i}`, userAgent: `agent-${i % 6}/1.0`, user: { username: `system:serviceaccount:ops:agent-${i % 6}` }, requestReceivedTimestamp: iso(start + i * 4000), stageTimestamp: iso(start + i * 4000 + 30) }),
      ).join('\n') + '\n';
    expect(log.length).toBeGreaterThan(85e6);
    // a heap smaller than the log: holding its lines, or anything per request, would run out of memory
    const r = await spawnCli(['--follow', '--interval', '500ms', '-o', 'json', '-'], log, { nodeArgs: ['--max-old-space-size=64'] });
    expect(r.code).toBe(0);
    const reports = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const final = reports.at(-1);
    expect(final.totals.requests).toBe(n);
    expect(final.inputs[0].implausibleTimes).toBe(0);
    // the last 5 minutes of log time hold 75 requests, however long the run (to within the width of the
    // series' buckets, which coarsen over days: a cut bucket counts by the share of it inside the window)
    expect(final.live.window).toMatchObject({ seconds: 300 });
    expect(Math.abs(final.live.window.perSecond - 0.25)).toBeLessThanOrEqual(0.01);
    expect(Math.abs(final.live.window.requests - 75)).toBeLessThanOrEqual(1);
    // each client's share, from its own series: coarser over 10 days, so cut buckets count by their share
    const top = final.live.window.top.map((t: any) => t.requests);
    expect(top).toHaveLength(6);
    for (const x of top) expect(Math.abs(x - 12.5)).toBeLessThanOrEqual(1);
    expect(Math.abs(final.live.window.etcdRequests - 75)).toBeLessThanOrEqual(3);
  }, 120_000);
});

describe('the live view in a pseudo-terminal', () => {
  it('redraws within 100 columns and 30 rows, names the top client, and q prints the final table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-follow-'));
    const p = join(dir, 'audit.log');
    writeFileSync(p, text(events(0, 300)));
    // script(1) gives audit-scan a terminal; stty sets its size
    const cmd = `stty cols 100 rows 30; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} --follow --interval 200ms ${JSON.stringify(p)}`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', TZ: 'UTC', SHELL: '/bin/sh', TERM: 'xterm' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    for (let t = 0; t < 100 && !out.includes('Findings so far'); t++) await new Promise((r) => setTimeout(r, 100));
    appendFileSync(p, text(events(300, 100)));
    await new Promise((r) => setTimeout(r, 800));
    child.stdin.write('q');
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('timeout'), 10_000))]);
    if (code === 'timeout') child.kill('SIGKILL');
    expect(code).toBe(0);
    // the frames: each starts at the cursor's home; the last whole one before the alternate screen is left
    const screen = out.slice(out.indexOf('\x1b[?1049h'), out.indexOf('\x1b[?1049l'));
    const frames = screen.split('\x1b[H').slice(1);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    const plainText = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
    const last = plainText(frames.at(-1)!).split('\n');
    expect(last.length).toBeLessThanOrEqual(30);
    expect(last.filter((l) => vw(l) > 100)).toEqual([]);
    expect(last[0]).toMatch(/^audit-scan --follow · log time 12:00:40 UTC · 1 input/); // the end of the last request's second
    // 400 requests in the 40 s the log covers of the 5 min window: 10/s, as in the last 10 s (one every 100 ms);
    // over the whole window it would read 1.33/s, as if the log's quiet start were a quiet apiserver (issue 21)
    expect(last[1]).toMatch(/^Now 10 requests\/s \(last 10 s\); over the window 10\/s \(the log covers 40 s of it\), 400 requests, 100%/);
    expect(last.join('\n')).toMatch(/\nvector +sa:vector:vector +list +pods +spec\.nodeName=<node> +400 +10 +etcd\n/);
    expect(last.join('\n')).toContain('MEDIUM vector: 400 pod lists from etcd → Send resourceVersion=0');
    // after q: the final table on the normal screen
    const after = plainText(out.slice(out.indexOf('\x1b[?1049l')));
    expect(after).toContain('List groups (worst first, 1 of 1)');
  }, 30_000);

  it('with the log on stdin (kubectl logs -f | audit-scan --follow -), keys come from the terminal: q quits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-follow-'));
    const p = join(dir, 'audit.log');
    writeFileSync(p, text(events(0, 50)));
    // the log arrives on a pipe that stays open (as kubectl logs -f does); q reaches audit-scan through /dev/tty
    const cmd = `stty cols 90 rows 25; (cat ${JSON.stringify(p)}; sleep 60) | ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} --follow --interval 200ms -`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', TZ: 'UTC', SHELL: '/bin/sh', TERM: 'xterm' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      for (let t = 0; t < 100 && !out.includes('Findings so far'); t++) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain('Findings so far');
      child.stdin.write('q');
      for (let t = 0; t < 100 && !out.includes('List groups ('); t++) await new Promise((r) => setTimeout(r, 100));
      // it left the live view and printed the final table, with the 50 requests read
      const after = out.slice(out.indexOf('\x1b[?1049l')).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      expect(after).toContain('List groups (worst first, 1 of 1)');
      expect(after).toMatch(/1 input, 50 lines, 50 audit events \(50 requests\)/);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
