// The DuckDB hint (issue 22): when the store commands cannot load @duckdb/node-api, stderr names a command that
// installs it where this audit-scan can import it: in the clone, in the project, globally, or through npx.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeInstall, findInstall, installCommandFor } from '../../src/cli/install.js';
import { DUCKDB_VERSION } from '../../src/store/duckdb.js';
import { ROOT, spawnCli } from '../support.js';

const pkg = `@duckdb/node-api@${DUCKDB_VERSION}`;

describe('where audit-scan is installed', () => {
  it('from the sources it is a clone, and npm ci there installs DuckDB (a devDependency)', () => {
    const at = findInstall();
    expect(at).toEqual({ kind: 'clone', root: realpathSync(ROOT).replace(/\/$/, '') });
    expect(installCommandFor(pkg, at)).toBe(`cd ${realpathSync(ROOT).replace(/\/$/, '')} && npm ci`);
  });

  it('names the command for each kind of install', () => {
    expect(installCommandFor(pkg, { kind: 'global', root: '/usr/local/lib/node_modules/audit-scan' })).toBe(`npm install -g ${pkg}`);
    expect(installCommandFor(pkg, { kind: 'project', root: '/srv/tools/node_modules/audit-scan', project: '/srv/tools' })).toBe(`cd /srv/tools && npm install ${pkg}`);
    expect(installCommandFor(pkg, { kind: 'npx', root: '/root/.npm/_npx/1a2b/node_modules/audit-scan' })).toBe(`npx -p audit-scan -p ${pkg} audit-scan …`);
    expect(installCommandFor(pkg, { kind: 'binary' })).toMatch(/^the single-file binary cannot load native modules/);
    expect(describeInstall({ kind: 'global', root: '/usr/local/lib/node_modules/audit-scan' })).toBe('a global install in /usr/local/lib/node_modules/audit-scan');
  });
});

describe('installed in a project without DuckDB', () => {
  // <dir>/node_modules/audit-scan with its dependencies and no @duckdb, as `npm install ./audit-scan-<v>.tgz` makes
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'audit-scan-project-')));
  const app = join(dir, 'node_modules', 'audit-scan');
  mkdirSync(app, { recursive: true });
  for (const f of ['bin', 'dist', 'fixtures', 'package.json']) cpSync(join(ROOT, f), join(app, f), { recursive: true });
  for (const m of readdirSync(join(ROOT, 'node_modules'))) {
    if (m === '@duckdb' || m.startsWith('.')) continue;
    symlinkSync(join(ROOT, 'node_modules', m), join(dir, 'node_modules', m));
  }

  it('load says to install DuckDB into that project', async () => {
    const r = await spawnCli(['load', '--db', join(dir, 'x.duckdb'), join(app, 'fixtures', 'demo')], null, { bin: join(app, 'bin', 'audit-scan.js'), cwd: dir });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^audit-scan: the DuckDB store needs @duckdb\/node-api@[\d.]+-r\.\d+, which is not installed/);
    expect(lines[1]).toBe(`audit-scan: from ${app}: cd ${dir} && npm install ${pkg}`);
  });
});
