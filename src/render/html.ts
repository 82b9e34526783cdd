/*! --output html: one self-contained page for a postmortem or a ticket: no script, no external asset (a Content
 * Security Policy says so to the browser), charts as inline SVG, tables that scroll inside their own box so the
 * page fits a phone, and a print style for paper. Every string from the log goes through escapeHtml(), which
 * also strips control characters and secrets. */

import type { ImbalanceFinding } from '../analyze/apiservers.js';
import { apfWarranted, clientName, nothingRead, type GroupReport, type ScanReport } from '../analyze/report.js';
import {
  METRICS_HEAD,
  METRICS_NUMERIC,
  metricsCaption,
  metricsRow,
  APF_POINTER,
  etcdRangeRow,
  ETCD_RANGE_HEAD,
  ETCD_RANGE_NUMERIC,
  evidenceText,
  formatCount,
  groupRow,
  incidentWhen,
  methodText,
  noFindingsText,
  noOffenderText,
  overviewLines,
  plural,
  queryUnknownNote,
  readTotalText,
  whatIfText,
  wrapperNote,
} from './format.js';
import { rateChart, readReturnedChart, type Band } from './svg.js';
import type { TokenFinding } from '../analyze/time-analysis.js';
import { escapeHtml as h } from './text-safety.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const CSS = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--mute:#57606a;--line:#d0d7de;--head:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--mute:#8d96a0;--line:#30363d;--head:#161b22}}
*{box-sizing:border-box}body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:1.5rem;max-width:76rem;color:var(--fg);background:var(--bg)}
h1{font-size:1.5rem;margin:0 0 .75rem}h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
p,li,figcaption{overflow-wrap:anywhere}td{overflow-wrap:break-word;max-width:22rem}td small{color:var(--mute);overflow-wrap:anywhere}td .k,td code{white-space:nowrap;overflow-wrap:normal}td code.path{white-space:normal;overflow-wrap:anywhere;word-break:break-all}ul.overview{padding-left:1.2rem;color:var(--mute)}
.scroll{overflow-x:auto;max-width:100%;margin:.5rem 0 1rem}table{border-collapse:collapse;font-size:.9rem}
th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:var(--head)}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal}
.sev{font-weight:700;font-size:.8rem;padding:0 .35rem;border-radius:3px;color:#fff;white-space:nowrap}
.critical{background:#a40e26}.high{background:#cf222e}.medium{background:#9a6700}.low{background:#57606a}.info{background:#8c959f}
ol.findings>li{margin:0 0 1.25rem}dl{margin:.35rem 0 0;display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem}dt{color:var(--mute);font-style:italic}dd{margin:0;overflow-wrap:anywhere}
pre{background:var(--head);padding:.75rem;overflow-x:auto;max-width:100%;font-size:.85rem}code{font-size:90%;overflow-wrap:anywhere}
figure.chart{margin:1rem 0;max-width:100%}figure.chart svg{width:100%;height:auto;font:11px system-ui,sans-serif;fill:var(--fg)}
figure.chart figcaption{font-weight:600;margin-bottom:.25rem}ul.legend{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.85rem}
ul.legend span{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-.1rem;border-radius:2px}
.method,footer{color:var(--mute);font-size:.85rem}
@media (max-width:600px){body{padding:.75rem;font-size:14px}dl{grid-template-columns:1fr}dt{margin-top:.3rem}}
@media print{body{max-width:none;padding:0;font-size:10pt;color:#000;background:#fff}.scroll{overflow:visible}table{font-size:8pt}
h2{break-after:avoid}figure,ol.findings>li,tr{break-inside:avoid}pre{white-space:pre-wrap;font-size:8pt}details::details-content{content-visibility:visible;display:block}}`;

function table(head: string[], rows: string[][], numeric: Set<number>): string {
  const th = head.map((x) => `<th>${h(x)}</th>`).join('');
  const trs = rows.map((r) => `<tr>${r.map((c, i) => `<td${numeric.has(i) ? ' class="n"' : ''}>${c}</td>`).join('')}</tr>`).join('\n');
  return `<div class="scroll"><table><thead><tr>${th}</tr></thead><tbody>\n${trs}\n</tbody></table></div>`;
}

/** The list-groups table of the page: the table's columns, with who (client over user), what (resource over
 * selector) and when (times of day) stacked so that 17 columns fit a 1280 px window; each full value stays in
 * the cell's title. */
const HTML_GROUP_HEAD = ['#', 'client / user', 'resource / selector', 'requests', 'nodes', 'no RV', 'etcd', 'cache', 'read per list', 'returned per list', 'ampli\u00adfication', 'p50', 'p99', 'seen (UTC)'];
const HTML_GROUP_NUMERIC = new Set([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);

function htmlGroupRow(g: GroupReport, i: number): string[] {
  const c = groupRow(g, i, h);
  const ua = g.userAgent || '(none)';
  const who = `<span class="k" title="${h(ua)}">${h(clientName(g.userAgent, ''))}</span><br><small>${c[2]}</small>`;
  const what = `<span class="k">${c[3]}</span><br><small>${c[4]}</small>`;
  const day = (x: string | null): string => (x === null ? '–' : x.slice(11, 19));
  const multiDay = g.firstSeen !== null && g.lastSeen !== null && g.firstSeen.slice(0, 10) !== g.lastSeen.slice(0, 10);
  const seen = g.firstSeen === null ? '–' : `<span title="${h(`${g.firstSeen} – ${g.lastSeen}`)}">${h(multiDay ? `${g.firstSeen.slice(0, 10)} ${day(g.firstSeen)} – ${(g.lastSeen ?? '').slice(0, 10)} ${day(g.lastSeen)}` : `${day(g.firstSeen)}–${day(g.lastSeen)}`)}</span>`;
  return [c[0]!, who, what, ...c.slice(5, 15), seen];
}

const sev = (s: string): string => `<span class="sev ${h(s)}">${h(s.toUpperCase())}</span>`;

/** The incident's events as shaded bands of the rate chart. */
function bandsOf(r: ScanReport): Band[] {
  const kinds: Record<string, Band['kind']> = { 'apiserver-restart': 'restart', 'audit-gap': 'gap', 'list-storm': 'storm', 'token-wave': 'token' };
  return r.incident
    .filter((e) => kinds[e.kind] !== undefined)
    .map((e) => ({ start: Date.parse(e.start), end: Date.parse(e.end), label: `${e.start.slice(11, 19)} ${e.what}`, kind: e.kind === 'list-storm' && /% from etcd/.test(e.what) ? 'storm-etcd' : kinds[e.kind]! }));
}

/** Renders the report as an HTML document. */
export function renderHtml(r: ScanReport): string {
  const sm = r.summary;
  const out: string[] = [];
  out.push('<!doctype html>', '<html lang="en"><head><meta charset="utf-8">', `<meta http-equiv="Content-Security-Policy" content="${CSP}">`, '<meta name="viewport" content="width=device-width,initial-scale=1">');
  out.push(`<title>audit-scan report${sm.window.start !== null ? ` ${h(sm.window.start.slice(0, 16).replace('T', ' '))} UTC` : ''}</title><style>${CSS}</style></head><body>`);
  out.push('<h1>Control-plane load: audit-scan report</h1>', '<ul class="overview">');
  for (const l of overviewLines(r, h)) out.push(`<li>${l}</li>`);
  out.push(`<li>Inputs: ${r.inputs.map((i) => `<code>${h(i.name)}</code>`).join(', ')}</li>`);
  if (r.totals.readsQueryUnknown > 0) out.push(`<li>${h(queryUnknownNote(r.totals.readsQueryUnknown))}</li>`);
  out.push('</ul>');

  out.push('<h2 id="summary">Summary</h2>');
  if (r.findings.length === 0) out.push(`<p>${h(noFindingsText(r, nothingRead(r)))}</p>`);
  const lone = noOffenderText(r);
  if (lone !== null) out.push(`<p>${h(lone)}</p>`);
  if (sm.offenders.length > 0) {
    out.push('<ul>');
    for (const x of sm.offenders) out.push(`<li>${sev(x.severity)} <b>${h(x.client)}</b>: ${h(x.what)}. <b>Fix:</b> ${h(x.fix)}.</li>`);
    out.push('</ul>');
  }
  const readTotal = readTotalText(sm);
  if (readTotal !== null) out.push(`<p>${h(readTotal)}</p>`);
  const every = whatIfText(r.whatIf);
  if (sm.offenders.length > 0 && every !== '') out.push(`<p><b>With every fix:</b> ${h(every)}.</p>`);

  const series = r.timeline.series.slice(0, 6).map((s) => ({ label: s.key, points: s.points.map(([t, n]): [number, number] => [Date.parse(t), n]) }));
  if (series.length > 0 && series[0]!.points.length > 1) out.push(rateChart(`Requests per second (${r.timeline.bucketSeconds} s buckets); shaded: restarts, gaps, storms, token waves`, series, r.timeline.bucketSeconds, bandsOf(r)));
  // each apiserver's rate, its restarts shaded: a restarted apiserver left idle shows as a line that stays low
  const ap = r.apiservers;
  if (ap.identified) {
    const perServer = ap.apiservers.slice(0, 6).map((a) => ({ label: a.name, points: a.points.map(([t, n]): [number, number] => [Date.parse(t), n]) }));
    const marks = bandsOf(r).filter((b) => b.kind === 'restart');
    for (const f of r.findings) {
      if (f.kind !== 'apiserver-imbalance') continue;
      const im = f as ImbalanceFinding;
      marks.push({ start: Date.parse(im.start), end: Date.parse(im.end), label: im.summary, kind: 'gap' });
    }
    if (perServer.some((p) => p.points.length > 1)) out.push(rateChart(`Requests per second per apiserver (${ap.bucketSeconds} s buckets); shaded: restarts (red), a restarted apiserver left idle (grey)`, perServer, ap.bucketSeconds, marks));
  }
  // token waves on their own axis: a few hundred TokenRequests a second vanish under the whole apiserver's rate
  const tokens = r.timeline.series.find((s) => s.key === 'TokenRequests');
  const tokenFinding = r.findings.find((f) => f.kind === 'token-refresh-storm') as TokenFinding | undefined;
  if (tokens !== undefined && tokenFinding !== undefined && tokens.points.length > 1) {
    const period = tokenFinding.periodSeconds === null ? '' : `, every ${tokenFinding.periodSeconds} s`;
    const next = tokenFinding.nextWaveAt === null ? '' : `; next expected ${tokenFinding.nextWaveAt.slice(0, 19).replace('T', ' ')} UTC`;
    out.push(rateChart(`TokenRequests per second: ${plural(tokenFinding.waves.length, 'wave')}${period}${next}`, [{ label: 'TokenRequests', points: tokens.points.map(([t, n]): [number, number] => [Date.parse(t), n]) }], r.timeline.bucketSeconds, bandsOf(r).filter((b) => b.kind === 'token')));
  }

  out.push('<h2 id="findings">Findings</h2>');
  if (r.findings.length === 0) out.push(`<p>${h(noFindingsText(r, nothingRead(r)))}</p>`);
  else {
    out.push('<ol class="findings">');
    for (const f of r.findings) {
      out.push(`<li>${sev(f.severity)} ${h(f.summary)}<dl>`);
      if (f.why !== undefined) out.push(`<dt>Why</dt><dd>${h(f.why)}</dd>`);
      const ev = 'evidence' in f ? evidenceText(f.evidence) : null;
      if (ev !== null) out.push(`<dt>Evidence</dt><dd>${h(ev)}</dd>`);
      out.push(`<dt>Fix</dt><dd>${h(f.fix)}</dd>`);
      const wi = 'whatIf' in f && f.whatIf ? whatIfText(f.whatIf) : '';
      if (wi !== '') out.push(`<dt>If fixed</dt><dd>${h(wi)}.</dd>`);
      out.push('</dl>');
      const apf = apfWarranted(f);
      // each line escaped on its own: the line breaks stay, so the block pastes into kubectl apply -f -
      if (apf !== null) out.push(`<details><summary>API Priority and Fairness manifests (kubectl apply -f -)</summary><pre><code>${apf.trimEnd().split('\n').map((l) => h(l)).join('\n')}</code></pre></details>`);
      out.push('</li>');
    }
    out.push('</ol>');
  }

  if (r.incident.length > 0) {
    out.push('<h2 id="incident">Incident, in time order</h2>');
    const multi = r.incident[0]!.start.slice(0, 10) !== r.incident[r.incident.length - 1]!.end.slice(0, 10);
    out.push(table(['when (UTC)', 'what'], r.incident.map((e) => [h(incidentWhen(e, multi)), h(e.what)]), new Set()));
  }

  out.push(`<h2 id="lists">List groups (worst first, ${Math.min(r.listGroups.length, r.listGroupsTotal)} of ${r.listGroupsTotal})</h2>`);
  if (r.listGroups.length === 0) out.push('<p>No list requests.</p>');
  else {
    const amp = r.listGroups.filter((g) => g.servedFrom.etcd > 0 && g.objectsReadPerRequest !== null && g.objectsReturnedPerRequest !== null).slice(0, 8);
    if (amp.length > 0) out.push(readReturnedChart('Objects etcd read per list against objects returned', amp.map((g) => ({ label: `${g.userAgent.split(' ')[0] || '(none)'} ${g.resource}`, read: g.objectsReadPerRequest!, returned: g.objectsReturnedPerRequest! }))));
    out.push(table(HTML_GROUP_HEAD, r.listGroups.map((g, i) => htmlGroupRow(g, i)), HTML_GROUP_NUMERIC));
    const notes: string[] = [];
    if (r.listGroups.some((g) => g.estimated)) notes.push('~ estimated: objects under the etcd prefix ÷ nodes seen.');
    if (r.listGroups.some((g) => g.latencyMs !== null)) notes.push('p50, p99: request latency from the audit log (requestReceivedTimestamp to the stageTimestamp of ResponseComplete).');
    if (r.groupsCapped !== null) {
      const n = Object.values(r.groupsCapped.foldedRequests).reduce((a, b) => a + b, 0);
      notes.push(`Group cap hit: ${formatCount(r.groupsCapped.foldedGroups)} small groups (${plural(n, 'request')}) folded into "other"; counts may be short by up to ${formatCount(r.groupsCapped.maxCountError)}.`);
    }
    for (const n of notes) out.push(`<p class="method">${h(n)}</p>`);
  }
  if (r.etcdRanges.length > 0) {
    out.push('<h2 id="etcd">Slow etcd reads by range</h2>');
    out.push(table(ETCD_RANGE_HEAD, r.etcdRanges.map((e) => etcdRangeRow(e, h)), ETCD_RANGE_NUMERIC));
  }
  if (r.metrics !== null && r.metrics.resources.length > 0) {
    out.push('<h2 id="metrics">Apiserver metrics</h2>', `<p>${h(metricsCaption(r.metrics))}</p>`);
    out.push(table(METRICS_HEAD, r.metrics.resources.slice(0, 10).map((m) => metricsRow(m, h)), METRICS_NUMERIC));
  }
  out.push('<h2 id="inputs">Inputs</h2>');
  out.push(
    table(
      ['input', 'lines', 'audit events', 'etcd entries', 'other lines', 'skipped', 'note'],
      r.inputs.map((i) => [
        // a path may be long: it wraps inside its cell instead of running over the numbers beside it
        `<code class="path">${h(i.name)}</code>`,
        formatCount(i.lines),
        formatCount(i.auditEvents),
        formatCount(i.etcdEntries),
        formatCount(i.otherLines),
        formatCount(i.skippedLines + i.skippedItems),
        h([i.gzip ? 'gzip' : '', wrapperNote(i.wrappers), i.metricSamples > 0 ? `${formatCount(i.metricSamples)} metric samples` : '', i.error !== null ? `error: ${i.error}` : ''].filter((x) => x).join(', ')),
      ]),
      new Set([1, 2, 3, 4, 5]),
    ),
  );
  // the heading says Method: the paragraph does not start with it again
  out.push('<h2 id="method">Method</h2>', `<p class="method">${h(methodText(r.method, (s) => s).replace(/^Method\. /, ''))}</p>`);
  out.push(`<footer>Generated by audit-scan ${h(r.tool.version)}; ~ marks estimates.</footer>`, '</body></html>', '');
  return out.join('\n');
}
