/*! --output table (the default): findings, list groups, etcd ranges and inputs as terminal tables (cli-table3),
 * fitted to the terminal width. Every string from the log passes safeText() first. */

import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import { apfOf, nothingRead, type AnyFinding, type GroupReport, type ScanReport } from '../analyze/report.js';
import { sparkline } from './sparkline.js';
import { squeeze } from '../analyze/time-analysis.js';
import { etcdRangeRow, formatBytes, formatCount, formatRatio, orDash, shortTime, servedCell, noRvCell, noFindingsText, etcdPrefixNote, queryUnknownNote, wrapperNote } from './format.js';
import { safeText, truncate } from './text-safety.js';

/** How to draw. */
export interface TableOptions {
  chalk: ChalkInstance;
  width: number;
  showApf: boolean;
}

const PLAIN_CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
};

interface Col {
  head: string;
  min: number;
  flex: number; // share of spare width
  align?: 'left' | 'right';
}

/** Lays out columns in `width`: fixed minimums first, spare width shared by flex weight. */
function fitColumns(cols: Col[], rows: string[][], width: number): number[] {
  const natural = cols.map((c, i) => Math.max(c.head.length, ...rows.map((r) => r[i]!.length)));
  // Numbers and times (flex 0) are never cut; text columns start at their minimum and share what is left.
  const widths = cols.map((c, i) => (c.flex === 0 ? natural[i]! : Math.min(natural[i]!, Math.max(c.min, c.head.length))));
  const chrome = 2 * (cols.length - 1);
  let spare = width - chrome - widths.reduce((s, w) => s + w, 0);
  // Give each column what it wants, flex columns last and in proportion.
  for (let pass = 0; pass < 3 && spare > 0; pass++) {
    const wanting = cols.map((_, i) => i).filter((i) => natural[i]! > widths[i]!);
    if (wanting.length === 0) break;
    const totalFlex = wanting.reduce((s, i) => s + cols[i]!.flex, 0);
    let used = 0;
    for (const i of wanting) {
      const share = Math.max(1, Math.floor((spare * cols[i]!.flex) / totalFlex));
      const add = Math.min(share, natural[i]! - widths[i]!);
      widths[i]! += add;
      used += add;
    }
    spare -= used;
    if (used === 0) break;
  }
  return widths;
}

function drawTable(cols: Col[], rows: string[][], width: number, chalk: ChalkInstance): string {
  const widths = fitColumns(cols, rows, width);
  const t = new Table({
    head: cols.map((c, i) => chalk.bold(truncate(c.head, widths[i]!))),
    chars: PLAIN_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    colAligns: cols.map((c) => c.align ?? 'left'),
    colWidths: widths,
    wordWrap: false,
  });
  for (const r of rows) t.push(r.map((cell, i) => truncate(cell, widths[i]!)));
  return t.toString().split('\n').map((l) => l.trimEnd()).join('\n');
}

const sevColor = (c: ChalkInstance, s: AnyFinding['severity']): ((x: string) => string) =>
  s === 'critical' ? (x) => c.red.bold(x) : s === 'high' ? c.red : s === 'medium' ? c.yellow : c.dim;

/** Word-wraps plain text to width, with a hanging indent. */
function wrap(text: string, width: number, indent: string): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let cur = '';
  for (const w of words) {
    if (cur.length > 0 && cur.length + 1 + w.length > width - indent.length) {
      lines.push(cur);
      cur = w;
    } else cur = cur.length > 0 ? `${cur} ${w}` : w;
  }
  if (cur.length > 0) lines.push(cur);
  return lines.map((l, i) => (i === 0 ? l : indent + l)).join('\n');
}

/** "vector/0.34.1 (x86_64…)" → "vector/0.34.1": the product token; the full agent is in JSON and Markdown. */
function shortAgent(ua: string): string {
  const sp = ua.indexOf(' ');
  return sp < 0 ? ua : ua.slice(0, sp);
}

/** "system:serviceaccount:ns:name" → "sa:ns:name", to fit a column. */
function shortUser(u: string): string {
  return u.startsWith('system:serviceaccount:') ? 'sa:' + u.slice(22) : u;
}

function resourceLabel(g: GroupReport): string {
  const r = g.apiGroup.length > 0 ? `${g.resource}.${g.apiGroup}` : g.resource;
  if (g.namespace === null) return r;
  return g.namespace === '*' ? `${r} (${g.namespaces} ns)` : `${r} (ns ${g.namespace})`;
}

/** Renders the whole report for a terminal. */
export function renderTable(r: ScanReport, o: TableOptions): string {
  const c = o.chalk;
  const out: string[] = [];
  const t = r.totals;
  const skipped = r.inputs.reduce((s, i) => s + i.skippedLines + i.skippedItems, 0);
  const lines = r.inputs.reduce((s, i) => s + i.lines, 0);
  const events = r.inputs.reduce((s, i) => s + i.auditEvents, 0);
  out.push(
    c.bold('audit-scan') +
      `: ${r.inputs.length} input${r.inputs.length === 1 ? '' : 's'}, ${formatCount(lines)} lines, ${formatCount(events)} audit events (${formatCount(t.requests)} requests), ` +
      `${formatCount(t.etcdSlowRanges)} slow etcd reads (+${formatCount(t.etcdInternalRanges)} apiserver-internal left out), ${formatCount(skipped)} skipped`,
  );
  if (t.firstSeen !== null) out.push(`Time: ${t.firstSeen} – ${t.lastSeen}`);
  out.push(
    `Kubernetes ${r.kubernetes.version} (${safeText(r.kubernetes.reason)})` +
      (r.kubernetes.etcdVersion !== null ? `; etcd ${safeText(r.kubernetes.etcdVersion)}` : '') +
      safeText(etcdPrefixNote(r.kubernetes.etcdPrefix)),
  );
  out.push(
    `Lists: ${formatCount(t.listRequests)}, ${formatCount(t.listFromEtcd)} from etcd, ${formatCount(t.listWithoutResourceVersion)} without resourceVersion. ` +
      `Gets: ${formatCount(t.getRequests)}, ${formatCount(t.getFromEtcd)} from etcd. Nodes seen: ${formatCount(t.clusterNodes)}.`,
  );
  if (t.readsQueryUnknown > 0) out.push(c.yellow(wrap(queryUnknownNote(t.readsQueryUnknown), o.width, '  ')));
  out.push('');

  out.push(c.bold.underline('Findings'));
  if (r.findings.length === 0) out.push(nothingRead(r) ? 'Nothing to analyse: no input held audit events or etcd entries (see the notes on stderr).' : noFindingsText(r, false));
  r.findings.forEach((f, i) => {
    const sev = sevColor(c, f.severity)(f.severity.toUpperCase());
    const head = `${i + 1}. ${sev} `;
    out.push(head + wrap(safeText(f.summary), o.width, '   '));
    out.push('   ' + c.bold('Fix: ') + wrap(safeText(f.fix), o.width - 8, '        '));
    const apf = apfOf(f);
    if (o.showApf && apf && (f.severity === 'critical' || f.severity === 'high')) {
      out.push('   APF (kubectl apply -f -):');
      for (const l of apf.trimEnd().split('\n')) out.push('     ' + safeText(l));
    }
    if ('sparkline' in f && f.sparkline.length > 0) {
      const w = Math.max(10, Math.min(f.sparkline.length, o.width - 6));
      out.push(`   ${c.cyan(sparkline(squeeze(f.sparkline, w)))}`);
    }
  });
  out.push('');

  out.push(c.bold.underline(`List groups (worst first, ${Math.min(r.listGroups.length, r.listGroupsTotal)} of ${r.listGroupsTotal})`));
  const multiDay = t.firstSeen !== null && t.lastSeen !== null && t.firstSeen.slice(0, 10) !== t.lastSeen.slice(0, 10);
  const cols: Col[] = [
    { head: '#', min: 2, flex: 0, align: 'right' },
    { head: 'client', min: 13, flex: 2 },
    { head: 'user', min: 12, flex: 1 },
    { head: 'resource', min: 9, flex: 1 },
    { head: 'selector', min: 20, flex: 3 },
    { head: 'reqs', min: 4, flex: 0, align: 'right' },
    { head: 'nodes', min: 5, flex: 0, align: 'right' },
    { head: 'no RV', min: 5, flex: 0, align: 'right' },
    { head: 'etcd', min: 4, flex: 0, align: 'right' },
    { head: 'read/req', min: 8, flex: 0, align: 'right' },
    { head: 'ret/req', min: 7, flex: 0, align: 'right' },
    { head: 'amp', min: 5, flex: 0, align: 'right' },
    { head: 'first–last', min: multiDay ? 23 : 17, flex: 0 },
  ];
  const rows = r.listGroups.map((g, i) => [
    String(i + 1),
    safeText(shortAgent(g.userAgent) || '(none)'),
    safeText(shortUser(g.username)),
    safeText(resourceLabel(g)),
    safeText(g.selector || '–'),
    formatCount(g.requests),
    formatCount(g.nodes),
    noRvCell(g),
    servedCell(g, 'etcd'),
    orDash(g.objectsReadPerRequest, formatCount),
    orDash(g.objectsReturnedPerRequest, (x) => (g.figureSources.objectsReturned === 'estimate-objects-per-node' ? '~' : '') + formatCount(x)),
    orDash(g.amplification, formatRatio),
    `${shortTime(g.firstSeen, multiDay)}–${shortTime(g.lastSeen, multiDay)}`,
  ]);
  out.push(rows.length > 0 ? drawTable(cols, rows, o.width, c) : 'No list requests.');
  if (r.listGroups.some((g) => g.estimated)) out.push(c.dim('~ estimated: objects under the prefix ÷ nodes seen (no RequestResponse-level audit for this group).'));
  if (r.groupsCapped !== null) {
    const n = Object.values(r.groupsCapped.foldedRequests).reduce((a, b) => a + b, 0);
    out.push(c.yellow(`other: ${formatCount(r.groupsCapped.foldedGroups)} small groups (${formatCount(n)} requests) folded by the group cap; counts above may be short by up to ${formatCount(r.groupsCapped.maxCountError)}.`));
  }
  out.push('');

  if (r.timeline.series.length > 0 && r.timeline.series[0]!.points.length > 1) {
    out.push(c.bold.underline(`Requests over time (${r.timeline.series[0]!.points[0]![0].slice(11, 19)} – ${r.timeline.series[0]!.points[r.timeline.series[0]!.points.length - 1]![0].slice(11, 19)}, ${r.timeline.bucketSeconds} s buckets)`));
    const all = r.timeline.series[0]!.points;
    const t0 = Date.parse(all[0]![0]);
    const t1 = Date.parse(all[all.length - 1]![0]);
    const labelW = Math.min(40, r.timeline.series.reduce((m, s) => Math.max(m, s.key.length), 0));
    const cols = Math.max(10, o.width - labelW - 10);
    for (const s of r.timeline.series) {
      // Dense per-column maxima over the whole window, so every line shares one time axis.
      const bins = new Array<number>(cols).fill(0);
      for (const [t, n] of s.points) {
        const i = t1 > t0 ? Math.min(cols - 1, Math.floor(((Date.parse(t) - t0) / (t1 - t0)) * cols)) : 0;
        bins[i] = Math.max(bins[i]!, n);
      }
      const peak = bins.reduce((m, x) => Math.max(m, x), 0) / r.timeline.bucketSeconds;
      out.push(`${truncate(safeText(s.key), labelW).padEnd(labelW)} ${c.cyan(sparkline(bins))} ${peak.toFixed(0)}/s`);
    }
    out.push('');
  }

  if (r.etcdRanges.length > 0) {
    out.push(c.bold.underline('Slow etcd reads by range'));
    const ecols: Col[] = [
      { head: 'key', min: 16, flex: 3 },
      { head: 'resource', min: 8, flex: 1 },
      { head: 'reads', min: 5, flex: 0, align: 'right' },
      { head: 'objects/read', min: 12, flex: 0, align: 'right' },
      { head: 'bytes/read', min: 10, flex: 0, align: 'right' },
      { head: 'max [ms]', min: 8, flex: 0, align: 'right' },
      { head: 'note', min: 8, flex: 2 },
    ];
    const erows = r.etcdRanges.map((e) => etcdRangeRow(e, safeText));
    out.push(drawTable(ecols, erows, o.width, c));
    out.push('');
  }

  out.push(c.bold.underline('Inputs'));
  const icols: Col[] = [
    { head: 'input', min: 10, flex: 3 },
    { head: 'lines', min: 5, flex: 0, align: 'right' },
    { head: 'audit', min: 5, flex: 0, align: 'right' },
    { head: 'etcd', min: 4, flex: 0, align: 'right' },
    { head: 'other', min: 5, flex: 0, align: 'right' },
    { head: 'skipped', min: 7, flex: 0, align: 'right' },
    { head: 'note', min: 8, flex: 2 },
  ];
  const irows = r.inputs.map((i) => [
    safeText(i.name),
    formatCount(i.lines),
    formatCount(i.auditEvents),
    formatCount(i.etcdEntries),
    formatCount(i.otherLines),
    formatCount(i.skippedLines + i.skippedItems),
    safeText([i.gzip ? 'gzip' : '', i.format === 'documents' ? 'JSON documents' : '', wrapperNote(i.wrappers), i.error !== null ? `error: ${i.error}` : ''].filter((x) => x).join(', ')),
  ]);
  out.push(drawTable(icols, irows, o.width, c));
  return out.join('\n') + '\n';
}
