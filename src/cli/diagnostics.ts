/*! Diagnostics on stderr only: per-input skip summaries, input errors, and --verbose per-line reasons. */

import type { ScanReport } from '../analyze/report.js';
import { filteredAway, formatCount, nothingRead } from '../analyze/report.js';
import { filterNote } from '../render/format.js';
import { safeText, truncate } from '../render/text-safety.js';

/** Formats the end-of-scan summary lines (empty when nothing was skipped or failed). */
export function summarizeDiagnostics(r: ScanReport): string[] {
  const out: string[] = [];
  for (const i of r.inputs) {
    const name = safeText(i.name);
    if (i.error !== null) out.push(`audit-scan: ${name}: ${safeText(i.error)}`);
    const skipped = i.skippedLines + i.skippedItems;
    if (skipped > 0) {
      const reasons = Object.entries(i.skipReasons).map(([k, n]) => `${formatCount(n)} ${safeText(k)}`).join(', ');
      const what = i.skippedItems > 0 && i.skippedLines === 0 ? 'items' : 'lines';
      const of = what === 'lines' ? ` of ${formatCount(i.lines)}` : '';
      out.push(`audit-scan: ${name}: skipped ${formatCount(skipped)}${of} ${what} (${reasons})`);
    }
    if (i.repairedLines > 0) out.push(`audit-scan: ${name}: repaired ${formatCount(i.repairedLines)} lines (invalid UTF-8 or NUL bytes)`);
    if (i.duplicateEvents > 0) out.push(`audit-scan: ${name}: ${formatCount(i.duplicateEvents)} duplicate events (same auditID and stage) counted once`);
    if (i.looksLike !== null) out.push(`audit-scan: ${name}: no audit events or etcd entries (${safeText(i.looksLike)})`);
    if (i.implausibleTimes > 0) {
      const k = i.implausibleKinds;
      const parts = [
        k.zero ? `${formatCount(k.zero)} before 1971: Go's zero time 0001-01-01, the Unix epoch, or an unset clock` : '',
        k.future ? `${formatCount(k.future)} more than a day in the future` : '',
        k.far ? `${formatCount(k.far)} far from the rest of the input` : '',
      ].filter((x) => x);
      out.push(`audit-scan: ${name}: ${formatCount(i.implausibleTimes)} ${i.implausibleTimes === 1 ? 'event has a time that cannot' : 'events have times that cannot'} be real (${parts.join('; ')}); left out of the time analysis, counted everywhere else`);
    }
  }
  if (r.inputs.length > 1 && nothingRead(r)) out.push('audit-scan: nothing to analyse: no input held audit events or etcd entries');
  if (r.filters !== null && !nothingRead(r)) out.push(`audit-scan: ${filteredAway(r) ? 'nothing to analyse: ' : ''}${safeText(filterNote(r.filters, r.totals))}`);
  if (r.groupsCapped !== null) {
    const n = Object.values(r.groupsCapped.foldedRequests).reduce((a, b) => a + b, 0);
    out.push(`audit-scan: group cap hit (--max-groups): ${formatCount(r.groupsCapped.foldedGroups)} small groups with ${formatCount(n)} requests were folded into "other"; a kept group's count may be short by up to ${formatCount(r.groupsCapped.maxCountError)}`);
  }
  if (r.totals.pendingEvicted > 0) out.push(`audit-scan: ${formatCount(r.totals.pendingEvicted)} in-flight requests exceeded the dedup window and may be counted twice`);
  return out;
}

/** A --verbose line: "file:line: reason" and the line cut to the width. */
export function formatSkip(input: string, where: string, reason: string, text: string, width: number): string {
  const head = `${safeText(input)}:${where}: ${safeText(reason)}`;
  if (text.length === 0) return head;
  return `${head}\n  ${truncate(safeText(text), Math.max(20, width - 2))}`;
}
