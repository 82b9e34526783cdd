/*! The DuckDB store (issue 6): `load` streams normalised requests and etcd reads into a DuckDB file with the
 * appender, `sql` queries it, `export` writes Parquet partitioned by date and hour, and `scan --db` runs the same
 * analysis over it. @duckdb/node-api is imported lazily, so plain scans never load the native module.
 * Request and response bodies never reach the file: only the fields in SCHEMA (and item counts). */

import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, promises as fsp, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { NO_ID, ScanState, resourceKeyOf, type RequestRow } from '../aggregate/scan-state.js';
import type { EtcdRead } from '../aggregate/etcd-reads.js';
import { classifyRead, type ServingOptions } from '../analyze/serving.js';
import { querySignature, signatureOf, UNKNOWN_QUERY_REASON, UNKNOWN_SIGNATURE, userPattern } from '../aggregate/read-groups.js';
import { inferKubeVersion, VersionEvidenceCollector, formatKubeVersion, type KubeVersion } from '../model/kube-version.js';
import { inferPrefix } from '../model/etcd-key.js';
import { etcdSupportsProgressNotify } from '../analyze/report.js';
import { InputError } from '../model/errors.js';
import { redactSecrets } from '../render/text-safety.js';
import type { Source } from '../input/sources.js';
import { newApiserverLogStats, type ApiserverLogStats } from '../decode/apiserver-log-reader.js';
import { logKubeVersion } from '../analyze/apiserver-log-report.js';
import type { InputStats } from '../aggregate/scan-state.js';

export const STORE_SCHEMA_VERSION = 1;

/** The schema, documented in docs/store.md and checked by test/store.test.ts. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS inputs (
  input_id VARCHAR PRIMARY KEY, name VARCHAR, bytes BIGINT, lines BIGINT, audit_events BIGINT,
  etcd_entries BIGINT, skipped_lines BIGINT, requests BIGINT, etcd_reads BIGINT, loaded_at TIMESTAMP, apiserver_log VARCHAR);
CREATE TABLE IF NOT EXISTS requests (
  audit_id VARCHAR, input_id VARCHAR, input VARCHAR,
  received_at TIMESTAMP, stage_at TIMESTAMP, latency_ms DOUBLE,
  stage VARCHAR, level VARCHAR, verb VARCHAR, username VARCHAR, user_pattern VARCHAR, user_agent VARCHAR,
  api_group VARCHAR, resource VARCHAR, resource_key VARCHAR, namespace VARCHAR, name VARCHAR, subresource VARCHAR,
  request_uri VARCHAR, field_selector VARCHAR, label_selector VARCHAR, selector_shape VARCHAR,
  single_name BOOLEAN, single_namespace BOOLEAN,
  resource_version VARCHAR, rv_match VARCHAR, "limit" INTEGER, has_continue BOOLEAN, watch BOOLEAN, send_initial_events BOOLEAN,
  signature VARCHAR, code INTEGER, node VARCHAR, returned_items INTEGER, remaining_items BIGINT,
  served_from VARCHAR, served_reason VARCHAR,
  source VARCHAR, apf_flow_schema VARCHAR, apf_priority_level VARCHAR, source_ip VARCHAR, traced BOOLEAN, observed_etcd BOOLEAN);
CREATE TABLE IF NOT EXISTS etcd_ranges (
  input_id VARCHAR, input VARCHAR, "time" TIMESTAMP, key VARCHAR, range_end VARCHAR, resource_key VARCHAR, resource VARCHAR,
  scope VARCHAR, namespace VARCHAR, "limit" INTEGER, objects BIGINT, total_keys BIGINT, bytes BIGINT, took_ms DOUBLE,
  error VARCHAR, internal VARCHAR);
-- lists and watch-lists (sendInitialEvents=true, client-go >= 0.35), but not a watch-list refused as invalid
CREATE OR REPLACE VIEW lists AS SELECT * FROM requests
  WHERE verb = 'list' OR (verb = 'watch' AND send_initial_events AND coalesce(code, 0) NOT IN (400, 422));
CREATE OR REPLACE VIEW list_groups AS
  SELECT user_agent, user_pattern AS username, api_group, resource, resource_key,
         CASE WHEN namespace = '' THEN 'cluster' ELSE 'namespaced' END AS scope, selector_shape AS selector,
         count(*) AS requests, count(DISTINCT node) AS nodes,
         count(*) FILTER (WHERE resource_version IS NULL AND NOT has_continue) AS without_rv,
         count(*) FILTER (WHERE served_from = 'etcd') AS etcd, count(*) FILTER (WHERE served_from = 'cache') AS cache,
         avg(returned_items) AS returned_per_request, min(received_at) AS first_seen, max(received_at) AS last_seen
  FROM lists GROUP BY ALL;
CREATE OR REPLACE VIEW amplification AS
  SELECT g.*, e.reads AS etcd_reads, e.objects_per_read, e.bytes_per_read,
         g.etcd * e.bytes_per_read AS bytes_read_total,
         -- returned per request: measured (RequestResponse level), else objects ÷ nodes for a per-node selector
         coalesce(g.returned_per_request, CASE WHEN g.selector LIKE '%<node>%' THEN round(e.objects_per_read / greatest((SELECT count(DISTINCT node) FROM requests), g.nodes), 1) END) AS returned,
         g.returned_per_request IS NULL AS estimated,
         round(e.objects_per_read / greatest(coalesce(g.returned_per_request, CASE WHEN g.selector LIKE '%<node>%' THEN round(e.objects_per_read / greatest((SELECT count(DISTINCT node) FROM requests), g.nodes), 1) END), 1), 1) AS amplification
  FROM list_groups g
  JOIN LATERAL (
    SELECT count(*) AS reads, avg(objects) AS objects_per_read, avg(bytes) AS bytes_per_read
    FROM etcd_ranges r
    WHERE r.internal IS NULL AND r.scope = 'all' AND r."limit" = 0 AND r.resource_key = g.resource_key
      AND r."time" BETWEEN g.first_seen - INTERVAL 1 MINUTE AND g.last_seen + INTERVAL 1 MINUTE
  ) e ON true
  WHERE g.etcd > 0 AND g.scope = 'cluster';
`;

type DuckModule = typeof import('@duckdb/node-api');

/** The DuckDB for Node release this store is built and tested with (package.json peerDependencies). */
export const DUCKDB_VERSION = '1.5.6-r.1';

async function duck(): Promise<DuckModule> {
  try {
    return await import('@duckdb/node-api');
  } catch (err) {
    // a plain scan never needs DuckDB, so the package does not install it (75 MB): the store commands ask for it
    throw new InputError(
      // the command that installs it where this audit-scan lives follows (cli/install.ts)
      `the DuckDB store needs @duckdb/node-api@${DUCKDB_VERSION}, which is not installed (${(err as Error).message.split('\n')[0]}).`,
    );
  }
}

/** An open store. */
export class Store {
  private constructor(
    readonly db: DuckDBInstance,
    readonly con: DuckDBConnection,
    readonly mod: DuckModule,
  ) {}

  /** Opens (creating if needed) a store file and checks its schema version. */
  static async open(path: string): Promise<Store> {
    const mod = await duck();
    // A load commits each input in one transaction; DuckDB holds that transaction's rows (about 3 GB per GB of
    // audit log, measured) in its buffer pool, which spills past the limit below.
    let db: DuckDBInstance;
    try {
      // A bounded memory: past it DuckDB spills to <path>.tmp, so loading tens of GB needs disk, not RAM. 256 MB,
      // not 384: `load` of the 1 GB bench log peaked at 528 MiB against 593 (farm-bench -n 4, medians), no slower
      // (A/B 0.97); the issue's bound is 600 MB.
      db = await mod.DuckDBInstance.create(path, { memory_limit: '256MB', threads: '2', preserve_insertion_order: 'false' });
    } catch (err) {
      throw new InputError(`${path}: cannot open as a DuckDB store (${(err as Error).message.split('\n')[0]})`);
    }
    const con = await db.connect();
    const s = new Store(db, con, mod);
    await con.run(SCHEMA);
    // a store made before the apiserver's own log was an input: its columns, empty (schema version 1 only adds)
    for (const c of ['source VARCHAR', 'apf_flow_schema VARCHAR', 'apf_priority_level VARCHAR', 'source_ip VARCHAR', 'traced BOOLEAN', 'observed_etcd BOOLEAN']) await con.run(`ALTER TABLE requests ADD COLUMN IF NOT EXISTS ${c}`);
    await con.run('ALTER TABLE inputs ADD COLUMN IF NOT EXISTS apiserver_log VARCHAR');
    const v = await s.meta('schema_version');
    if (v === null) await s.setMeta('schema_version', String(STORE_SCHEMA_VERSION));
    else if (v !== String(STORE_SCHEMA_VERSION)) throw new InputError(`${path}: store schema version ${v}, this audit-scan reads version ${STORE_SCHEMA_VERSION}`);
    return s;
  }

  async meta(key: string): Promise<string | null> {
    const r = await this.con.runAndReadAll('SELECT value FROM meta WHERE key = $1', [key]);
    const rows = r.getRowsJS();
    return rows.length > 0 ? String(rows[0]![0]) : null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.con.run('INSERT OR REPLACE INTO meta VALUES ($1, $2)', [key, value]);
  }

  /** Runs SQL and returns column names and rows as plain JS values (bigints become numbers when safe). */
  async query(sql: string): Promise<{ columns: string[]; rows: unknown[][] }> {
    const r = await this.con.runAndReadAll(sql);
    const rows = r.getRowsJS().map((row) => row.map(plain));
    return { columns: r.columnNames(), rows };
  }

  close(): void {
    this.con.closeSync();
    this.db.closeSync();
  }

  /** Stops the query running on the connection (Ctrl-C). */
  interrupt(): void {
    try {
      this.con.interrupt();
    } catch {
      /* nothing running */
    }
  }

  /** Streams rows of a query, chunk by chunk. */
  async *stream(sql: string): AsyncGenerator<Record<string, unknown>> {
    const res = await this.con.stream(sql);
    const cols = res.columnNames();
    for (;;) {
      const chunk = await res.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) return;
      for (const row of chunk.getRows()) {
        const o: Record<string, unknown> = {};
        cols.forEach((c, i) => (o[c] = plain(row[i])));
        yield o;
      }
    }
  }

  ts(ms: number | null): unknown {
    return ms === null ? null : new this.mod.DuckDBTimestampValue(BigInt(Math.round(ms)) * 1000n);
  }
}

function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString();
  return v;
}

/** A stable identity for an input: its size and the SHA-256 of its bytes (so a renamed copy is the same input). */
export async function inputIdentity(src: Source): Promise<string | null> {
  if (src.path === null) return null;
  const h = createHash('sha256');
  let size = 0;
  for await (const c of createReadStream(src.path, { highWaterMark: 1 << 20 })) {
    h.update(c as Buffer);
    size += (c as Buffer).length;
  }
  return `sha256:${h.digest('hex')}:${size}`;
}

function appendNullable(a: DuckDBAppender, kind: 'varchar' | 'int' | 'double' | 'bool' | 'bigint', v: unknown): void {
  if (v === null || v === undefined) return a.appendNull();
  switch (kind) {
    case 'varchar':
      // Strings from the log: credentials in user agents or query strings must not reach the file.
      return a.appendVarchar(redactSecrets(String(v)));
    case 'int':
      return a.appendInteger(Number(v));
    case 'bigint':
      return a.appendBigInt(BigInt(Math.round(Number(v))));
    case 'double':
      return a.appendDouble(Number(v));
    case 'bool':
      return a.appendBoolean(Boolean(v));
  }
}

/** The columns of a staged request row (SCHEMA's requests, times as epoch ms), for read_json. */
const STAGE_COLUMNS: ReadonlyArray<[string, string]> = [
  ['audit_id', 'VARCHAR'], ['input_id', 'VARCHAR'], ['input', 'VARCHAR'], ['received_ms', 'DOUBLE'], ['stage_ms', 'DOUBLE'], ['latency_ms', 'DOUBLE'],
  ['stage', 'VARCHAR'], ['level', 'VARCHAR'], ['verb', 'VARCHAR'], ['username', 'VARCHAR'], ['user_pattern', 'VARCHAR'], ['user_agent', 'VARCHAR'],
  ['api_group', 'VARCHAR'], ['resource', 'VARCHAR'], ['resource_key', 'VARCHAR'], ['namespace', 'VARCHAR'], ['name', 'VARCHAR'], ['subresource', 'VARCHAR'],
  ['request_uri', 'VARCHAR'], ['field_selector', 'VARCHAR'], ['label_selector', 'VARCHAR'], ['selector_shape', 'VARCHAR'],
  ['single_name', 'BOOLEAN'], ['single_namespace', 'BOOLEAN'],
  ['resource_version', 'VARCHAR'], ['rv_match', 'VARCHAR'], ['limit', 'INTEGER'], ['has_continue', 'BOOLEAN'], ['watch', 'BOOLEAN'], ['send_initial_events', 'BOOLEAN'],
  ['signature', 'VARCHAR'], ['code', 'INTEGER'], ['node', 'VARCHAR'], ['returned_items', 'INTEGER'], ['remaining_items', 'BIGINT'],
];
/** The staged columns after served_from and served_reason (which classifyStore fills): the apiserver log's. */
const STAGE_LOG_COLUMNS: ReadonlyArray<[string, string]> = [
  ['source', 'VARCHAR'], ['apf_flow_schema', 'VARCHAR'], ['apf_priority_level', 'VARCHAR'], ['source_ip', 'VARCHAR'], ['traced', 'BOOLEAN'], ['observed_etcd', 'BOOLEAN'],
];

/** SELECT list that turns staged rows into SCHEMA's requests columns. */
const STAGE_SELECT = STAGE_COLUMNS.map(([c]) =>
  c === 'received_ms' ? 'CASE WHEN received_ms IS NULL THEN NULL ELSE make_timestamp(CAST(round(received_ms * 1000) AS BIGINT)) END' : c === 'stage_ms' ? 'CASE WHEN stage_ms IS NULL THEN NULL ELSE make_timestamp(CAST(round(stage_ms * 1000) AS BIGINT)) END' : `"${c}"`,
).join(', ') + ', NULL, NULL, ' + STAGE_LOG_COLUMNS.map(([c]) => `"${c}"`).join(', ');

/** A request's row as one NDJSON line for the staging file: columns of STAGE_COLUMNS, strings redacted. */
export function requestRowJson(inputId: string, inputName: string, r: RequestRow): string {
  const e = r.e;
  const q = r.query;
  const sel = r.selector;
  const v = (x: string | null | undefined): string | null => (x === null || x === undefined ? null : redactSecrets(x));
  return JSON.stringify({
    // An event without an auditID is named per scan state ("(no auditID m0.1)"), and each input is loaded with its
    // own state: the name gets the input's id, or the store's dedup would take it for another input's request.
    audit_id: v(e.auditID.startsWith(NO_ID) ? `${e.auditID.slice(0, -1)} of ${inputId})` : e.auditID),
    input_id: inputId,
    input: v(inputName),
    received_ms: e.receivedMs,
    stage_ms: e.stageMs,
    latency_ms: e.receivedMs !== null && e.stageMs !== null ? e.stageMs - e.receivedMs : null,
    stage: e.stage,
    level: v(e.level),
    verb: v(e.verb),
    username: v(e.username),
    user_pattern: v(userPattern(e.username)),
    user_agent: v(e.userAgent),
    api_group: v(r.apiGroup),
    resource: v(r.resource),
    resource_key: r.resource ? v(resourceKeyOf(r.apiGroup, r.resource)) : null,
    namespace: v(r.namespace),
    name: v(e.name),
    subresource: v(e.subresource),
    request_uri: v(e.requestURI),
    field_selector: v(q?.fieldSelector),
    label_selector: v(q?.labelSelector),
    selector_shape: v(sel?.shape ?? (q ? '' : null)),
    single_name: sel ? sel.singleName !== null : null,
    single_namespace: sel ? sel.singleNamespace !== null : null,
    resource_version: v(q?.resourceVersion),
    rv_match: v(q?.resourceVersionMatch),
    limit: q ? q.limit : null,
    has_continue: q ? q.continueToken : null,
    watch: q ? q.watch : null,
    send_initial_events: q ? q.sendInitialEvents : null,
    signature: q ? (e.queryKnown === false ? UNKNOWN_SIGNATURE : signatureOf(q)) : null,
    code: e.code,
    node: v(r.node),
    returned_items: e.returnedItems,
    remaining_items: e.remainingItems,
    // the apiserver's own log: how the request was seen, its APF flow schema and level, its client's address
    source: e.evidence ?? null,
    apf_flow_schema: v(e.apfFlowSchema),
    apf_priority_level: v(e.apfPriorityLevel),
    source_ip: v(e.srcIP),
    traced: e.traced ?? null,
    observed_etcd: e.observedEtcd ?? null,
  });
}

/** Rows written to a staging file in 1 MB writes; DuckDB reads the file with read_json (its own fast reader). */
class StageFile {
  private readonly fd: number;
  private parts: string[] = [];
  private size = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }
  add(line: string): void {
    this.parts.push(line);
    this.size += line.length + 1;
    if (this.size >= 1 << 20) this.flush();
  }
  flush(): void {
    if (this.parts.length === 0) return;
    writeSync(this.fd, this.parts.join('\n') + '\n');
    this.parts = [];
    this.size = 0;
  }
  private closed = false;
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    closeSync(this.fd);
  }
}

/** Appends a finished etcd read. */
export function appendEtcd(store: Store, a: DuckDBAppender, inputId: string, inputName: string, r: EtcdRead): void {
  appendNullable(a, 'varchar', inputId);
  appendNullable(a, 'varchar', inputName);
  const t = store.ts(r.tsMs);
  if (t === null) a.appendNull();
  else a.appendTimestamp(t as never);
  appendNullable(a, 'varchar', r.key);
  appendNullable(a, 'varchar', r.rangeEnd);
  appendNullable(a, 'varchar', r.range.resourceKey);
  appendNullable(a, 'varchar', r.range.resource);
  appendNullable(a, 'varchar', r.range.scope);
  appendNullable(a, 'varchar', r.range.namespace);
  appendNullable(a, 'int', r.limit);
  appendNullable(a, 'bigint', r.objects);
  appendNullable(a, 'bigint', r.totalKeys);
  appendNullable(a, 'bigint', r.bytes);
  appendNullable(a, 'double', r.tookMs);
  appendNullable(a, 'varchar', r.error);
  appendNullable(a, 'varchar', r.internal);
  a.endRow();
}

/** Re-classifies every read in the store for `version` (and etcd's progress-notify support). */
export async function classifyStore(store: Store, versionFlag: KubeVersion | null, etcdVersion: string | null, watchCacheDisabled: ReadonlySet<string>): Promise<string> {
  let version = versionFlag;
  let reason = 'from --kube-version';
  if (version === null) {
    // the apiserver's own log names its version (its Version line): that first, as the scan does
    const logs = await store.query('SELECT apiserver_log FROM inputs WHERE apiserver_log IS NOT NULL');
    const fromLog = logKubeVersion(logs.rows.map(([al]) => ({ apiserverLog: apiserverLogStatsOf(String(al)) }) as unknown as InputStats));
    if (fromLog !== null) {
      version = fromLog.version;
      reason = `from the apiserver's own log: its Version line ${fromLog.text}`;
    }
  }
  if (version === null) {
    const ev = new VersionEvidenceCollector();
    const r = await store.query(`SELECT username, user_agent, count(*) FROM requests WHERE user_agent LIKE 'kube%' GROUP BY ALL`);
    for (const [u, ua, n] of r.rows) ev.add(String(u), String(ua), Number(n));
    const inferred = inferKubeVersion(ev.list());
    version = inferred.version;
    reason = inferred.reason;
  }
  etcdVersion ??= await store.meta('etcd_version');
  const opts: ServingOptions = { version, etcdSupportsProgressNotify: etcdVersion === null ? null : etcdSupportsProgressNotify(etcdVersion), consistentListFromCache: null, watchCacheDisabled };
  const combos = await store.query(`SELECT DISTINCT verb, resource, namespace <> '' AS namespaced, signature, single_name, single_namespace FROM requests WHERE signature IS NOT NULL AND verb IN ('list', 'get', 'watch')`);
  await store.con.run('CREATE OR REPLACE TEMP TABLE verdicts (verb VARCHAR, resource VARCHAR, namespaced BOOLEAN, signature VARCHAR, single_name BOOLEAN, single_namespace BOOLEAN, served_from VARCHAR, reason VARCHAR)');
  const a = await store.con.createAppender('verdicts');
  for (const [verb, resource, namespaced, sig, sn, sns] of combos.rows) {
    const v =
      sig === UNKNOWN_SIGNATURE
        ? { servedFrom: 'unknown', reason: UNKNOWN_QUERY_REASON }
        : classifyRead(String(verb), String(resource), namespaced ? 'ns' : '', querySignature(String(sig)), { shape: '', node: null, singleName: sn ? 'x' : null, singleNamespace: sns ? 'x' : null, hasFieldSelector: false, hasLabelSelector: false }, opts);
    for (const x of [verb, resource]) a.appendVarchar(String(x));
    a.appendBoolean(Boolean(namespaced));
    a.appendVarchar(String(sig));
    a.appendBoolean(Boolean(sn));
    a.appendBoolean(Boolean(sns));
    if (v === null) {
      a.appendNull();
      a.appendNull();
    } else {
      a.appendVarchar(v.servedFrom);
      a.appendVarchar(v.reason);
    }
    a.endRow();
  }
  a.closeSync();
  await store.con.run(`UPDATE requests SET served_from = v.served_from, served_reason = v.reason FROM verdicts v
    WHERE requests.signature = v.signature AND requests.verb = v.verb AND requests.resource = v.resource
      AND (requests.namespace <> '') = v.namespaced AND requests.single_name = v.single_name AND requests.single_namespace = v.single_namespace`);
  // A 429 was answered before storage (API Priority and Fairness, or a watch cache still initialising): no read.
  await store.con.run(`UPDATE requests SET served_from = 'rejected', served_reason = 'answered 429' WHERE code = 429 AND served_from IS NOT NULL`);
  await store.setMeta('kube_version', formatKubeVersion(version));
  await store.setMeta('kube_version_reason', reason);
  return `Kubernetes ${formatKubeVersion(version)} (${reason})`;
}

/** DuckDB's memory limit while a source loads (loadSource). */
export const LOAD_MEMORY_LIMIT = '192MB';

/** Loads one source inside a transaction: all its rows or none. Returns what happened. */
export async function loadSource(
  store: Store,
  src: Source,
  read: (state: ScanState) => Promise<void>,
  etcdPrefix: string | null,
): Promise<{ status: 'loaded' | 'already loaded'; requests: number; added: number; etcdReads: number; skippedLines: number }> {
  const id = (await inputIdentity(src)) ?? `stdin:${Date.now()}`;
  const seen = await store.query(`SELECT count(*) FROM inputs WHERE input_id = '${id.replace(/'/g, "''")}'`);
  if (Number(seen.rows[0]![0]) > 0) return { status: 'already loaded', requests: 0, added: 0, etcdReads: 0, skippedLines: 0 };
  let inTransaction = false;
  // The memory limit is most of `load`'s peak: the insert of the staged rows fills DuckDB's buffer pool to it (256 MB
  // over the 90 the process had before, measured), on top of the scan's own 175 MB. 192 MB, not open()'s 256: the
  // 1 GB bench log peaked at 457-527 MiB against 518-604 (3 runs each), no slower; a 3 GB log loads (519 MiB), and
  // so does the 1 GB log again, gzipped, into the same store. 160 MB fails: read_json wants two 32 MiB buffers.
  await store.con.run(`SET memory_limit = '${LOAD_MEMORY_LIMIT}'`);
  try {
    // Stage, then an anti-join: an auditID already in the store (another apiserver, a rotated copy) counts once.
    // No primary-key index on audit_id: DuckDB keeps such an index in memory, an anti-join can spill to disk.
    // Staging tables live in the database file and are filled outside the transaction, so a big input spills to
    // disk; an interrupted load leaves only a staging table behind, which the next load replaces.
    await store.con.run('CREATE OR REPLACE TABLE stage_requests AS SELECT * FROM requests LIMIT 0');
    await store.con.run('CREATE OR REPLACE TABLE stage_etcd AS SELECT * FROM etcd_ranges LIMIT 0');
    const ea = await store.con.createAppender('stage_etcd');
    // Requests go through a staging file that DuckDB reads with read_json: its own reader, a vector at a time,
    // instead of one appender call per value (about 1.5 µs each, 37 per request).
    const stagePath = join(tmpdir(), `audit-scan-stage-${process.pid}-${Date.now()}.ndjson`);
    const stage = new StageFile(stagePath);
    const state = new ScanState(etcdPrefix, null);
    let requests = 0;
    let etcdReads = 0;
    state.setSink({
      request: (r) => {
        stage.add(requestRowJson(id, src.name, r));
        requests++;
      },
      etcdRead: (r) => {
        appendEtcd(store, ea, id, src.name, r);
        etcdReads++;
      },
    });
    try {
      await read(state);
      stage.close();
      ea.closeSync();
      const cols = [...STAGE_COLUMNS, ...STAGE_LOG_COLUMNS].map(([c, t]) => `'${c}': '${t}'`).join(', ');
      await store.con.run(`INSERT INTO stage_requests SELECT ${STAGE_SELECT} FROM read_json('${stagePath.replace(/'/g, "''")}', format = 'newline_delimited', columns = {${cols}})`);
    } finally {
      stage.close();
      rmSync(stagePath, { force: true });
    }
    await store.con.run('BEGIN TRANSACTION');
    inTransaction = true;
    // A request already in the store (the same log loaded again) is not added twice, and of an auditID staged twice
    // the earliest row is kept. An anti-join on audit_id only: a window over every staged row (the query before)
    // sorted all columns at once and ran out of the 384 MB limit on a 1 GB log with RequestResponse bodies; the
    // window now sorts only the auditIDs staged more than once, which a scan's dedup leaves none of.
    const twice = 'SELECT audit_id FROM stage_requests GROUP BY audit_id HAVING count(*) > 1';
    const once = await store.con.run(`INSERT INTO requests SELECT s.* FROM stage_requests s ANTI JOIN requests r ON r.audit_id = s.audit_id
      WHERE s.audit_id NOT IN (${twice})`);
    const more = await store.con.run(`INSERT INTO requests SELECT s.* FROM stage_requests s ANTI JOIN requests r ON r.audit_id = s.audit_id
      WHERE s.audit_id IN (${twice})
      QUALIFY row_number() OVER (PARTITION BY s.audit_id ORDER BY s.received_at) = 1`);
    const added = once.rowsChanged + more.rowsChanged;
    await store.con.run('INSERT INTO etcd_ranges SELECT * FROM stage_etcd');
    await store.con.run('DROP TABLE stage_requests');
    await store.con.run('DROP TABLE stage_etcd');
    const inp = state.inputs[0];
    const bytes = src.sizeBytes ?? 0;
    await store.con.run(`INSERT INTO inputs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), $10)`, [
      id,
      src.name,
      bytes,
      inp?.lines ?? 0,
      inp?.auditEvents ?? 0,
      inp?.etcdEntries ?? 0,
      inp?.skippedLines ?? 0,
      requests,
      etcdReads,
      // what the apiserver's own log said of itself (its version, verbosity, trace blocks), for scan --db
      inp?.apiserverLog === undefined ? null : JSON.stringify(inp.apiserverLog, (_k, x: unknown) => (x instanceof Map ? Object.fromEntries(x) : x)),
    ]);
    if (state.etcdVersions.size > 0) await store.setMeta('etcd_version', [...state.etcdVersions.entries()].sort((a, b) => b[1] - a[1])[0]![0]);
    await store.con.run('COMMIT');
    inTransaction = false;
    if (inp?.error) throw new InputError(`${src.name}: ${inp.error}`);
    return { status: 'loaded', requests, added, etcdReads, skippedLines: inp?.skippedLines ?? 0 };
  } catch (err) {
    if (inTransaction) {
      try {
        await store.con.run('ROLLBACK');
      } catch {
        /* the commit may have happened already */
      }
    }
    throw err;
  }
}

/** Writes each table as Parquet under `dir`, requests and etcd_ranges in hive partitions date=YYYY-MM-DD/hour=HH
 * (UTC; rows without a time under date=unknown/hour=unknown). The values are strings, zero-padded, so every engine
 * reads them alike (Spark, Trino, ClickHouse and DuckDB each guess types from a bare 10 differently). */
export async function exportParquet(store: Store, dir: string): Promise<string[]> {
  await fsp.mkdir(dir, { recursive: true });
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const parts = (col: string): string => `coalesce(strftime(${col}, '%Y-%m-%d'), 'unknown') AS "date", coalesce(strftime(${col}, '%H'), 'unknown') AS "hour"`;
  await store.con.run(`COPY (SELECT *, ${parts('received_at')} FROM requests) TO ${q(`${dir}/requests`)} (FORMAT parquet, PARTITION_BY ("date", "hour"), OVERWRITE_OR_IGNORE true)`);
  await store.con.run(`COPY (SELECT *, ${parts('"time"')} FROM etcd_ranges) TO ${q(`${dir}/etcd_ranges`)} (FORMAT parquet, PARTITION_BY ("date", "hour"), OVERWRITE_OR_IGNORE true)`);
  await store.con.run(`COPY inputs TO ${q(`${dir}/inputs.parquet`)} (FORMAT parquet)`);
  return [`${dir}/requests/date=*/hour=*/*.parquet`, `${dir}/etcd_ranges/date=*/hour=*/*.parquet`, `${dir}/inputs.parquet`];
}

/** Rebuilds a ScanState from the store, for `scan --db`: requests as final-stage events, reads as they were. */
export async function stateFromStore(store: Store, etcdPrefix: string | null, maxGroups?: number): Promise<ScanState> {
  const state = new ScanState(etcdPrefix, null, maxGroups);
  const inputs = await store.query('SELECT name, lines, audit_events, etcd_entries, skipped_lines, apiserver_log FROM inputs ORDER BY loaded_at, name');
  for (const [name, lines, ev, et, sk, al] of inputs.rows) {
    const i = state.addInput(String(name));
    Object.assign(state.inputs[i]!, { lines: Number(lines), auditEvents: Number(ev), etcdEntries: Number(et), skippedLines: Number(sk) });
    if (typeof al === 'string') state.inputs[i]!.apiserverLog = apiserverLogStatsOf(al);
  }
  state.beginSegment(state.addInput('(store)'), '(store)');
  for await (const r of store.stream(`SELECT audit_id, stage, level, verb, request_uri, username, user_agent, node, resource, api_group, namespace, name, subresource, code, signature,
      CAST(epoch_ms(received_at) AS DOUBLE) AS rec, CAST(epoch_ms(stage_at) AS DOUBLE) AS st, returned_items, remaining_items,
      source, apf_flow_schema, apf_priority_level, source_ip, traced, observed_etcd FROM requests ORDER BY received_at, audit_id`)) {
    const log = r.source === null || r.source === undefined ? {} : { evidence: String(r.source) as 'httplog', apfFlowSchema: String(r.apf_flow_schema ?? ''), apfPriorityLevel: String(r.apf_priority_level ?? ''), srcIP: String(r.source_ip ?? ''), traced: r.traced === true, observedEtcd: r.observed_etcd === true };
    state.addAuditEvent({
      auditID: String(r.audit_id),
      stage: 'ResponseComplete',
      level: String(r.level ?? ''),
      verb: String(r.verb),
      requestURI: String(r.request_uri),
      username: String(r.username ?? ''),
      userAgent: String(r.user_agent ?? ''),
      nodeName: r.node === null ? null : String(r.node),
      resource: String(r.resource ?? ''),
      apiGroup: String(r.api_group ?? ''),
      namespace: String(r.namespace ?? ''),
      name: String(r.name ?? ''),
      subresource: String(r.subresource ?? ''),
      code: r.code === null ? null : Number(r.code),
      receivedMs: r.rec === null ? null : Number(r.rec),
      stageMs: r.st === null ? null : Number(r.st),
      returnedItems: r.returned_items === null ? null : Number(r.returned_items),
      remainingItems: r.remaining_items === null ? null : Number(r.remaining_items),
      tokenExpirationSeconds: null,
      leaseHolder: null,
      queryKnown: r.signature !== UNKNOWN_SIGNATURE,
      etcdLatencyMs: null,
      apfQueueWaitMs: null,
      ...log,
    });
  }
  state.endInput(); // counts the segment's held head events; the "(store)" input is left out of the report
  for await (const r of store.stream(`SELECT key, range_end, "limit", objects, total_keys, bytes, took_ms, error, internal, resource_key, resource, scope, namespace, CAST(epoch_ms("time") AS DOUBLE) AS t FROM etcd_ranges`)) {
    const n = (x: unknown) => (x === null || x === undefined ? null : Number(x));
    state.addEtcdRead({
      tsMs: n(r.t),
      tookMs: n(r.took_ms),
      key: String(r.key),
      rangeEnd: r.range_end === null ? null : String(r.range_end),
      limit: Number(r.limit ?? 0),
      objects: n(r.objects),
      totalKeys: n(r.total_keys),
      bytes: n(r.bytes),
      error: r.error === null ? null : String(r.error),
      internal: r.internal === null ? null : String(r.internal),
      range: { resourceKey: String(r.resource_key ?? ''), resource: String(r.resource ?? ''), apiGroup: String(r.resource_key ?? '').includes('/') ? String(r.resource_key).split('/')[0]! : null, namespace: r.namespace === null ? null : String(r.namespace), name: null, scope: String(r.scope) as 'all', prefix: r.resource_key === null || r.resource_key === '' ? null : etcdPrefix ?? inferPrefix(String(r.key)) },
      vias: new Set(['apply']),
    });
  }
  state.finishPending();
  return state;
}

/** An input's apiserver-log figures as load stored them (JSON, its maps as objects). */
function apiserverLogStatsOf(json: string): ApiserverLogStats | undefined {
  try {
    const o = JSON.parse(json) as Record<string, unknown>;
    const st = newApiserverLogStats();
    for (const k of Object.keys(st) as Array<keyof ApiserverLogStats>) {
      const x = o[k];
      if (typeof st[k] === 'number' && typeof x === 'number') (st[k] as number) = x;
      else if (st[k] instanceof Map && x !== null && typeof x === 'object') for (const [a, n] of Object.entries(x)) if (typeof n === 'number') (st[k] as Map<string, number>).set(a, n);
    }
    return st;
  } catch {
    return undefined;
  }
}
