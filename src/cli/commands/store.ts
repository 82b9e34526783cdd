/*! Store subcommands (issue 6): load, sql, export, and scan --db. Wiring only; the work is in store/duckdb.ts,
 * which is imported here lazily so that a plain scan never loads DuckDB. */

import { existsSync, statSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { Readable } from 'node:stream';
import { InputError, InterruptedError, UsageError } from '../../model/errors.js';
import { expandSources } from '../../input/sources.js';
import { readSources } from '../../scan/scan.js';
import { resolveConfig, type Env } from '../config.js';
import { SCAN_OPTIONS } from '../options.js';
import { parseSubcommand, type CommandName } from '../program.js';
import { describeInstall, installCommandFor } from '../install.js';
import { isSea } from 'node:sea';
import { renderReport, reportOptionsOf } from './scan.js';
import { buildReport, formatCount } from '../../analyze/report.js';
import { plural } from '../../render/format.js';
import { redactSecrets, safeText } from '../../render/text-safety.js';
import { attachEngine } from '../../decode/engine/engine.js';


interface StoreIO {
  stdin: Readable;
  out: (s: string) => void;
  err: (s: string) => void;
  env: Env;
  version: string;
  /** aborted by SIGINT */
  signal?: AbortSignal;
  /** `kubectl audit-scan` when run as the kubectl plugin */
  commandName?: CommandName;
}

function dbOption(p: Command): Command {
  return p.addOption(new Option('--db <file>', 'the DuckDB file').makeOptionMandatory());
}

/** The options that a scan over a store does not take: it reads no files (filters apply at load time). */
const NOT_FOR_STORE_SCAN = new Set(['--since', '--until', '--user', '--verb', '--resource', '--namespace', '--threads', '--max-groups', '--bucket', '--gap']);

/** The commander command of `audit-scan <name>` (load, sql, export, scan --db): its options, for parsing and for
 * shell completion. */
export function storeCommand(name: string, commandName = 'audit-scan'): Command {
  const p = new Command(`${commandName} ${name}`);
  p.helpOption('-h, --help', 'show this help');
  dbOption(p);
  if (name === 'load') {
    p.description('Stream audit and etcd logs into a DuckDB file (appends; loading the same input twice is a no-op)').argument('[files...]', 'inputs, as for the scan');
    for (const o of SCAN_OPTIONS.filter((x) => ['--kube-version', '--etcd-version', '--etcd-prefix', '--watch-cache-disabled'].some((f) => x.flags.includes(f)))) p.addOption(new Option(o.flags, o.description));
  } else if (name === 'sql') {
    p.description('Run SQL over a store: tables requests, etcd_ranges, inputs, meta; views lists, list_groups, amplification').argument('<query>', 'the SQL');
    p.addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json', 'csv']).default('table'));
  } else if (name === 'export') {
    p.description('Write the store as Parquet, in hive partitions date=YYYY-MM-DD/hour=HH').addOption(new Option('--parquet <dir>', 'output directory').makeOptionMandatory());
  } else {
    p.description('The scan, over a store instead of log files');
    for (const o of SCAN_OPTIONS) {
      if (NOT_FOR_STORE_SCAN.has(/--[a-z-]+/.exec(o.flags)![0])) continue;
      const opt = new Option(o.flags, o.description);
      if (o.choices) opt.choices(o.choices);
      if (typeof o.default === 'string') opt.default(o.default);
      if (o.repeatable) opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
      p.addOption(opt);
    }
  }
  return p;
}

/** Parses and runs `audit-scan <load|sql|export|scan> …`. Returns the exit code. */
export async function runStoreCommand(argv: string[], io: StoreIO): Promise<number> {
  const [name, ...rest] = argv;
  const commandName = io.commandName ?? 'audit-scan';
  const p = storeCommand(name!, commandName);
  const parsed = parseSubcommand(p, rest, `${commandName} ${name}`, io.out, io.err);
  if (parsed !== null) return parsed;
  const opts = p.opts() as Record<string, unknown>;
  const dbPath = String(opts.db);
  // Only load creates a store: a typo in `scan --db`, `sql --db` or `export --db` must not make an empty file and
  // answer as if all were well.
  if (name !== 'load') {
    if (!existsSync(dbPath)) throw new InputError(`${safeText(dbPath)}: no such store (create one with: audit-scan load <logs> --db ${safeText(dbPath)})`);
    if (!statSync(dbPath).isFile()) throw new InputError(`${safeText(dbPath)}: not a store file`);
  }
  const { Store, loadSource, classifyStore, exportParquet, stateFromStore, DUCKDB_VERSION } = await import('../../store/duckdb.js');
  const duckPkg = `@duckdb/node-api@${DUCKDB_VERSION}`;
  // DuckDB is a native module: the single-file binary cannot hold it (README "Install")
  if (isSea()) throw new InputError(`${name}: the single-file binary has no DuckDB, which load, sql, export and scan --db need (a scan of log files does not). Install audit-scan with npm (README "Install"), then ${duckPkg} next to it`);
  let store;
  try {
    store = await Store.open(dbPath);
  } catch (err) {
    // the store's message names the published package's commands; add the one that works from this install
    if (err instanceof InputError && err.message.startsWith('the DuckDB store needs')) throw new InputError(`${err.message}\naudit-scan: from ${describeInstall()}: ${installCommandFor(duckPkg)}`);
    throw err;
  }
  const onAbort = (): void => store.interrupt();
  io.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (name === 'load') {
      const cfg = resolveConfig(p.args.length > 0 ? p.args : ['-'], opts, io.env);
      const { sources, problems } = await expandSources(cfg.files);
      for (const pr of problems) io.err(`audit-scan: ${safeText(pr.name)}: ${pr.message}\n`);
      let failed = problems.some((x) => !x.message.startsWith('same file'));
      for (const src of sources) {
        if (io.signal?.aborted) break;
        try {
          const r = await loadSource(store, src, async (state) => {
            const note = attachEngine(state, cfg.engine);
            if (note !== null) io.err(note + '\n');
            await readSources([src], state, { etcdPrefix: cfg.etcdPrefix, stdin: io.stdin, onSkip: null, threads: 1, signal: io.signal });
            // A cut input is not committed: an input is in the store whole or not at all.
            if (io.signal?.aborted) throw new InterruptedError(`${src.name}: interrupted; not loaded (inputs loaded before it are kept)`);
          }, cfg.etcdPrefix);
          io.err(
            r.status === 'already loaded'
              ? `audit-scan: ${safeText(src.name)}: already loaded, skipped\n`
              : `audit-scan: ${safeText(src.name)}: loaded ${plural(r.requests, 'request')}${r.added < r.requests ? ` (${formatCount(r.requests - r.added)} of them already in the store)` : ''} and ${plural(r.etcdReads, 'etcd read')}${r.skippedLines > 0 ? ` (${plural(r.skippedLines, 'line')} skipped)` : ''}\n`,
          );
        } catch (err) {
          if (err instanceof InterruptedError || io.signal?.aborted) throw err instanceof InterruptedError ? err : new InterruptedError(`${src.name}: interrupted; not loaded (inputs loaded before it are kept)`);
          failed = true;
          io.err(`audit-scan: ${(err as Error).message}\n`);
        }
      }
      if (io.signal?.aborted) throw new InterruptedError('interrupted; inputs loaded before are kept');
      const v = await classifyStore(store, cfg.kubeVersion, cfg.etcdVersion, cfg.watchCacheDisabled);
      io.err(`audit-scan: served-from verdicts for ${v}\n`);
      return failed ? 1 : 0;
    }
    if (name === 'sql') {
      const q = p.args[0]!;
      let res;
      try {
        res = await store.query(q);
      } catch (err) {
        if (io.signal?.aborted) throw new InterruptedError('interrupted');
        throw new UsageError(`sql: ${(err as Error).message}`);
      }
      io.out(formatRows(res.columns, res.rows, String(opts.output)));
      return 0;
    }
    if (name === 'export') {
      const files = await exportParquet(store, String(opts.parquet));
      for (const f of files) io.err(`audit-scan: wrote ${f}\n`);
      return 0;
    }
    // scan --db
    const cfg = resolveConfig(['(store)'], opts, io.env);
    const state = await stateFromStore(store, cfg.etcdPrefix);
    // the same options as a scan of the logs (--redact included)
    const report = buildReport(state, reportOptionsOf(cfg, io.version));
    report.inputs = report.inputs.filter((i) => i.name !== '(store)');
    io.out(await renderReport(report, cfg));
    return 0;
  } catch (err) {
    if (io.signal?.aborted && !(err instanceof InterruptedError)) throw new InterruptedError('interrupted');
    throw err;
  } finally {
    io.signal?.removeEventListener('abort', onAbort);
    store.close();
  }
}

/** table (aligned text), json (array of objects) or csv (RFC 4180). Strings are made safe for a terminal. */
export function formatRows(columns: string[], rows: unknown[][], format: string): string {
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  if (format === 'json') {
    return JSON.stringify(rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, typeof r[i] === 'string' ? redactSecrets(r[i] as string) : r[i]]))), null, 2) + '\n';
  }
  if (format === 'csv') {
    const esc = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    return [columns.map(esc).join(','), ...rows.map((r) => r.map((v) => esc(redactSecrets(cell(v)))).join(','))].join('\n') + '\n';
  }
  const text = rows.map((r) => r.map((v) => safeText(cell(v))));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...text.map((r) => r[i]!.length))));
  const line = (r: string[]) => r.map((v, i) => (v.length > widths[i]! ? v.slice(0, widths[i]! - 1) + '…' : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n') + `\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
}
