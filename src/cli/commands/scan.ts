/*! The scan command: expand inputs, read them into a ScanState, build the report, render it. Wiring only. */

import type { Readable } from 'node:stream';
import { Chalk } from 'chalk';
import { holdsLogRequests, ScanState } from '../../aggregate/scan-state.js';
import { apfFiles, buildReport, type ReportOptions, type ScanReport } from '../../analyze/report.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandSources } from '../../input/sources.js';
import { readSources } from '../../scan/scan.js';
import { renderJson } from '../../render/json.js';
import { formatSkip, summarizeDiagnostics } from '../diagnostics.js';
import { Progress } from '../../render/progress.js';
import { Redactor } from '../../analyze/redact.js';
import type { ScanConfig } from '../config.js';
import { type InputStats, type TimeOptions } from '../../aggregate/scan-state.js';
import { findCopies, fingerprintTotal, newFingerprint } from '../../aggregate/fingerprint.js';
import { filteredAway, formatCount, nothingRead } from '../../analyze/report.js';
import { safeText } from '../../render/text-safety.js';
import { attachEngine } from '../../decode/engine/engine.js';
import type { InputFailure } from '../../segment/source.js';

/** The result of a scan: what to print and how it went. */
export interface ScanOutcome {
  stdout: string;
  diagnostics: string[];
  report: ScanReport;
  inputFailed: boolean;
  interrupted: boolean;
  /** no input held an audit event or an etcd entry: exit 1, and stderr says what the inputs looked like */
  nothingRead: boolean;
  /** --apf-out could not write its files: exit 2, as for a write error on stdout */
  writeFailed: boolean;
  /** no input could be read at all (missing, unreadable): no report goes to stdout, so `> report.html` is not
   * left holding a page about nothing */
  unreadable: boolean;
}

/** Whether an input held requests of the apiserver's own log (httplog lines, traces, timeouts). */
const hasLogRequests = holdsLogRequests;

/** Runs a scan end to end. `writeErr` receives --verbose lines as they happen. */
export async function runScan(
  cfg: ScanConfig,
  stdin: Readable,
  writeErr: (s: string) => void,
  toolVersion: string,
  signal?: AbortSignal,
  stderrIsTTY = false,
): Promise<ScanOutcome> {
  const { sources, problems } = await expandSources(cfg.files);
  const onSkip = cfg.verbose ? (input: string, where: string, reason: string, text: string) => writeErr(formatSkip(input, where, reason, text, cfg.width) + '\n') : null;
  // Fingerprints find copies of one log given twice; with one input there is nothing to compare.
  const time: TimeOptions = { ...cfg.time, fingerprint: sources.length > 1 };
  let state = new ScanState(cfg.etcdPrefix, onSkip, cfg.maxGroups, time);
  const engineNote = attachEngine(state, cfg.engine);
  const total = sources.reduce((n, src) => n + (src.sizeBytes ?? 0), 0);
  const progress = Progress.wanted(total, stderrIsTTY) ? new Progress(total, writeErr) : null;
  const read = (st: ScanState): Promise<InputFailure[]> =>
    readSources(sources, st, {
      etcdPrefix: cfg.etcdPrefix,
      stdin,
      onSkip,
      signal,
      threads: cfg.threads,
      minSplitBytes: cfg.minSplitBytes,
      maxLineBytes: cfg.maxLineBytes,
      maxGroups: cfg.maxGroups,
      onBytes: progress === null ? undefined : (n) => progress.add(n),
    });
  let failures = await read(state);
  const copyNotes: string[] = [];
  // The apiserver's own log beside an audit log: the audit counts the requests (it names their users); the log's
  // are read again as evidence for the audit's groups (APF, traces), so that none is counted twice.
  const evidence = signal?.aborted !== true && state.inputs.some((i) => i.auditEvents > 0) && state.inputs.some(hasLogRequests);
  const rereadable = sources.every((src) => src.path !== null);
  if (evidence && !rereadable) copyNotes.push("audit-scan: stdin holds audit events and the apiserver's own log: requests that carry no audit-ID in both are counted twice (pass the inputs as files to count them once)");
  if ((time.fingerprint || evidence) && signal?.aborted !== true) {
    // (copies between an audit log and the apiserver's are no copies: the log's requests are evidence then)
    const copies = time.fingerprint ? findCopies(state.inputs.map((i) => (evidence && hasLogRequests(i) ? newFingerprint() : i.fingerprint))) : new Map();
    if (copies.size > 0 || (evidence && rereadable)) {
      // Requests an earlier input already holds are left out on a second read. Only files can be read twice.
      const first = state.inputs;
      if (rereadable) {
        const engine = state.engine;
        state = new ScanState(cfg.etcdPrefix, null, cfg.maxGroups, { ...cfg.time, fingerprint: false, skipCopies: [...copies].map(([j, c]) => [j, c.skip]), ...(evidence ? { logAsEvidence: true } : {}) });
        state.engine = engine;
        failures = await read(state);
      }
      for (const [j, c] of copies) {
        const inp = state.inputs[j];
        if (inp === undefined) continue;
        copyNotes.push(noteCopy(inp, fingerprintTotal(first[j]!.fingerprint), c, (i) => first[i]!.name, rereadable ? null : 'stdin cannot be read twice, so they are counted twice (pass the inputs as files to count them once)'));
      }
    }
  }
  progress?.done();
  const report = buildReport(state, reportOptionsOf(cfg, toolVersion));
  const diagnostics = problems.map((p) => `audit-scan: ${safeText(p.name)}: ${p.message}`).concat(summarizeDiagnostics(report), copyNotes);
  if (engineNote !== null) diagnostics.unshift(engineNote);
  if (cfg.verbose) {
    for (const i of state.inputs) {
      if (i.engineRead + i.engineDeclined > 0) diagnostics.push(`audit-scan: ${safeText(i.name)}: the engine read ${formatCount(i.engineRead)} line${i.engineRead === 1 ? '' : 's'} and left ${formatCount(i.engineDeclined)} to the JavaScript path`);
    }
  }
  const apf = cfg.apfOut === null ? null : writeApf(report, cfg.apfOut);
  if (apf !== null) diagnostics.push(apf.message);
  const stdout = await renderReport(report, cfg);
  const hardProblems = problems.filter((p) => !p.message.startsWith('same file'));
  const inputFailed = failures.length > 0 || hardProblems.length > 0;
  return {
    stdout,
    diagnostics,
    report,
    inputFailed,
    interrupted: signal?.aborted === true,
    // the filters leaving nothing is no all-clear either: exit 1, as when nothing was read
    nothingRead: report.inputs.length > 0 && (nothingRead(report) || filteredAway(report)),
    writeFailed: apf !== null && !apf.ok,
    unreadable: inputFailed && report.inputs.every((i) => i.error !== null && i.lines === 0),
  };
}

/** Marks input `inp` as repeating earlier inputs' requests (`c`, of `counted` it counted on the first read) and
 * says so. `twice`: why they could not be left out (then they count twice), or null when they were. */
export function noteCopy(inp: InputStats, counted: number, c: { requests: number; of: Array<{ input: number; requests: number }> }, nameOf: (input: number) => string, twice: string | null): string {
  const biggest = [...c.of].sort((a, b) => b.requests - a.requests)[0]!;
  inp.overlaps = c.of.map((o) => ({ input: nameOf(o.input), requests: o.requests }));
  if (c.requests >= 0.99 * counted) inp.duplicateOf = nameOf(biggest.input);
  const of = c.of.map((o) => safeText(nameOf(o.input))).join(', ');
  const rest = counted - c.requests;
  const edges = rest > 0 ? `; the other ${formatCount(rest)} ${inp.duplicateOf !== null ? 'fall in the seconds at the edges of the overlap, where requests may count twice' : 'count as its own (those in the seconds at the edges of the overlap may count twice)'}` : '';
  return twice !== null
    ? `audit-scan: ${safeText(inp.name)}: ${formatCount(c.requests)} of its requests repeat ${of}'s; ${twice}`
    : inp.duplicateOf !== null
      ? `audit-scan: ${safeText(inp.name)}: a copy of ${of}: ${formatCount(c.requests)} of its ${formatCount(counted)} requests are there and counted once${edges}`
      : `audit-scan: ${safeText(inp.name)}: ${formatCount(c.requests)} of its ${formatCount(counted)} requests repeat ${of}'s and are counted once${edges}`;
}

/** What the report needs of the configuration (the scan's and --follow's). */
export function reportOptionsOf(cfg: ScanConfig, toolVersion: string): ReportOptions {
  return {
    kubeVersion: cfg.kubeVersion,
    etcdVersion: cfg.etcdVersion,
    consistentListFromCache: cfg.consistentListFromCache,
    watchCacheDisabled: cfg.watchCacheDisabled,
    objectsGiven: cfg.objectsGiven,
    top: cfg.top,
    toolVersion,
    redactor: cfg.redact === null ? null : new Redactor(cfg.redact.key),
    ...(cfg.follow === null ? {} : { windowMs: cfg.follow.windowMs }),
  };
}

/** --apf-out DIR: writes each finding's APF manifests to DIR (made if missing); says on stderr what it did. */
export function writeApf(report: ScanReport, dir: string): { ok: boolean; message: string } {
  const files = apfFiles(report);
  if (files.length === 0) return { ok: true, message: `audit-scan: --apf-out: no finding calls for APF manifests; nothing written to ${safeText(dir)}` };
  try {
    mkdirSync(dir, { recursive: true });
    for (const f of files) writeFileSync(join(dir, f.file), f.yaml);
  } catch (e) {
    return { ok: false, message: `audit-scan: --apf-out: cannot write to ${safeText(dir)}: ${safeText((e as Error).message)}` };
  }
  return { ok: true, message: `audit-scan: --apf-out: wrote ${files.map((f) => safeText(join(dir, f.file))).join(', ')} (kubectl apply -f ${safeText(dir)})` };
}

/** Renders a report in the configured format. The renderers are loaded when asked for: the table's width rules
 * (string-width, ICU's grapheme segmenter) cost a tenth of a second at start-up, which -o json never needs. */
export async function renderReport(report: ScanReport, cfg: ScanConfig): Promise<string> {
  if (cfg.output === 'json') return renderJson(report);
  if (cfg.output === 'markdown') return (await import('../../render/markdown.js')).renderMarkdown(report);
  if (cfg.output === 'html') return (await import('../../render/html.js')).renderHtml(report);
  const { renderTable } = await import('../../render/table.js');
  return renderTable(report, { chalk: new Chalk({ level: cfg.color ? 1 : 0 }), width: cfg.width, showApf: cfg.showApf });
}
