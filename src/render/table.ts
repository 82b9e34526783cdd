/*! --output table (the default): findings, list groups, etcd ranges and inputs as terminal tables, every line
 * within --width (layout.ts). Every string from the log passes safeText() first. */

import type { ChalkInstance } from 'chalk';
import { apfWarranted, nothingRead, type AnyFinding, type GroupReport, type ScanReport } from '../analyze/report.js';
import { sparkline } from './sparkline.js';
import { squeeze } from '../analyze/time-analysis.js';
import { APF_POINTER, etcdRangeRow, metricsCaption, metricsRow, evidenceText, formatCount, formatRatio, incidentWhen, methodText, msCell, noFindingsText, noOffenderText, noRvCell, orDash, overviewLines, plural, queryUnknownNote, readTotalText, servedCell, shortTime, whatIfText, wrapperNote } from './format.js';
import { safeText } from './text-safety.js';
import { cutEnd, drawTable as layTable, vw, wrapLines, type Col } from './layout.js';

/** How to draw. */
export interface TableOptions {
  chalk: ChalkInstance;
  width: number;
  showApf: boolean;
}

const sevColor = (c: ChalkInstance, s: AnyFinding['severity']): ((x: string) => string) =>
  s === 'critical' ? (x) => c.red.bold(x) : s === 'high' ? c.red : s === 'medium' ? c.yellow : c.dim;

/** "vector/0.34.1 (linux)" → "vector/0.34.1": the product and its version, to fit a column. */
function shortAgent(ua: string): string {
  const sp = ua.indexOf(' ');
  return sp < 0 ? ua : ua.slice(0, sp);
}

/** The folder all of `names` are in ("fixtures/demo/"), with its slash; '' for one name or none shared. */
export function commonDir(names: string[]): string {
  if (names.length < 2) return '';
  let p = names[0]!;
  for (const n of names) while (!n.startsWith(p)) p = p.slice(0, -1);
  const cut = p.lastIndexOf('/');
  return cut < 0 ? '' : p.slice(0, cut + 1);
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

/** Renders the whole report for a terminal. Every line fits `o.width`. */
export function renderTable(r: ScanReport, o: TableOptions): string {
  const c = o.chalk;
  const W = Math.max(40, o.width);
  const out: string[] = [];
  const para = (text: string, first = '', rest = '  ', style: (s: string) => string = (x) => x): void => {
    for (const l of wrapLines(text, W, first, rest)) out.push(style(l));
  };
  const t = r.totals;
  const sm = r.summary;
  // not "audit-scan: …": that is the form of a diagnostic on stderr, and a saved report must not look like one
  overviewLines(r, safeText).forEach((l, i) => para(i === 0 ? `audit-scan report: ${l}` : l));
  if (t.readsQueryUnknown > 0) para(queryUnknownNote(t.readsQueryUnknown), '', '  ', c.yellow);
  out.push('');

  // The first screen: who, what, and the fix, one line each.
  out.push(c.bold.underline('Summary'));
  if (r.findings.length === 0) para(nothingRead(r) ? 'Nothing to analyse: no input held audit events or etcd entries (see the notes on stderr).' : noFindingsText(r, false));
  const lone = noOffenderText(r);
  if (lone !== null) para(safeText(lone));
  for (const x of sm.offenders) para(`${safeText(x.client)}: ${safeText(x.what)} → ${safeText(x.fix)}`, sevColor(c, x.severity)(x.severity.toUpperCase()) + ' ', '    ');
  const readTotal = readTotalText(sm);
  if (readTotal !== null) para(readTotal);
  const every = whatIfText(r.whatIf);
  if (sm.offenders.length > 0 && every !== '') para(`With every fix: ${every}.`);
  out.push('');

  out.push(c.bold.underline('Findings'));
  if (r.findings.length === 0) para(noFindingsText(r, nothingRead(r)));
  r.findings.forEach((f, i) => {
    const head = `${i + 1}. ${f.severity.toUpperCase()} `;
    const ls = wrapLines(safeText(f.summary), W, head, '   ');
    ls[0] = `${i + 1}. ${sevColor(c, f.severity)(f.severity.toUpperCase())} ${ls[0]!.slice(head.length)}`;
    out.push(...ls);
    if (f.why !== undefined) para(safeText(f.why), '   Why: ', '        ', c.dim);
    const ev = 'evidence' in f ? evidenceText(f.evidence) : null;
    if (ev !== null) para(safeText(ev), '   Evidence: ', '             ', c.dim);
    para(safeText(f.fix), '   Fix: ', '        ');
    const wi = 'whatIf' in f && f.whatIf ? whatIfText(f.whatIf) : '';
    if (wi !== '') para(`${wi}.`, '   If fixed: ', '             ');
    const apf = apfWarranted(f);
    if (apf !== null && o.showApf) {
      out.push('   APF (kubectl apply -f -):');
      for (const l of apf.trimEnd().split('\n')) out.push(cutEnd('     ' + safeText(l), W));
    } else if (apf !== null) {
      para(APF_POINTER, '   APF: ', '        ', c.dim);
    }
    if ('sparkline' in f && f.sparkline.length > 0) {
      const w = Math.max(10, Math.min(f.sparkline.length, W - 3));
      out.push(`   ${c.cyan(sparkline(squeeze(f.sparkline, w)))}`);
    }
  });
  out.push('');

  if (r.incident.length > 0) {
    out.push(c.bold.underline('Incident, in time order'));
    const multi = r.incident[0]!.start.slice(0, 10) !== r.incident[r.incident.length - 1]!.end.slice(0, 10);
    for (const e of r.incident) {
      const when = incidentWhen(e, multi);
      para(safeText(e.what), `  ${when.padEnd(multi ? 29 : 17)} `, ' '.repeat(multi ? 32 : 20));
    }
    out.push('');
  }

  out.push(c.bold.underline(`List groups (worst first, ${Math.min(r.listGroups.length, r.listGroupsTotal)} of ${r.listGroupsTotal})`));
  const multiDay = t.firstSeen !== null && t.lastSeen !== null && t.firstSeen.slice(0, 10) !== t.lastSeen.slice(0, 10);
  const cols: Col[] = [
    { head: '#', min: 1, flex: 0, align: 'right' },
    // text columns keep a readable minimum: a column leaves before names are cut to a few letters
    { head: 'client', min: 11, flex: 2, want: 14 },
    { head: 'user', min: 12, flex: 1, drop: 4 },
    { head: 'resource', min: 8, flex: 1, want: 10 },
    { head: 'selector', min: 12, flex: 3, drop: 7 },
    { head: 'reqs', min: 4, flex: 0, align: 'right' },
    { head: 'nodes', min: 5, flex: 0, align: 'right', drop: 3 },
    { head: 'no RV', min: 5, flex: 0, align: 'right', drop: 5 },
    { head: 'etcd', min: 4, flex: 0, align: 'right' },
    { head: 'read/req', min: 8, flex: 0, align: 'right', drop: 8 },
    { head: 'ret/req', min: 7, flex: 0, align: 'right', drop: 6 },
    { head: 'amp', min: 3, flex: 0, align: 'right' },
    { head: 'p99', min: 3, flex: 0, align: 'right', drop: 2 },
    { head: 'first–last', min: multiDay ? 23 : 17, flex: 0, drop: 1 },
  ];
  const rows = r.listGroups.map((g, i) => [
    String(i + 1),
    safeText(shortAgent(g.userAgent) || '(none)'),
    g.apiserverLog !== undefined && g.username === '' ? `(not in log${g.apiserverLog.flowSchema !== null ? `; fs ${safeText(g.apiserverLog.flowSchema)}` : ''})` : safeText(shortUser(g.username)),
    safeText(resourceLabel(g)),
    safeText(g.selector || '–'),
    formatCount(g.requests),
    formatCount(g.nodes),
    noRvCell(g),
    servedCell(g, 'etcd'),
    orDash(g.objectsReadPerRequest, formatCount),
    orDash(g.objectsReturnedPerRequest, (x) => (g.figureSources.objectsReturned === 'estimate-objects-per-node' ? '~' : '') + formatCount(x)),
    orDash(g.amplification, formatRatio),
    orDash(g.latencyMs, (l) => msCell(l.p99)),
    `${shortTime(g.firstSeen, multiDay)}–${shortTime(g.lastSeen, multiDay)}`,
  ]);
  out.push(rows.length > 0 ? layTable(cols, rows, W, c.bold) : 'No list requests.');
  if (r.listGroups.some((g) => g.estimated)) para('~ estimated: objects under the prefix ÷ nodes seen (no RequestResponse-level audit for this group).', '', '  ', c.dim);
  if (r.groupsCapped !== null) {
    const n = Object.values(r.groupsCapped.foldedRequests).reduce((a, b) => a + b, 0);
    para(`other: ${formatCount(r.groupsCapped.foldedGroups)} small groups (${plural(n, 'request')}) folded by the group cap; counts above may be short by up to ${formatCount(r.groupsCapped.maxCountError)}.`, '', '  ', c.yellow);
  }
  out.push('');

  if (r.timeline.series.length > 0 && r.timeline.series[0]!.points.length > 1) {
    const all = r.timeline.series[0]!.points;
    para(`Requests over time (${all[0]![0].slice(11, 19)} – ${all[all.length - 1]![0].slice(11, 19)}, ${r.timeline.bucketSeconds} s buckets)`, '', '  ', (x) => c.bold.underline(x));
    const t0 = Date.parse(all[0]![0]);
    const t1 = Date.parse(all[all.length - 1]![0]);
    const labelW = Math.max(8, Math.min(40, Math.floor(W / 3), r.timeline.series.reduce((m, s) => Math.max(m, vw(s.key)), 0)));
    const width = Math.max(10, W - labelW - 10);
    for (const s of r.timeline.series) {
      // Dense per-column maxima over the whole window, so every line shares one time axis.
      const bins = new Array<number>(width).fill(0);
      for (const [tt, n] of s.points) {
        const i = t1 > t0 ? Math.min(width - 1, Math.floor(((Date.parse(tt) - t0) / (t1 - t0)) * width)) : 0;
        bins[i] = Math.max(bins[i]!, n);
      }
      const pk = bins.reduce((m, x) => Math.max(m, x), 0) / r.timeline.bucketSeconds;
      const label = cutEnd(safeText(s.key), labelW);
      out.push(`${label}${' '.repeat(labelW - vw(label))} ${c.cyan(sparkline(bins))} ${cutEnd(`${pk.toFixed(0)}/s`, 8)}`);
    }
    out.push('');
  }

  if (r.etcdRanges.length > 0) {
    out.push(c.bold.underline('Slow etcd reads by range'));
    const ecols: Col[] = [
      { head: 'key', min: 12, flex: 3, cut: 'middle' },
      { head: 'resource', min: 6, flex: 1, drop: 3 },
      { head: 'reads', min: 5, flex: 0, align: 'right' },
      { head: 'objects/read', min: 12, flex: 0, align: 'right' },
      { head: 'bytes/read', min: 10, flex: 0, align: 'right', drop: 2 },
      { head: 'max [ms]', min: 8, flex: 0, align: 'right', drop: 4 },
      { head: 'note', min: 6, flex: 2, drop: 1 },
    ];
    out.push(layTable(ecols, r.etcdRanges.map((e) => etcdRangeRow(e, safeText)), W, c.bold));
    out.push('');
  }

  if (r.metrics !== null && r.metrics.resources.length > 0) {
    out.push(c.bold.underline('Apiserver metrics'));
    para(metricsCaption(r.metrics), '', '', (x) => x);
    const mcols: Col[] = [
      { head: 'resource', min: 10, flex: 2, cut: 'middle' },
      { head: 'objects', min: 7, flex: 0, align: 'right' },
      { head: 'etcd lists', min: 10, flex: 0, align: 'right' },
      { head: 'fetched/list', min: 12, flex: 0, align: 'right', drop: 3 },
      { head: 'returned/list', min: 13, flex: 0, align: 'right', drop: 2 },
      { head: 'ratio', min: 5, flex: 0, align: 'right' },
      { head: 'cache lists', min: 11, flex: 0, align: 'right', drop: 1 },
    ];
    out.push(layTable(mcols, r.metrics.resources.slice(0, 10).map((m) => metricsRow(m, safeText)), W, c.bold));
    out.push('');
  }

  // inputs in one folder are named from it, so a narrow column shows what tells them apart
  const dir = commonDir(r.inputs.map((i) => i.name));
  out.push(c.bold.underline('Inputs') + (dir === '' ? '' : ` (in ${safeText(dir)})`));
  const icols: Col[] = [
    { head: 'input', min: 12, flex: 3, cut: 'middle', want: 28 },
    { head: 'lines', min: 5, flex: 0, align: 'right' },
    { head: 'audit', min: 5, flex: 0, align: 'right' },
    { head: 'etcd', min: 4, flex: 0, align: 'right' },
    { head: 'other', min: 5, flex: 0, align: 'right', drop: 2 },
    { head: 'skipped', min: 7, flex: 0, align: 'right' },
    { head: 'note', min: 6, flex: 2, drop: 1 },
  ];
  const irows = r.inputs.map((i) => [
    safeText(i.name.slice(dir.length)),
    formatCount(i.lines),
    formatCount(i.auditEvents),
    formatCount(i.etcdEntries),
    formatCount(i.otherLines),
    formatCount(i.skippedLines + i.skippedItems),
    safeText([i.gzip ? 'gzip' : '', i.format === 'documents' ? 'JSON documents' : '', wrapperNote(i.wrappers), i.metricSamples > 0 ? `${formatCount(i.metricSamples)} metric samples` : '', i.error !== null ? `error: ${i.error}` : ''].filter((x) => x).join(', ')),
  ]);
  out.push(layTable(icols, irows, W, c.bold));
  out.push('');
  para(methodText(r.method, safeText), '', '  ', c.dim);
  return out.join('\n') + '\n';
}
