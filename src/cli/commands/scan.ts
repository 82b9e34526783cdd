/*! The scan command: expand inputs, read them into a ScanState, build the report, render it. Wiring only. */

import type { Readable } from 'node:stream';
import { Chalk } from 'chalk';
import { ScanState } from '../../analyze/scan-state.js';
import { buildReport, type ScanReport } from '../../analyze/report.js';
import { expandSources } from '../../input/sources.js';
import { readSources } from '../../scan.js';
import { renderJson } from '../../render/json.js';
import { renderMarkdown } from '../../render/markdown.js';
import { renderTable } from '../../render/table.js';
import { renderHtml } from '../../render/html.js';
import { formatSkip, summarizeDiagnostics } from '../../diagnostics.js';
import { Progress } from '../../render/progress.js';
import { Redactor } from '../../analyze/redact.js';
import type { ScanConfig } from '../config.js';

/** The result of a scan: what to print and how it went. */
export interface ScanOutcome {
  stdout: string;
  diagnostics: string[];
  report: ScanReport;
  inputFailed: boolean;
  interrupted: boolean;
}

/** Runs a scan end to end. `writeErr` receives --verbose lines as they happen. */
export async function runScan(
  cfg: ScanConfig,
  stdin: Readable,
  writeErr: (s: string) => void,
  toolVersion: string,
  shouldStop: () => boolean = () => false,
  stderrIsTTY = false,
): Promise<ScanOutcome> {
  const { sources, problems } = await expandSources(cfg.files);
  const onSkip = cfg.verbose ? (input: string, where: string, reason: string, text: string) => writeErr(formatSkip(input, where, reason, text, cfg.width) + '\n') : null;
  const state = new ScanState(cfg.etcdPrefix, onSkip, cfg.maxGroups, cfg.time);
  const total = sources.reduce((n, src) => n + (src.sizeBytes ?? 0), 0);
  const progress = Progress.wanted(total, stderrIsTTY) ? new Progress(total, writeErr) : null;
  const failures = await readSources(sources, state, {
    etcdPrefix: cfg.etcdPrefix,
    stdin,
    onSkip,
    shouldStop,
    threads: cfg.threads,
    minSplitBytes: cfg.minSplitBytes,
    maxLineBytes: cfg.maxLineBytes,
    maxGroups: cfg.maxGroups,
    onBytes: progress === null ? undefined : (n) => progress.add(n),
  });
  progress?.done();
  const report = buildReport(state, {
    kubeVersion: cfg.kubeVersion,
    etcdVersion: cfg.etcdVersion,
    consistentListFromCache: cfg.consistentListFromCache,
    watchCacheDisabled: cfg.watchCacheDisabled,
    objectsGiven: cfg.objectsGiven,
    top: cfg.top,
    toolVersion,
    redactor: cfg.redact === null ? null : new Redactor(cfg.redact.key),
  });
  const diagnostics = problems.map((p) => `audit-scan: ${p.name}: ${p.message}`).concat(summarizeDiagnostics(report));
  const stdout = renderReport(report, cfg);
  const hardProblems = problems.filter((p) => !p.message.startsWith('same file'));
  return { stdout, diagnostics, report, inputFailed: failures.length > 0 || hardProblems.length > 0, interrupted: shouldStop() };
}

/** Renders a report in the configured format. */
export function renderReport(report: ScanReport, cfg: ScanConfig): string {
  const chalk = new Chalk({ level: cfg.color ? 1 : 0 });
  return cfg.output === 'json'
      ? renderJson(report)
      : cfg.output === 'markdown'
        ? renderMarkdown(report)
        : cfg.output === 'html'
          ? renderHtml(report)
          : renderTable(report, { chalk, width: cfg.width, showApf: cfg.showApf });
}
