/*! `audit-scan diff BEFORE AFTER` and `audit-scan diff --split-at TIME LOGS` (issue 47 #1): did the fix work?
 * Wiring only: each side becomes a report in the JSON contract (a saved report as it is, a store through `scan
 * --db`, logs through a scan), and analyze/diff.ts compares them. Exit 0: nothing got worse; 1: a group or a
 * finding got worse (a canary or CI gate); 2: a side cannot be read or compared. */

import { existsSync, openSync, readFileSync, readSync, closeSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { Command, Option } from 'commander';
import { InputError, UsageError } from '../../model/errors.js';
import { resolveConfig, type Env } from '../config.js';
import { addScanOptions, parseSubcommand, type CommandName } from '../program.js';
import { runScan } from './scan.js';
import { renderJson } from '../../render/json.js';
import { checkSide, diffReports, type SideReport } from '../../analyze/diff.js';
import { renderDiffHtml, renderDiffJson, renderDiffMarkdown, renderDiffText } from '../../render/diff.js';
import { safeText } from '../../render/text-safety.js';
import { changeBrief, changeDetail, changeLabel, changeMatches, changeOf, isChangeSpec, type LogChange } from '../../analyze/changes.js';
import { ApiserverRestarts } from '../../analyze/apiserver-changes.js';
import { expandSources, openRaw } from '../../input/sources.js';
import { jsonObjectOf, rawLines } from '../../input/raw-lines.js';
import { normalizeAuditEvent } from '../../decode/audit-event.js';

/** Scan options a side of logs is read with: those that decide what is counted and how it is judged. */
const SCAN_FLAGS = new Set(['--kube-version', '--etcd-version', '--etcd-prefix', '--syslog-year', '--objects', '--consistent-list-from-cache', '--watch-cache-disabled', '--user', '--verb', '--resource', '--namespace', '--bucket', '--max-groups', '--engine']);

interface DiffIO {
  stdin: Readable;
  out: (s: string) => void;
  err: (s: string) => void;
  env: Env;
  version: string;
  commandName?: CommandName;
}

/** The commander command of `audit-scan diff`: for parsing and shell completion. */
export function diffCommand(commandName: string = 'audit-scan'): Command {
  const p = new Command(`${commandName} diff`);
  p.helpOption('-h, --help', 'show this help');
  addScanOptions(p, SCAN_FLAGS);
  p.description('Compare two sides, before and after a change: per client group, etcd reads, amplification, latency, and the findings that came or went')
    .argument('<sides...>', 'BEFORE AFTER: each a saved JSON report, a DuckDB store, or logs (a file, a directory, -); or one side of logs with --split-at')
    .addOption(new Option('--split-at <time|change>', 'cut one log into before and after: at a time (RFC 3339, as for --since), or at a change the log shows (daemonset/NS/NAME, deployment/NS/NAME, flowschema/NAME…: the first such write; apiserver-flag/NAME, apiserver-version: the first restart that changed it)'))
    .addOption(new Option('--changes', 'list the changes the log shows (FlowSchemas, priority levels, DaemonSets, Deployments, StatefulSets written by someone other than the control plane; an apiserver\'s flags or version changed at a restart, from its own log), to split at'))
    .addOption(new Option('-o, --output <format>', 'table, markdown, html or json').choices(['table', 'markdown', 'html', 'json']).default('table'))
    .addOption(new Option('--top <n>', 'group rows shown (json: all)').default('30'))
    .addOption(new Option('--width <n>', 'the table\'s width (default: the terminal\'s, else COLUMNS, else 120)'));
  p.addHelpText('after', `\nExamples:\n  ${commandName} diff before.json after.json                 # two saved reports (audit-scan -o json … > before.json)\n  ${commandName} diff --split-at 2026-11-30T14:00:00Z audit.log   # one log, cut at the change\n  ${commandName} diff -o markdown old-logs/ new-logs/ >> postmortem.md\n\nExit status: 0 nothing got worse, 1 a group or finding got worse, 2 a side cannot be read or compared.\ndocs/diff.md\n`);
  return p;
}

const DUCKDB_MAGIC = 'DUCK';

/** What a side's path holds: a saved report, a DuckDB store, or logs. */
function kindOf(path: string): 'report' | 'store' | 'logs' {
  if (path === '-' || !existsSync(path) || !statSync(path).isFile()) return 'logs';
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(64);
  const n = readSync(fd, head, 0, 64, 0);
  closeSync(fd);
  if (n >= 12 && head.subarray(8, 12).toString('latin1') === DUCKDB_MAGIC) return 'store';
  const text = head.subarray(0, n).toString('utf8').trimStart();
  return text.startsWith('{') && text.includes('"schemaVersion"') ? 'report' : 'logs';
}

/** A side as a report in the JSON contract, every group kept (no --top). */
async function sideOf(path: string, label: string, opts: Record<string, unknown>, io: DiffIO, window: { since?: string; until?: string } = {}): Promise<SideReport> {
  const kind = kindOf(path);
  if (kind === 'report') {
    let v: unknown;
    try {
      v = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new UsageError(`diff: ${label}: ${safeText(path)}: not JSON (${(err as Error).message})`);
    }
    return checked(v, `${label} (${path})`);
  }
  if (kind === 'store') {
    let text = '';
    const { runStoreCommand } = await import('./store.js');
    const code = await runStoreCommand(['scan', '--db', path, '-o', 'json', '--top', '1000000'], { stdin: io.stdin, out: (s) => (text += s), err: io.err, env: { ...io.env, stdoutIsTTY: false }, version: io.version, commandName: io.commandName });
    if (code !== 0) throw new UsageError(`diff: ${label}: ${safeText(path)}: the store could not be read (exit ${code})`);
    return checked(JSON.parse(text), `${label} (${path})`);
  }
  const cfg = resolveConfig([path], { ...opts, output: 'json', top: '1000000', ...window }, { ...io.env, stdoutIsTTY: false });
  const outcome = await runScan(cfg, io.stdin, io.err, io.version);
  for (const d of outcome.diagnostics) io.err(d + '\n');
  if (outcome.unreadable) throw new InputError(`diff: ${label}: ${safeText(path)}: could not be read`);
  return checked(JSON.parse(renderJson(outcome.report)), `${label} (${path})`);
}

function checked(v: unknown, label: string): SideReport {
  try {
    return checkSide(v, label);
  } catch (err) {
    throw new UsageError(`diff: ${safeText((err as Error).message)}`);
  }
}

/** The changes the logs show, in time order (a pass of their own over the lines): writes in the audit events, and
 * what the apiserver's restarts changed in its own log (per input). */
async function changesIn(paths: string[], opts: Record<string, unknown>, io: DiffIO): Promise<LogChange[]> {
  // klog writes no year: dated as the scan dates it (--syslog-year, else the latest year not after now)
  const { nowMs, syslogYear } = resolveConfig(['-'], opts.syslogYear === undefined ? {} : { syslogYear: opts.syslogYear }, io.env).time;
  const { sources, problems } = await expandSources(paths);
  for (const pr of problems) io.err(`audit-scan: ${safeText(pr.name)}: ${pr.message}\n`);
  const out: LogChange[] = [];
  for (const src of sources) {
    const restarts = new ApiserverRestarts(src.name, nowMs, syslogYear ?? null);
    for await (const line of rawLines(openRaw(src, io.stdin), () => {})) {
      restarts.line(line);
      const o = jsonObjectOf(line);
      if (o === null || o.verb === 'get' || o.verb === 'list' || o.verb === 'watch') continue;
      const e = normalizeAuditEvent(o, () => 'change');
      const c = e.ok ? changeOf(e.value) : null;
      if (c !== null) out.push(c);
    }
    out.push(...restarts.changes());
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** Parses and runs `audit-scan diff …`; returns the exit code. */
export async function runDiff(argv: string[], io: DiffIO): Promise<number> {
  const p = diffCommand(io.commandName);
  const parsed = parseSubcommand(p, argv, `${io.commandName ?? 'audit-scan'} diff`, io.out, io.err);
  if (parsed !== null) return parsed;
  const opts = p.opts() as Record<string, unknown>;
  const top = Number(opts.top);
  if (!Number.isInteger(top) || top < 1) throw new UsageError(`diff: --top: expected a positive whole number (got ${JSON.stringify(opts.top)})`);
  const sides = p.args;
  if (opts.changes === true) {
    if (sides.length === 0) throw new UsageError('diff: --changes: give the logs to look in');
    const found = await changesIn(sides, opts, io);
    if (found.length === 0) io.out('no changes in the logs (FlowSchemas, priority levels, DaemonSets, Deployments, StatefulSets written by someone other than the control plane; apiserver flags or versions changed at a restart)\n');
    for (const c of found) io.out(`${new Date(c.atMs).toISOString()}  ${safeText(changeLabel(c))}  ${safeText(changeDetail(c))}\n`);
    return 0;
  }
  let before: SideReport;
  let after: SideReport;
  let sources: { before: string; after: string };
  let splitAtMs: number | undefined;
  if (typeof opts.splitAt === 'string') {
    if (sides.length !== 1) throw new UsageError('diff: --split-at takes one side of logs (audit-scan diff --split-at TIME LOGS)');
    const path = sides[0]!;
    if (path === '-') throw new UsageError('diff: --split-at reads the logs twice, once a side: give files, not stdin');
    if (kindOf(path) !== 'logs') throw new UsageError(`diff: --split-at cuts logs; ${safeText(path)} is a saved report or a store`);
    let at = opts.splitAt;
    if (isChangeSpec(at)) {
      const spec = at;
      const found = await changesIn([path], opts, io);
      const hits = found.filter((c) => changeMatches(spec, c));
      const hit = hits[0];
      if (hit === undefined) {
        const seen = found.slice(0, 10).map((c) => `  ${new Date(c.atMs).toISOString()} ${changeLabel(c)} (${changeBrief(c)})`);
        throw new UsageError(`diff: --split-at ${safeText(spec)}: no such change in ${safeText(path)}${seen.length > 0 ? `; the changes it shows:\n${seen.map(safeText).join('\n')}` : ' (it shows no change: give a time)'}`);
      }
      at = new Date(hit.atMs).toISOString();
      const first = hits.length < 2 ? '' : hit.restart !== undefined ? ` (the first of ${hits.length} restarts that changed it)` : ' (the first of its writes)';
      io.err(`audit-scan: diff: split at ${safeText(changeLabel(hit))}, ${safeText(changeDetail(hit))} at ${at}${first}\n`);
    }
    const scan = async (label: string, w: { since?: string; until?: string }): Promise<SideReport> => {
      try {
        return await sideOf(path, label, opts, io, w);
      } catch (err) {
        if (err instanceof UsageError && err.message.includes('holds no requests')) throw new UsageError(`diff: --split-at ${safeText(at)}: no requests ${label === 'before' ? 'before' : 'after'} it in ${safeText(path)}: the time is outside the log (or at its edge)`);
        throw err;
      }
    };
    // the split as the scans read it (RFC 3339, or a duration back from now)
    splitAtMs = resolveConfig(['-'], { since: at }, io.env).time.filter.sinceMs ?? undefined;
    before = await scan('before', { until: at });
    after = await scan('after', { since: at });
    sources = { before: `${path} until ${at}`, after: `${path} from ${at}` };
  } else {
    if (sides.length !== 2) throw new UsageError(`diff: expected BEFORE and AFTER (got ${sides.length} side${sides.length === 1 ? '' : 's'}); or one log with --split-at TIME`);
    if (sides[0] === '-' && sides[1] === '-') throw new UsageError('diff: only one side can be stdin');
    before = await sideOf(sides[0]!, 'before', opts, io);
    after = await sideOf(sides[1]!, 'after', opts, io);
    sources = { before: sides[0]!, after: sides[1]! };
  }
  const d = diffReports(before, after, { before: 'before', after: 'after' }, sources, io.version, splitAtMs === undefined ? {} : { splitAtMs });
  const format = String(opts.output);
  // the width a scan's table takes (config.ts: the terminal's, else COLUMNS, else 120; --width wins)
  const width = resolveConfig(['-'], opts.width === undefined ? {} : { width: opts.width }, io.env).width;
  io.out(format === 'json' ? renderDiffJson(d) : format === 'markdown' ? renderDiffMarkdown(d, top) : format === 'html' ? renderDiffHtml(d, top) : renderDiffText(d, top, width));
  return d.worse ? 1 : 0;
}
