// The kubectl plugin (issue 22): a global install (`npm i -g .`, into a temp prefix here) puts kubectl-audit_scan
// on PATH, and kubectl finds and runs it as `kubectl audit-scan`. Needs a kubectl: .ci/run installs Debian's
// (package kubernetes-client) when there is none; elsewhere the test is skipped without one.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support.js';

const found = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
const KUBECTL = process.env.KUBECTL ?? (found.status === 0 ? found.stdout.trim() : null);
if (KUBECTL === null && process.env.CI === 'true') throw new Error("kubectl is missing: .ci/run installs Debian's kubernetes-client");
const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

describe.skipIf(KUBECTL === null)('kubectl audit-scan', () => {
  const prefix = mkdtempSync(join(tmpdir(), 'audit-scan-global-'));
  // what `npm i -g .` does from a clone, without the network: links the package and its bin entries
  execFileSync('npm', ['install', '--global', '--prefix', prefix, ROOT, '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { stdio: 'ignore' });
  // the plugin's directory first; node for its #! line; kubectl's own directory last
  const PATH = [join(prefix, 'bin'), dirname(process.execPath), dirname(KUBECTL!), '/usr/bin', '/bin'].join(':');
  const home = mkdtempSync(join(tmpdir(), 'audit-scan-home-'));
  const kubectl = (...args: string[]) => spawnSync(KUBECTL!, args, { cwd: ROOT, encoding: 'utf8', env: { PATH, HOME: home, NO_COLOR: '1', TZ: 'UTC' } });

  it('npm links both bin entries', () => {
    expect(realpathSync(join(prefix, 'bin', 'kubectl-audit_scan'))).toBe(realpathSync(join(ROOT, 'bin', 'kubectl-audit_scan.js')));
    expect(realpathSync(join(prefix, 'bin', 'audit-scan'))).toBe(realpathSync(join(ROOT, 'bin', 'audit-scan.js')));
  });

  it('kubectl plugin list finds it', () => {
    const r = kubectl('plugin', 'list');
    expect(r.stdout.split('\n')).toContain(join(prefix, 'bin', 'kubectl-audit_scan'));
    expect(r.stderr).not.toContain('kubectl-audit_scan');
  });

  it('kubectl audit-scan --version prints the version', () => {
    const r = kubectl('audit-scan', '--version');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });

  it('says kubectl audit-scan in its help and hints, and scans the demo', () => {
    const help = kubectl('audit-scan', '--help');
    expect(help.stdout).toMatch(/^Usage: kubectl audit-scan \[options\] \[files\.\.\.\]/);
    const bad = kubectl('audit-scan', '--ouput', 'json');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe("audit-scan: unknown option '--ouput' (Did you mean --output?); see kubectl audit-scan --help\n");
    const r = kubectl('audit-scan', '-o', 'json', '-n', 'kube-node-lease', 'fixtures/demo');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).totals.filteredOut).toBeGreaterThan(0);
  });
});
