// `audit-scan completion bash|zsh|fish` (issue 22): the bash script is sourced in a real bash and asked for
// completions as readline would (COMP_WORDS, COMP_CWORD); zsh and fish, when installed, parse their scripts and
// fish answers `complete -C`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCAN_OPTIONS } from '../../src/cli/options.js';
import { runCli } from '../support.js';

const has = (shell: string): boolean => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
// .ci/run installs zsh and fish; elsewhere their tests are skipped
for (const shell of ['zsh', 'fish']) if (!has(shell) && process.env.CI === 'true') throw new Error(`${shell} is missing: .ci/run installs it`);

const script = async (shell: string): Promise<string> => {
  const r = await runCli(['completion', shell]);
  expect(r.code).toBe(0);
  return r.stdout;
};

// a folder with logs to complete
const dir = mkdtempSync(join(tmpdir(), 'audit-scan-complete-'));
mkdirSync(join(dir, 'logs'));
for (const f of ['logs/audit-a.log', 'logs/audit-b.log.gz', 'logs/etcd.log', 'notes.txt']) writeFileSync(join(dir, f), '');

describe('bash', () => {
  const bashFile = join(dir, 'audit-scan.bash');

  /** What bash offers for the words typed, the last one being completed. */
  const complete = (...words: string[]): string[] => {
    const out = execFileSync(
      'bash',
      ['--norc', '--noprofile', '-c', 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _audit_scan_complete; printf "%s\\n" "${COMPREPLY[@]}"', 'bash', bashFile, ...words],
      { cwd: dir, encoding: 'utf8' },
    );
    return out.split('\n').filter((l) => l !== '');
  };

  it('is registered for audit-scan and kubectl-audit_scan', async () => {
    writeFileSync(bashFile, await script('bash'));
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', 'source "$1"; complete -p audit-scan kubectl-audit_scan', 'bash', bashFile], { encoding: 'utf8' });
    expect(out).toContain('-F _audit_scan_complete audit-scan');
    expect(out).toContain('-F _audit_scan_complete kubectl-audit_scan');
  });

  it('completes subcommands and file names first', () => {
    expect(complete('audit-scan', 'l')).toEqual(['load', 'logs']);
    expect(complete('audit-scan', 'co')).toEqual(['completion']);
    expect(complete('audit-scan', 'logs/audit').sort()).toEqual(['logs/audit-a.log', 'logs/audit-b.log.gz']);
  });

  it('completes every option of the scan', () => {
    const all = complete('audit-scan', '-');
    for (const o of SCAN_OPTIONS) expect(all).toContain(/--[a-z-]+/.exec(o.flags)![0]);
    expect(all).toEqual(expect.arrayContaining(['-o', '-n', '-j', '-h', '--help', '-V', '--version']));
    expect(complete('audit-scan', 'logs/etcd.log', '--ou')).toEqual(['--output']);
    expect(complete('audit-scan', '--kube')).toEqual(['--kube-version']);
  });

  it('completes --output values, in either form, and other fixed sets', () => {
    expect(complete('audit-scan', '--output', '')).toEqual(['table', 'json', 'markdown', 'html']);
    expect(complete('audit-scan', '-o', 'm')).toEqual(['markdown']);
    expect(complete('audit-scan', '--output', '=', 'j')).toEqual(['json']);
    expect(complete('audit-scan', '--color', '')).toEqual(['auto', 'always', 'never']);
    expect(complete('audit-scan', '--engine', '')).toEqual(['wasm', 'js']);
    expect(complete('audit-scan', 'sql', '-o', '')).toEqual(['table', 'json', 'csv']);
    expect(complete('audit-scan', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });

  it('completes file names after options and for subcommands, directories for --apf-out, nothing for a number', () => {
    expect(complete('audit-scan', '-o', 'json', 'logs/e')).toEqual(['logs/etcd.log']);
    expect(complete('audit-scan', '--apf-out', '')).toEqual(['logs']);
    expect(complete('audit-scan', '--top', '')).toEqual([]);
    expect(complete('audit-scan', 'load', '--db', 'no')).toEqual(['notes.txt']);
    expect(complete('audit-scan', 'load', '--d')).toEqual(['--db']);
    expect(complete('audit-scan', 'export', '--')).toEqual(['--db', '--parquet', '--help']);
    expect(complete('audit-scan', 'scan', '--na')).toEqual([]); // scan --db reads no files: no filters
  });
});

describe.skipIf(!has('zsh'))('zsh', () => {
  it('parses, and defines _audit_scan for both names', async () => {
    const f = join(dir, '_audit-scan');
    writeFileSync(f, await script('zsh'));
    expect(spawnSync('zsh', ['-n', f]).status).toBe(0);
    const s = await script('zsh');
    expect(s.startsWith('#compdef audit-scan kubectl-audit_scan\n')).toBe(true);
    expect(s).toContain("'(-o --output)'{-o+,--output=}'[output format]:value:(table json markdown html)'");
    expect(s).toContain("'*'{-n+,--namespace=}");
  });
});

describe.skipIf(!has('fish'))('fish', () => {
  const fishComplete = (line: string): string[] => {
    const f = join(dir, 'audit-scan.fish');
    const out = execFileSync('fish', ['--no-config', '-c', `source ${f}; complete -C '${line}'`], { cwd: dir, encoding: 'utf8' });
    return out.split('\n').filter((l) => l !== '').map((l) => l.split('\t')[0]!);
  };

  it('completes options, --output values, subcommands and files', async () => {
    writeFileSync(join(dir, 'audit-scan.fish'), await script('fish'));
    expect(spawnSync('fish', ['--no-config', '-n', join(dir, 'audit-scan.fish')]).status).toBe(0);
    expect(fishComplete('audit-scan --outp')).toEqual(['--output']);
    expect(fishComplete('audit-scan -o ').sort()).toEqual(['html', 'json', 'markdown', 'table']);
    expect(fishComplete('audit-scan sql -o ').sort()).toEqual(['csv', 'json', 'table']);
    expect(fishComplete('audit-scan comp')).toEqual(['completion']);
    expect(fishComplete('audit-scan logs/audit-b')).toEqual(['logs/audit-b.log.gz']);
  });
});
