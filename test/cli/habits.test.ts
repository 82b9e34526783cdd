// kubectl's and ripgrep's habits (issue 22): -n is --namespace, every diagnostic starts with "audit-scan:"
// (commander's own too) and the report does not, a bare command on a terminal prints a few lines of usage, and
// --interval 1 is one second.
import { describe, expect, it } from 'vitest';
import { PassThrough, Writable } from 'node:stream';
import { SCAN_OPTIONS } from '../../src/cli/options.js';
import { resolveConfig } from '../../src/cli/config.js';
import { commandNameOf, run } from '../../src/cli/main.js';
import { runCli, spawnCli } from '../support.js';

const env = { stdoutIsTTY: false, columns: undefined, env: {} };

describe('short flags', () => {
  // Each short flag means what kubectl and ripgrep mean by it, or one of them does and the other has nothing
  // better: -o kubectl --output (rg -o is --only-matching, which a report has no use for); -n kubectl
  // --namespace (rg -n is --line-number); -j rg --threads (kubectl has no -j); -V rg --version; -h both --help.
  // --top has none: kubectl has no such flag and rg's nearest, -m, is --max-count per file.
  it('are -o, -n, -j, -V and -h, and nothing else', async () => {
    const shorts = SCAN_OPTIONS.map((o) => /^(-[a-zA-Z]),/.exec(o.flags)?.[1]).filter((s) => s !== undefined);
    expect(shorts.sort()).toEqual(['-j', '-n', '-o']);
    const help = (await runCli(['--help'])).stdout;
    expect([...help.matchAll(/^ {2}(-[a-zA-Z]),/gm)].map((m) => m[1]).sort()).toEqual(['-V', '-h', '-j', '-n', '-o']);
  });

  it('-n is --namespace, as in kubectl, and --top is long only', async () => {
    const byShort = JSON.parse((await runCli(['-o', 'json', '-n', 'kube-node-lease', 'fixtures/demo'])).stdout);
    const byLong = JSON.parse((await runCli(['-o', 'json', '--namespace', 'kube-node-lease', 'fixtures/demo'])).stdout);
    const all = JSON.parse((await runCli(['-o', 'json', 'fixtures/demo'])).stdout);
    expect(byShort).toEqual(byLong);
    expect(byShort.totals.filteredOut).toBeGreaterThan(0);
    expect(byShort.totals.requests).toBeGreaterThan(0);
    expect(byShort.totals.requests).toBeLessThan(all.totals.requests);
    const top = JSON.parse((await runCli(['-o', 'json', '--top', '1', 'fixtures/demo'])).stdout);
    expect(top.listGroups).toHaveLength(1);
  });
});

describe('diagnostics start with "audit-scan:", the report does not', () => {
  it("commander's unknown option, with its suggestion, on one line", async () => {
    const r = await spawnCli(['--ouput', 'json', 'fixtures/demo']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("audit-scan: unknown option '--ouput' (Did you mean --output?); see audit-scan --help\n");
  });

  it("a store command's error points at that command's help", async () => {
    const r = await runCli(['sql', '--db', 'x.duckdb', '--outptu', 'json', 'SELECT 1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("audit-scan: unknown option '--outptu' (Did you mean --output?); see audit-scan sql --help\n");
  });

  it('a bad choice, a missing value, a store command without --db, a bad completion shell', async () => {
    for (const args of [['-o', 'yaml', 'x'], ['--top'], ['sql', 'SELECT 1'], ['load', '--bogus'], ['completion', 'tcsh'], ['--interval', 'soon', '--follow', 'x']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^audit-scan: /);
      expect(r.stderr.split('\n').filter((l) => l !== '').every((l) => l.startsWith('audit-scan: ')), r.stderr).toBe(true);
    }
  });

  it("every stderr line of a scan starts with it; the table's first line does not", async () => {
    const r = await spawnCli(['fixtures/demo', 'no-such.log']);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.filter((l) => !l.startsWith('audit-scan: '))).toEqual([]);
    expect(r.stdout.startsWith('audit-scan report: 3 inputs')).toBe(true);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('audit-scan:'))).toEqual([]);
  });
});

describe('a bare command on a terminal', () => {
  it('prints a few lines of usage and where the full help is, exit 2', async () => {
    const r = await runCli([], null, { stdinIsTTY: true });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('audit-scan: no input files and stdin is a terminal');
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(lines.at(-1)).toBe('Every option, examples and exit codes: audit-scan --help');
    expect(r.stderr).not.toContain('Exit status');
  });
});

describe('--interval and the other durations', () => {
  const follow = (interval: string) => resolveConfig(['-'], { follow: true, interval }, env).follow!.intervalMs;
  it('a bare number is seconds, as watch -n 1 takes it; units still work', () => {
    expect(follow('1')).toBe(1000);
    expect(follow('0.5')).toBe(500);
    expect(follow('500ms')).toBe(500);
    expect(follow('2s')).toBe(2000);
    expect(follow('1m')).toBe(60_000);
    expect(() => follow('0.05')).toThrow(/--interval/);
    expect(() => follow('soon')).toThrow(/--interval: expected a duration like 1 \(seconds\)/);
  });

  it('--window, --bucket and --gap take bare seconds too', () => {
    const c = resolveConfig(['-'], { follow: true, window: '120', bucket: '2', gap: '30' }, env);
    expect(c.follow!.windowMs).toBe(120_000);
    expect(c.time.bucketMs).toBe(2000);
    expect(c.time.gapMs).toBe(30_000);
  });
});

describe('as the kubectl plugin', () => {
  const sink = () => {
    const w = new Writable({ write: (c, _e, cb) => ((w as unknown as { text: string }).text += String(c), cb()) });
    (w as unknown as { text: string }).text = '';
    return w as Writable & { text: string };
  };
  const runAs = async (args: string[], stdinIsTTY = false) => {
    const stdout = sink();
    const stderr = sink();
    const stdin = new PassThrough();
    stdin.end();
    const code = await run(args, { stdin, stdout, stderr, stdinIsTTY, stdoutIsTTY: false, columns: undefined, env: { NO_COLOR: '1' }, commandName: 'kubectl audit-scan' });
    return { code, stdout: stdout.text, stderr: stderr.text };
  };

  it('is recognised by the name kubectl runs it as', () => {
    expect(commandNameOf(['/usr/bin/node', '/usr/local/bin/kubectl-audit_scan'])).toBe('kubectl audit-scan');
    expect(commandNameOf(['/usr/bin/node', '/usr/lib/node_modules/audit-scan/bin/kubectl-audit_scan.js'])).toBe('kubectl audit-scan');
    expect(commandNameOf(['/home/me/.krew/bin/kubectl-audit_scan', '/home/me/.krew/bin/kubectl-audit_scan'])).toBe('kubectl audit-scan');
    expect(commandNameOf(['/usr/bin/node', '/usr/local/bin/audit-scan'])).toBe('audit-scan');
    expect(commandNameOf(['/opt/audit-scan-linux-x64', '/opt/audit-scan-linux-x64'])).toBe('audit-scan');
  });

  it('help, usage and error hints say kubectl audit-scan', async () => {
    const help = await runAs(['--help']);
    expect(help.stdout).toMatch(/^Usage: kubectl audit-scan \[options\] \[files\.\.\.\]/);
    expect(help.stdout).toContain('\n  kubectl audit-scan -o json audit.log > scan.json');
    expect(help.stdout).toContain('| kubectl audit-scan - audit.log');
    expect(help.stdout).not.toMatch(/^ {2}audit-scan /m);
    const bare = await runAs([], true);
    expect(bare.stderr).toContain('Usage: kubectl audit-scan [options] [files...]');
    expect(bare.stderr).toContain('kubectl audit-scan --help');
    const bad = await runAs(['--ouput']);
    expect(bad.stderr).toBe("audit-scan: unknown option '--ouput' (Did you mean --output?); see kubectl audit-scan --help\n");
    const storeHelp = await runAs(['sql', '--help']);
    expect(storeHelp.stdout).toMatch(/^Usage: kubectl audit-scan sql/);
  });
});
