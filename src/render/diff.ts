/*! One job: a DiffReport (analyze/diff.ts) as text, Markdown, HTML or JSON. Every string from the logs (clients,
 * users, selectors, summaries) is made safe for its medium: terminal controls stripped, Markdown and HTML escaped. */

import type { DiffReport, GroupChange, GroupSide } from '../analyze/diff.js';
import { escapeHtml as h, escapeMarkdown as md, redactJson, safeText, UNSAFE_IN_JSON } from './text-safety.js';
import { rateChart } from './svg.js';
import { drawTable, wrapLines, type Col } from './layout.js';

const num = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : Number.isInteger(x) ? x.toLocaleString('en-US') : x.toLocaleString('en-US', { maximumFractionDigits: 2 }));
const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${Math.round(x * 100)}%`);
const arrow = (b: string, a: string): string => (b === a ? a : `${b} → ${a}`);
const pick = <K extends keyof GroupSide>(s: GroupSide | null, k: K): GroupSide[K] | null => (s === null ? null : s[k]);

/** The cells of one group's row, unescaped. */
function groupCells(g: GroupChange): string[] {
  const whatIf = g.whatIf === null ? '' : `predicted ${num(g.whatIf.predictedEtcdPerMinute)}/min, actual ${num(g.whatIf.actualEtcdPerMinute)}/min`;
  return [
    g.change,
    g.client,
    g.username,
    g.verb,
    g.resource,
    g.selector || '–',
    arrow(num(pick(g.before, 'perMinute')), num(pick(g.after, 'perMinute'))),
    arrow(num(pick(g.before, 'etcdPerMinute')), num(pick(g.after, 'etcdPerMinute'))),
    arrow(pct(pick(g.before, 'etcdShare')), pct(pick(g.after, 'etcdShare'))),
    arrow(num(pick(g.before, 'objectsReadPerRequest')), num(pick(g.after, 'objectsReadPerRequest'))),
    arrow(num(pick(g.before, 'amplification')), num(pick(g.after, 'amplification'))),
    arrow(num(pick(g.before, 'p99Ms')), num(pick(g.after, 'p99Ms'))),
    // a group not compared says why where a what-if would be (it has none: it is on one side only)
    whatIf || g.note || '–',
  ];
}

const GROUP_HEAD = ['change', 'client', 'user', 'verb', 'resource', 'selector', 'requests/min', 'etcd reads/min', 'from etcd', 'read/req', 'amplification', 'p99 ms', 'the earlier fix: what-if'];

/** The groups worth a row: every change, and the unchanged ones only when nothing changed. */
function rows(d: DiffReport, top: number): GroupChange[] {
  const changed = d.groups.filter((g) => g.change !== 'same');
  return (changed.length > 0 ? changed : d.groups).slice(0, top);
}

/** A side in one line, unescaped: its source, start and end come from the report or the command line, so each
 * medium escapes the whole line (safeText, md, h) before it is printed. */
function sideLine(s: DiffReport['before']): string {
  return `${s.label}: ${s.source}, ${s.start ?? '?'} – ${s.end ?? '?'} (${num(s.minutes)} min): ${num(s.requestsPerMinute)} requests/min, ${num(s.etcdPerMinute)} etcd reads/min, ${num(s.nodes)} nodes${s.kubernetes !== null ? `, read as Kubernetes ${s.kubernetes}` : ''}`;
}

/** What a finding is about, unescaped: its subject, and a client finding's resource and selector shape. */
const aboutOf = (f: DiffReport['findings'][number]): string => [f.subject, f.resource ?? '', f.selector ?? ''].filter((x) => x !== '').join(' ');

/** "40 → 0 etcd reads/min": what a finding's change is judged by; '' for a finding with no count. */
const rates = (f: DiffReport['findings'][number]): string =>
  f.figure === null ? '' : `${arrow(num(f.perMinuteBefore), num(f.perMinuteAfter))} ${f.figure}${f.figure === 'peak TokenRequests/s' ? '' : '/min'}${f.whatIf !== null ? `, a ${num(f.whatIf.proposedJitterSeconds)} s jitter predicted ${num(f.whatIf.predictedPeakPerSecond)}/s` : ''}`;

/** "low → medium", from the two sides' severities as their reports wrote them (unescaped). */
const severities = (f: DiffReport['findings'][number]): string => `${f.severityBefore ?? '–'} → ${f.severityAfter ?? '–'}`;

function verdict(d: DiffReport): string {
  const worse = d.groups.filter((g) => g.change === 'worse' || g.change === 'new').length;
  const better = d.groups.filter((g) => g.change === 'better' || g.change === 'gone').length;
  const gone = d.findings.filter((f) => f.change === 'went away').length;
  const came = d.findings.filter((f) => f.change === 'appeared' || f.change === 'worse').length;
  return `${worse} group${worse === 1 ? '' : 's'} worse, ${better} better; ${gone} finding${gone === 1 ? '' : 's'} went away, ${came} appeared or got worse${d.worse ? ' (exit 1)' : ''}`;
}

/** The text table's columns: narrow terminals lose the less telling ones first (drop order), as the scan's do. */
const TEXT_COLS: Col[] = [
  { head: 'change', min: 6, flex: 0 },
  { head: 'client', min: 10, flex: 2, want: 12 },
  { head: 'user', min: 10, flex: 1, drop: 2 },
  { head: 'verb', min: 4, flex: 0, drop: 7 },
  { head: 'resource', min: 8, flex: 1, want: 10 },
  { head: 'selector', min: 8, flex: 2, drop: 4 },
  { head: 'requests/min', min: 8, flex: 0, align: 'right', drop: 8 },
  { head: 'etcd reads/min', min: 8, flex: 0, align: 'right' },
  { head: 'from etcd', min: 8, flex: 0, align: 'right' },
  { head: 'read/req', min: 8, flex: 0, align: 'right', drop: 6 },
  { head: 'amplification', min: 8, flex: 0, align: 'right', drop: 5 },
  { head: 'p99 ms', min: 6, flex: 0, align: 'right', drop: 3 },
  { head: 'the earlier fix: what-if', min: 12, flex: 2, drop: 1 },
];

/** Aligned text for a terminal of `width` columns. */
export function renderDiffText(d: DiffReport, top: number, width = 120): string {
  const para = (text: string, first = '', rest = '  '): string[] => wrapLines(text, width, first, rest);
  const out: string[] = ['audit-scan diff: did it work?', '', ...para(safeText(sideLine(d.before))), ...para(safeText(sideLine(d.after))), '', ...para(verdict(d))];
  for (const c of d.caveats) out.push(...para(`note: ${c}`));
  const body = rows(d, top).map((g) => groupCells(g).map(safeText));
  if (body.length > 0) out.push('', ...para('Groups, worst change first (rates per minute of each side’s window)'), drawTable(TEXT_COLS, body, width));
  if (d.findings.length > 0) {
    out.push('', 'Findings');
    for (const f of d.findings) out.push(...para(`${f.change}: ${safeText(f.kind)} ${safeText(aboutOf(f))} (${rates(f) ? `${rates(f)}; ` : ''}${safeText(severities(f))})${f.summaryAfter !== null ? `: ${safeText(f.summaryAfter)}` : f.summaryBefore !== null ? `: was ${safeText(f.summaryBefore)}` : ''}`, '  ', '    '));
  }
  return out.join('\n') + '\n';
}

/** Markdown for the postmortem's "did it work" section. */
export function renderDiffMarkdown(d: DiffReport, top: number): string {
  const out: string[] = ['## Did it work? Before and after', '', `- **Before:** ${md(sideLine(d.before).replace(/^[^:]+: /, ''))}`, `- **After:** ${md(sideLine(d.after).replace(/^[^:]+: /, ''))}`, `- ${md(verdict(d))}`];
  for (const c of d.caveats) out.push(`- *Note:* ${md(c)}`);
  const body = rows(d, top);
  if (body.length > 0) {
    out.push('', '| ' + GROUP_HEAD.join(' | ') + ' |', '| ' + GROUP_HEAD.map((_, i) => (i >= 6 && i <= 11 ? '---:' : '---')).join(' | ') + ' |');
    for (const g of body) out.push('| ' + groupCells(g).map(md).join(' | ') + ' |');
  }
  if (d.findings.length > 0) {
    out.push('', '| finding | about | change | per minute | severity |', '| --- | --- | --- | ---: | --- |');
    for (const f of d.findings) out.push(`| ${md(f.kind)} | ${md(aboutOf(f) || '–')} | ${f.change} | ${rates(f) || '–'} | ${md(severities(f))} |`);
  }
  return out.join('\n') + '\n';
}

/** One HTML page: the verdict, the two sides' request rates on one axis (time from each side's start), the tables. */
export function renderDiffHtml(d: DiffReport, top: number): string {
  const chart = rateChart(
    'Requests a second, from each side’s start',
    [
      // counts as they are, each side in its own bucket width: rateChart divides them by it
      { label: `${d.before.label} (${d.before.start ?? ''})`, points: d.series.before.map(([s, n]): [number, number] => [s * 1000, n]), bucketSeconds: d.series.bucketSecondsBefore },
      { label: `${d.after.label} (${d.after.start ?? ''})`, points: d.series.after.map(([s, n]): [number, number] => [s * 1000, n]), bucketSeconds: d.series.bucketSecondsAfter },
    ],
    d.series.bucketSeconds,
    [],
  );
  const tr = (cells: string[], tag = 'td') => `<tr>${cells.map((c) => `<${tag}>${h(c)}</${tag}>`).join('')}</tr>`;
  const groups = rows(d, top);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>audit-scan diff</title>',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
    '<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left}.worse,.new{color:#cf222e}.better,.gone{color:#1a7f37}</style>',
    '</head><body>',
    '<h1>Did it work? Before and after</h1>',
    `<p>${h(sideLine(d.before))}<br>${h(sideLine(d.after))}</p>`,
    `<p><strong>${h(verdict(d))}</strong></p>`,
    ...d.caveats.map((c) => `<p>Note: ${h(c)}</p>`),
    chart,
    groups.length === 0 ? '' : `<h2>Groups</h2><table>${tr(GROUP_HEAD, 'th')}${groups.map((g) => tr(groupCells(g)).replace('<tr>', `<tr class="${g.change.replace(' ', '-')}">`)).join('')}</table>`,
    d.findings.length === 0 ? '' : `<h2>Findings</h2><table>${tr(['finding', 'about', 'change', 'per minute', 'severity', 'after'], 'th')}${d.findings.map((f) => tr([f.kind, aboutOf(f) || '–', f.change, rates(f) || '–', severities(f), f.summaryAfter ?? f.summaryBefore ?? ''])).join('')}</table>`,
    '</body></html>',
    '',
  ].join('\n');
}

/** The DiffReport as JSON (its own diffSchemaVersion), secrets redacted and unsafe characters escaped. */
export function renderDiffJson(d: DiffReport): string {
  return JSON.stringify(redactJson(d), null, 2).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n';
}
