// What a user gets from `npx audit-scan`: the package holds what runs (no source maps of sources it does not
// ship), and DuckDB is an opt-in peer: a plain scan runs without it, and `load` says how to add it.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, spawnCli } from '../support.js';
import { DUCKDB_VERSION } from '../../src/store/duckdb.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe('the package', () => {
  it('ships bin, dist (no .map), the demo, the README and the LICENSE; nothing else', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
    const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => !/^(bin\/|dist\/|fixtures\/demo\/|README\.md$|LICENSE$|package\.json$)/.test(f))).toEqual([]);
    expect(files).toContain('LICENSE');
    expect(files).toContain('dist/decode/engine/engine-simd.wasm');
    expect(files).toContain('fixtures/demo/etcd-master-1.log');
  });

  it('DuckDB is an optional peer (not installed by npx) and a devDependency (installed by npm ci for the tests), one version', () => {
    expect(pkg.dependencies['@duckdb/node-api']).toBeUndefined();
    expect(pkg.optionalDependencies?.['@duckdb/node-api']).toBeUndefined();
    expect(pkg.peerDependencies['@duckdb/node-api']).toBe(DUCKDB_VERSION);
    expect(pkg.peerDependenciesMeta['@duckdb/node-api']).toEqual({ optional: true });
    expect(pkg.devDependencies['@duckdb/node-api']).toBe(DUCKDB_VERSION);
  });
});

describe('without DuckDB installed', () => {
  // an install of audit-scan as npx makes it: the package's files and its dependencies, no DuckDB
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-noduck-'));
  const app = join(dir, 'node_modules', 'audit-scan');
  mkdirSync(app, { recursive: true });
  for (const f of ['bin', 'dist', 'fixtures', 'package.json']) cpSync(join(ROOT, f), join(app, f), { recursive: true });
  for (const m of readdirSync(join(ROOT, 'node_modules'))) {
    if (m === '@duckdb' || m === '.bin' || m.startsWith('.')) continue;
    symlinkSync(join(ROOT, 'node_modules', m), join(dir, 'node_modules', m));
  }
  const bin = join(app, 'bin', 'audit-scan.js');

  it('a plain scan runs', async () => {
    const r = await spawnCli([join(app, 'fixtures', 'demo'), '-o', 'json'], null, { bin, cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).totals.requests).toBe(1608);
  });

  it('load exits 1 and says how to install it', async () => {
    const r = await spawnCli(['load', '--db', join(dir, 'x.duckdb'), join(app, 'fixtures', 'demo')], null, { bin, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the DuckDB store needs @duckdb/node-api@${DUCKDB_VERSION}, which is not installed`);
    // the one command that works from where it is installed (a project's node_modules here), not a global install of
    // a package that is not published
    expect(r.stderr).toContain(`audit-scan: from ${dir}/node_modules/audit-scan: cd ${dir} && npm install @duckdb/node-api@${DUCKDB_VERSION}\n`);
    expect(r.stderr).not.toContain('npm install -g audit-scan');
  });
});
