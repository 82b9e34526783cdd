/*! `audit-scan partial` and `audit-scan merge` (issue 24): a scan shared out across processes or machines, and
 * its parts merged into the report one scan gives. Wiring only; the work is in parallel/partial.ts. */

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { Command, Option } from 'commander';
import { InputError, UsageError } from '../../model/errors.js';
import { expandSources } from '../../input/sources.js';
import { resolveConfig, type Env, type ScanConfig } from '../config.js';
import { addScanOptions, parseSubcommand, type CommandName } from '../program.js';
import { noteCopy, renderReport, reportOptionsOf, writeApf } from './scan.js';
import { buildReport, filteredAway, nothingRead } from '../../analyze/report.js';
import { summarizeDiagnostics } from '../diagnostics.js';
import { safeText } from '../../render/text-safety.js';
import { loadEngine } from '../../decode/engine/engine.js';
import { countingOf, commandOf, makePartial, mergeParts, parseShard, planPieces, readCopySpec, universeOf } from '../../parallel/partial.js';
import { toJson } from '../../parallel/codec.js';


/** Scan options a partial takes: those that change what is counted or how it is judged. */
const PARTIAL_FLAGS = new Set(['--kube-version', '--etcd-version', '--etcd-prefix', '--syslog-year', '--objects', '--consistent-list-from-cache', '--watch-cache-disabled', '--since', '--until', '--user', '--verb', '--resource', '--namespace', '--bucket', '--gap', '--max-groups', '--engine']);
/** Scan options merge takes: how the report is shown. */
const MERGE_FLAGS = new Set(['--output', '--top', '--color', '--no-color', '--width', '--apf', '--apf-out', '--redact', '--redact-key', '--strict']);

interface ShardIO {
  stdin: Readable;
  stdout: Writable;
  stdoutIsTTY: boolean;
  write: (s: string) => Promise<boolean>;
  err: (s: string) => void;
  env: Env;
  version: string;
  commandName?: CommandName;
}

/** The commander command of `audit-scan partial` or `audit-scan merge`: for parsing and shell completion. */
export function shardCommand(name: string, commandName = 'audit-scan'): Command {
  const p = new Command(`${commandName} ${name}`);
  p.helpOption('-h, --help', 'show this help');
  const flags = name === 'partial' ? PARTIAL_FLAGS : MERGE_FLAGS;
  addScanOptions(p, flags);
  if (name === 'partial') {
    p.description('Read a share of the inputs and write a partial result (gzip JSON) to stdout, for audit-scan merge')
      .argument('[inputs...]', 'files or directories (or --manifest)')
      .addOption(new Option('--manifest <file>', 'the inputs, one path a line (relative paths from the file’s folder)'))
      .addOption(new Option('--shard <i/N>', 'read the i-th of N equal shares of the inputs’ bytes (1..N); big plain files are cut by byte range'))
      .addOption(new Option('--skip-copies <file>', 'leave out the requests merge --copies found repeated in an earlier input (the second read a scan does)'))
      .addOption(new Option('--beside-audit', 'keep the apiserver’s own log’s requests as evidence for the audit’s groups, as one scan of both does (give it to every part when the parts hold audit and apiserver logs)'));
    p.addHelpText('after', `\nExamples:\n  ${commandName} partial a.log b.log.gz etcd.log > part.json.gz\n  seq 1 8 | xargs -P 8 -I{} sh -c '${commandName} partial --manifest inputs.txt --shard {}/8 > part-{}.json.gz'\n  ${commandName} merge part-*.json.gz\n\ndocs/scale-out.md: the Kubernetes Indexed Job, Spark, Dask, Argo.\n`);
  } else {
    p.description('Merge partial results into the report one scan of all their inputs gives')
      .argument('[parts...]', 'files written by audit-scan partial')
      .addOption(new Option('--copies', 'print what to leave out of copies of one log under two names (for partial --skip-copies), not the report'));
    p.addHelpText('after', `\nExamples:\n  ${commandName} merge part-*.json.gz                 # the report, as one scan of every part's inputs\n  ${commandName} merge -o json part-*.json.gz > scan.json\n  ${commandName} merge --copies part-*.json.gz > copies.json   # then: partial --skip-copies copies.json …\n`);
  }
  return p;
}

/** Parses and runs `audit-scan partial …` or `audit-scan merge …`; returns the exit code. */
export async function runShardCommand(argv: string[], io: ShardIO): Promise<number> {
  const [name, ...rest] = argv;
  const commandName = io.commandName ?? 'audit-scan';
  const p = shardCommand(name!, commandName);
  const parsed = parseSubcommand(p, rest, `${commandName} ${name}`, (s) => io.stdout.write(s), io.err);
  if (parsed !== null) return parsed;
  const opts = p.opts() as Record<string, unknown>;
  return name === 'partial' ? runPartial(p.args, opts, rest, io) : runMerge(p.args, opts, io);
}

async function runPartial(args: string[], opts: Record<string, unknown>, command: string[], io: ShardIO): Promise<number> {
  if (io.stdoutIsTTY) throw new UsageError('partial: the part is gzip, written to stdout: redirect it (audit-scan partial … > part.json.gz)');
  let files = args;
  if (typeof opts.manifest === 'string') {
    if (args.length > 0) throw new UsageError('partial: give the inputs in --manifest or as arguments, not both');
    files = readManifest(opts.manifest);
  }
  if (files.length === 0) throw new UsageError('partial: no inputs (audit-scan partial INPUTS… or --manifest FILE)');
  const cfg = resolveConfig(files, opts, io.env);
  const shard = typeof opts.shard === 'string' ? parseShard(opts.shard) : null;
  const { sources, problems } = await expandSources(cfg.files);
  const universe = universeOf(sources, problems);
  const skip = typeof opts.skipCopies === 'string' ? await readCopySpec(opts.skipCopies, universe.digest) : null;
  const seedText = io.env.env.AUDIT_SCAN_SHARD_SEED;
  const seed = seedText !== undefined && /^\d+$/.test(seedText) ? Number(seedText) : null;
  const pieces = await planPieces(sources, shard, seed);
  const engine = cfg.engine === 'js' ? null : loadEngine().engine;
  const { lines, failures } = await makePartial({ sources, universe, pieces, counting: countingOf(cfg, opts.besideAudit === true), nowMs: cfg.time.nowMs, engine, skipCopies: skip, shard, command, version: io.version, stdin: io.stdin });
  await writeGzip(io.stdout, lines);
  for (const f of failures) io.err(`audit-scan: ${safeText(f.name)}: ${safeText(f.message)}\n`);
  return failures.length > 0 ? 1 : 0;
}

/** The paths of a manifest: one a line; blank lines and # comments skipped; relative to the manifest's folder. */
function readManifest(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(`--manifest: ${path}: ${(err as Error).message}`);
  }
  const base = dirname(path);
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('#'))
    .map((l) => {
      if (l === '-') throw new UsageError('--manifest: - (stdin) cannot be shared out');
      return isAbsolute(l) ? l : join(base, l);
    });
}

/** Writes `lines` gzipped to `out`, resolving when they are flushed (EPIPE is no error: the reader went away). */
function writeGzip(out: Writable, lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const gz = createGzip();
    gz.on('error', reject);
    gz.on('data', (c: Buffer) => {
      if (!out.write(c)) gz.pause();
    });
    out.on('drain', () => gz.resume());
    gz.on('end', () => resolve());
    out.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? resolve() : reject(e)));
    for (const l of lines) gz.write(l + '\n');
    gz.end();
  });
}

async function runMerge(parts: string[], opts: Record<string, unknown>, io: ShardIO): Promise<number> {
  const engine = loadEngine().engine;
  const m = await mergeParts(parts, io.version, engine);
  if (opts.copies === true) {
    await io.write(JSON.stringify(toJson(m.copies ?? { format: 'audit-scan-copies', formatVersion: m.header.formatVersion, universe: m.universe.digest, copies: [] }), null, 1) + '\n');
    if (m.copies === null) io.err('audit-scan: merge: no input repeats another\'s requests: nothing to leave out\n');
    return 0;
  }
  const c = m.header.counting;
  const base = resolveConfig([], opts, io.env);
  const cfg: ScanConfig = {
    ...base,
    kubeVersion: c.kubeVersion,
    etcdVersion: c.etcdVersion,
    etcdPrefix: c.etcdPrefix,
    objectsGiven: new Map(c.objectsGiven),
    consistentListFromCache: c.consistentListFromCache,
    watchCacheDisabled: new Set(c.watchCacheDisabled),
    maxGroups: c.maxGroups,
    time: m.state.timeOptions,
  };
  const state = m.state;
  const notes: string[] = [];
  const names = (i: number): string => state.inputs[i]!.name;
  if (m.spec !== null) {
    for (const x of m.spec.copies) notes.push(noteCopy(state.inputs[x.input]!, x.counted, x, names, null));
  } else if (m.copies !== null) {
    for (const x of m.copies.copies) notes.push(noteCopy(state.inputs[x.input]!, x.counted, x, names, 'a merge cannot read the inputs again, so they are counted twice'));
    if (m.independent) {
      // --skip-copies names inputs by their place in one list: parts made apart have none in common
      notes.push('audit-scan: merge: to count them once, make the parts that hold the copies from one list (partial --manifest, then merge --copies and partial --skip-copies: docs/scale-out.md)');
    } else {
      const redo = [...m.holders].filter(([, h]) => h.segments.some((s) => m.copies!.copies.some((x) => x.input === s.input))).map(([path, h]) => '  ' + safeText(commandOf(h, 'copies.json', path)));
      notes.push(`audit-scan: merge: to count them once, as one scan does: audit-scan merge --copies ${parts.map(safeText).join(' ')} > copies.json, then make again the parts that hold a copy:\n${redo.join('\n')}\nand merge again`);
    }
  }
  const report = buildReport(state, reportOptionsOf(cfg, io.version));
  const diagnostics = m.problems.map((pr) => `audit-scan: ${safeText(pr.name)}: ${pr.message}`).concat(m.notes, summarizeDiagnostics(report), notes);
  const apf = cfg.apfOut === null ? null : writeApf(report, cfg.apfOut);
  if (apf !== null) diagnostics.push(apf.message);
  const out = await renderReport(report, cfg);
  await io.write(out);
  for (const d of diagnostics) io.err(d + '\n');
  if (apf !== null && !apf.ok) return 2;
  const hardProblems = m.problems.filter((pr) => !pr.message.startsWith('same file'));
  if (m.failures.length > 0 || hardProblems.length > 0) return 1;
  if (report.inputs.length > 0 && (nothingRead(report) || filteredAway(report))) return 1;
  if (cfg.strict && report.inputs.some((i) => i.skippedLines + i.skippedItems > 0)) return 1;
  return 0;
}
