// The DuckDB store (issue 6), against real DuckDB files: no mocks. SQL answers must equal the streaming scan's.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, auditLine, runCli } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-scan-store-'));
let n = 0;
const db = () => join(dir, `t${++n}.duckdb`);

async function sql(file: string, q: string): Promise<Array<Record<string, unknown>>> {
  const r = await runCli(['sql', '--db', file, '-o', 'json', q]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe('load + sql', () => {
  it('gives the same list groups, rv flags and verdicts as the streaming scan', async () => {
    const f = db();
    const l = await runCli(['load', '--db', f, 'fixtures/demo']);
    expect(l.code).toBe(0);
    expect(l.stderr).toContain('loaded 807 requests');
    const scan = JSON.parse((await runCli(['-o', 'json', '--top', '100', 'fixtures/demo'])).stdout);
    const rows = await sql(f, 'SELECT user_agent, username, resource, selector, requests, nodes, without_rv, etcd, cache FROM list_groups');
    const fromScan = scan.listGroups.map((g: any) => ({ user_agent: g.userAgent, username: g.username, resource: g.resource, selector: g.selector, requests: g.requests, nodes: g.nodes, without_rv: g.withoutResourceVersion, etcd: g.servedFrom.etcd, cache: g.servedFrom.cache }));
    const key = (x: any) => `${x.user_agent}|${x.username}|${x.resource}|${x.selector}`;
    expect(rows.sort((a, b) => (key(a) < key(b) ? -1 : 1))).toEqual(fromScan.sort((a: any, b: any) => (key(a) < key(b) ? -1 : 1)));
    const [{ n: total }] = (await sql(f, 'SELECT count(*) AS n FROM requests')) as any;
    expect(total).toBe(scan.totals.requests);
    const [amp] = await sql(f, "SELECT amplification, objects_per_read, returned, estimated FROM amplification WHERE user_agent LIKE 'vector/%'");
    expect(amp).toEqual({ amplification: 65, objects_per_read: 7130, returned: 109.7, estimated: true });
  });

  it("keeps what the apiserver's own log says: its version, APF flow schemas, traces; scan --db equals the scan", async () => {
    const f = db();
    const log = 'fixtures/apiserver-log/seed/apiserver-1.28-v3.log';
    const l = await runCli(['load', '--db', f, log]);
    expect(l.code).toBe(0);
    expect(l.stderr).toContain("served-from verdicts for Kubernetes 1.28.3 (from the apiserver's own log: its Version line v1.28.3)");
    expect(await sql(f, "SELECT source, apf_flow_schema, count(*) AS n, count(*) FILTER (WHERE traced) AS traced, count(*) FILTER (WHERE observed_etcd) AS etcd FROM requests WHERE user_agent LIKE 'vector/%' GROUP BY ALL")).toEqual([{ source: 'httplog', apf_flow_schema: 'service-accounts', n: 40, traced: 16, etcd: 16 }]);
    const pick = (r: any) => ({ totals: r.totals, kubernetes: r.kubernetes.version, groups: r.listGroups.map((g: any) => ({ ua: g.userAgent, requests: g.requests, servedFrom: g.servedFrom, returned: g.objectsReturnedPerRequest, log: g.apiserverLog })), log: r.apiserverLog.inputs[0].requests });
    const fromDb = JSON.parse((await runCli(['scan', '--db', f, '-o', 'json'])).stdout);
    const direct = JSON.parse((await runCli(['-o', 'json', log])).stdout);
    expect(pick(fromDb)).toEqual(pick(direct));
  });

  it('measures the seed case in SQL: 7130 / 110 = 64.8×', async () => {
    const f = db();
    await runCli(['load', '--db', f, 'fixtures/audit/seed-vector-requestresponse.jsonl', 'fixtures/etcd/seed-slow-range.jsonl']);
    expect(await sql(f, 'SELECT requests, objects_per_read, returned, estimated, amplification FROM amplification')).toEqual([{ requests: 8, objects_per_read: 7130, returned: 110, estimated: false, amplification: 64.8 }]);
  });

  it('scan --db gives the streaming scan’s analysis', async () => {
    const f = db();
    await runCli(['load', '--db', f, 'fixtures/demo']);
    const a = JSON.parse((await runCli(['scan', '--db', f, '-o', 'json'])).stdout);
    const b = JSON.parse((await runCli(['-o', 'json', 'fixtures/demo'])).stdout);
    expect(a.listGroups).toEqual(b.listGroups);
    expect(a.getGroups).toEqual(b.getGroups);
    expect(a.etcdRanges).toEqual(b.etcdRanges);
    expect(a.totals.requests).toBe(b.totals.requests);
  });

  it('csv and table outputs', async () => {
    const f = db();
    await runCli(['load', '--db', f, 'fixtures/audit/seed-vector-requestresponse.jsonl']);
    const c = await runCli(['sql', '--db', f, '-o', 'csv', 'SELECT verb, count(*) AS n FROM requests GROUP BY 1']);
    expect(c.stdout).toBe('verb,n\nlist,8\n');
    const t = await runCli(['sql', '--db', f, 'SELECT 1 AS one']);
    expect(t.stdout).toContain('(1 row)');
    const bad = await runCli(['sql', '--db', f, 'SELEC nonsense']);
    expect(bad.code).toBe(2);
  });
});

describe('safety of the file', () => {
  it('requests without an auditID from two inputs are all kept (each input names its own)', async () => {
    // Each load reads its input with a fresh state, which names events without an auditID "(no auditID m0.1)", … the
    // same in every input: the store's dedup took the second input's for copies of the first's.
    const f = db();
    const files = [1, 2].map((k) => {
      const p = join(dir, `noid-${k}.log`);
      const lines = [1, 2, 3].map((i) => auditLine({ auditID: undefined, requestURI: `/api/v1/namespaces/n${k}/pods`, requestReceivedTimestamp: `2026-01-01T00:00:0${i}.000000Z`, stageTimestamp: `2026-01-01T00:00:0${i}.010000Z` }));
      writeFileSync(p, lines.join('\n') + '\n');
      return p;
    });
    const r = await runCli(['load', '--db', f, ...files]);
    expect(r.code).toBe(0);
    const [{ n }] = (await sql(f, 'SELECT count(*) AS n FROM requests')) as any;
    expect(n).toBe(6);
  });

  it('says how many of an input\'s requests the store held already (the same log again, gzipped)', async () => {
    const f = db();
    const p = join(dir, 'again.log');
    const lines = [1, 2, 3].map((i) => auditLine({ auditID: `again-${i}`, requestURI: '/api/v1/namespaces/a/pods', requestReceivedTimestamp: `2026-01-01T00:00:0${i}.000000Z`, stageTimestamp: `2026-01-01T00:00:0${i}.010000Z` }));
    writeFileSync(p, lines.join('\n') + '\n');
    writeFileSync(p + '.gz', gzipSync(readFileSync(p)));
    const first = await runCli(['load', '--db', f, p]);
    expect(first.stderr).toContain('again.log: loaded 3 requests and 0 etcd reads');
    writeFileSync(p, [...lines, auditLine({ auditID: 'again-4', requestURI: '/api/v1/namespaces/a/pods', requestReceivedTimestamp: '2026-01-01T00:00:04.000000Z', stageTimestamp: '2026-01-01T00:00:04.010000Z' })].join('\n') + '\n');
    const second = await runCli(['load', '--db', f, p + '.gz', p]);
    expect(second.stderr).toContain('again.log.gz: loaded 3 requests (3 of them already in the store) and 0 etcd reads');
    expect(second.stderr).toContain('again.log: loaded 4 requests (3 of them already in the store) and 0 etcd reads');
    const [{ n }] = (await sql(f, 'SELECT count(*) AS n FROM requests')) as any;
    expect(n).toBe(4);
  });

  it('loading the same input twice does not double-count it', async () => {
    const f = db();
    await runCli(['load', '--db', f, 'fixtures/demo']);
    const again = await runCli(['load', '--db', f, 'fixtures/demo']);
    expect(again.stderr).toContain('already loaded, skipped');
    const [{ n }] = (await sql(f, 'SELECT count(*) AS n FROM requests')) as any;
    expect(n).toBe(1608);
    const [{ e }] = (await sql(f, 'SELECT count(*) AS e FROM etcd_ranges')) as any;
    expect(e).toBe(1306);
  });

  it('an interrupted load leaves a consistent file: the finished input, none of the cut one', async () => {
    const f = db();
    const big = join(dir, 'big.log');
    const lines: string[] = [];
    for (let i = 0; i < 150_000; i++) lines.push(auditLine({ auditID: `big-${i}` }));
    writeFileSync(big, lines.join('\n') + '\n');
    const child = spawn(process.execPath, [BIN, 'load', '--db', f, 'fixtures/audit/seed-vector-requestresponse.jsonl', big], { cwd: ROOT });
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        // the first input has committed; kill while the big one is loading
        if (stderr.includes('seed-vector-requestresponse.jsonl: loaded')) setTimeout(() => child.kill('SIGKILL'), 300);
      });
      child.on('close', () => resolve());
    });
    expect(stderr).not.toContain('big.log: loaded');
    const [{ n, inputs }] = (await sql(f, 'SELECT (SELECT count(*) FROM requests) AS n, (SELECT count(*) FROM inputs) AS inputs')) as any;
    expect({ n, inputs }).toEqual({ n: 8, inputs: 1 });
    const again = await runCli(['load', '--db', f, 'fixtures/audit/seed-vector-requestresponse.jsonl', big]);
    expect(again.stderr).toContain('seed-vector-requestresponse.jsonl: already loaded');
    const [{ m }] = (await sql(f, 'SELECT count(*) AS m FROM requests')) as any;
    expect(m).toBe(150_008);
  }, 120_000);

  it('refuses a store of another schema version', async () => {
    const f = db();
    await runCli(['load', '--db', f, 'fixtures/audit/seed-vector-requestresponse.jsonl']);
    await runCli(['sql', '--db', f, "UPDATE meta SET value = '99' WHERE key = 'schema_version'"]);
    const r = await runCli(['sql', '--db', f, 'SELECT 1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('store schema version 99');
  });

  it('keeps no token or secret: the canaries are neither in any column nor in the file', async () => {
    const f = db();
    await runCli(['load', '--db', f, 'fixtures/audit/canary-secrets.jsonl']);
    const cols = await sql(f, "SELECT column_name FROM information_schema.columns WHERE table_name = 'requests' AND data_type = 'VARCHAR'");
    const where = cols.map((c) => `coalesce(${JSON.stringify(c.column_name)}, '') LIKE '%CANARY%'`).join(' OR ');
    const [{ hits }] = (await sql(f, `SELECT count(*) AS hits FROM requests WHERE ${where}`)) as any;
    // the user agent and query string in the fixture carry canaries by design; they are stored redacted
    expect(hits).toBe(0);
    const bytes = readFileSync(f);
    expect(bytes.includes('CANARY-SECRET')).toBe(false);
    expect(bytes.includes('CANARY-TOKEN')).toBe(false);
  });

  it('exports Parquet in hive partitions date=YYYY-MM-DD/hour=HH, readable by DuckDB', async () => {
    const f = db();
    await runCli(['load', '--db', f, 'fixtures/demo']);
    const out = join(dir, 'pq');
    const r = await runCli(['export', '--db', f, '--parquet', out]);
    expect(r.code).toBe(0);
    expect(existsSync(join(out, 'requests', 'date=2026-11-30', 'hour=10'))).toBe(true);
    const [{ n }] = (await sql(f, `SELECT count(*) AS n FROM read_parquet('${out}/requests/*/*/*.parquet', hive_partitioning = true)`)) as any;
    expect(n).toBe(1608);
  });
});

describe('schema', () => {
  it('has the documented tables, views and columns', async () => {
    const f = db();
    await runCli(['load', '--db', f, 'fixtures/audit/seed-vector-requestresponse.jsonl']);
    const t = await sql(f, "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1");
    expect(t.map((x) => `${x.table_name}:${x.table_type}`)).toEqual(['amplification:VIEW', 'etcd_ranges:BASE TABLE', 'inputs:BASE TABLE', 'list_groups:VIEW', 'lists:VIEW', 'meta:BASE TABLE', 'requests:BASE TABLE']);
    const readme = readFileSync(join(ROOT, 'docs/store.md'), 'utf8');
    const cols = await sql(f, "SELECT table_name, column_name FROM information_schema.columns WHERE table_name IN ('requests', 'etcd_ranges') ORDER BY table_name, ordinal_position");
    const undocumented = cols.filter((c) => !readme.includes(`\`${c.column_name}\``)).map((c) => `${c.table_name}.${c.column_name}`);
    expect(undocumented).toEqual([]);
  });
});
