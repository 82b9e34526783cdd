// Issue 24: the Parquet `export` writes is read by a second SQL engine, ClickHouse (through chdb from npm,
// installed by this test into a scratch folder, never a dependency of audit-scan), and gives the same list-group
// rows as DuckDB from one query both accept; the hive partitions date=YYYY-MM-DD/hour=HH are read as strings.
// Skipped when chdb cannot be installed (no registry), except in CI (CI=true), where it must run.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './support.js';

const CHDB = 'chdb@3.4.0';
// Reused between runs: the package and its library are about 550 MB.
const SCRATCH = join(tmpdir(), `audit-scan-${CHDB.replace('@', '-')}`);

function installChdb(): boolean {
  if (existsSync(join(SCRATCH, 'node_modules/chdb/package.json'))) return true;
  mkdirSync(SCRATCH, { recursive: true });
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--prefix', SCRATCH, CHDB], { stdio: 'ignore', timeout: 240_000 });
  return r.status === 0 && existsSync(join(SCRATCH, 'node_modules/chdb/package.json'));
}

const hasDuckDb = existsSync(join(process.cwd(), 'node_modules/@duckdb/node-api'));
const inCi = process.env.CI === 'true';

/** The list groups of the store's `list_groups` view, in SQL DuckDB and ClickHouse both accept; SRC is the
 * engine's way to name the Parquet files. */
const QUERY = `SELECT user_agent, user_pattern AS user_pat, api_group, resource, resource_key,
  CASE WHEN namespace = '' THEN 'cluster' ELSE 'namespaced' END AS scope, selector_shape AS selector,
  count(*) AS requests, count(DISTINCT node) AS nodes,
  sum(CASE WHEN resource_version IS NULL AND NOT has_continue THEN 1 ELSE 0 END) AS without_rv,
  sum(CASE WHEN served_from = 'etcd' THEN 1 ELSE 0 END) AS etcd,
  sum(CASE WHEN served_from = 'cache' THEN 1 ELSE 0 END) AS cache,
  min(concat("date", ' ', "hour")) AS first_hour, max(concat("date", ' ', "hour")) AS last_hour
FROM SRC
WHERE verb = 'list'
GROUP BY user_agent, user_pattern, api_group, resource, resource_key, CASE WHEN namespace = '' THEN 'cluster' ELSE 'namespaced' END, selector_shape
ORDER BY requests DESC, user_agent, user_pat, resource, selector`;

/** Rows as strings (engines print 64-bit counts as numbers or quoted), nulls kept. */
const norm = (rows: Array<Record<string, unknown>>): Array<Record<string, string | null>> => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])));

describe.skipIf(!hasDuckDb)('Parquet export read by ClickHouse (chdb)', () => {
  it('gives the same list-group rows as DuckDB, with the date and hour partitions as strings', async (ctx) => {
    if (!installChdb()) {
      if (inCi) throw new Error(`npm install ${CHDB} failed in ${SCRATCH}`);
      ctx.skip();
    }
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-chdb-'));
    const db = join(dir, 'demo.duckdb');
    const out = join(dir, 'pq');
    expect((await runCli(['load', '--db', db, 'fixtures/demo'])).code).toBe(0);
    expect((await runCli(['export', '--db', db, '--parquet', out])).code).toBe(0);
    expect(existsSync(join(out, 'requests', 'date=2026-11-30', 'hour=10'))).toBe(true);
    const glob = `${out}/requests/*/*/*.parquet`;
    const duck = await runCli(['sql', '--db', db, '-o', 'json', QUERY.replace('SRC', `read_parquet('${glob}', hive_partitioning = true, hive_types_autocast = false)`)]);
    expect(duck.code, duck.stderr).toBe(0);
    const script = `const { query } = require('chdb'); process.stdout.write(query(${JSON.stringify(QUERY.replace('SRC', `file('${glob}', Parquet)`) + ' SETTINGS use_hive_partitioning = 1')}, 'JSON'));`;
    const ch = spawnSync(process.execPath, ['-e', script], { cwd: SCRATCH, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
    expect(ch.status, ch.stderr).toBe(0);
    const chJson = JSON.parse(ch.stdout) as { data: Array<Record<string, unknown>>; meta: Array<{ name: string; type: string }> };
    // the partition columns come back as strings (no type guessed from "10")
    const duckRows = norm(JSON.parse(duck.stdout) as Array<Record<string, unknown>>);
    expect(duckRows.length).toBeGreaterThan(0);
    expect(norm(chJson.data)).toEqual(duckRows);
    expect(duckRows[0]!.first_hour).toMatch(/^2026-11-30 \d\d$/);
  }, 300_000);
});
