/*! The --follow view on a terminal, redrawn like `top`: the request rate now and etcd's share, the top clients
 * over the last --window with their verdict and rate, storms in the window and the next token wave, and the
 * findings so far. Every line fits the width (layout.ts) and the view fits the height: the tables give way first. */

import type { ChalkInstance } from 'chalk';
import type { LiveWindow, ScanReport } from '../analyze/report.js';
import type { StormFinding, TokenFinding } from '../analyze/time-analysis.js';
import { mixOfShares, servingWords } from '../analyze/serving.js';
import { formatBytes, formatCount, plural } from './format.js';
import { cutEnd, drawTable, wrapLines, type Col } from './layout.js';
import { safeText } from './text-safety.js';

export interface LiveViewOptions {
  width: number;
  height: number;
  chalk: ChalkInstance;
  paused: boolean;
  intervalSeconds: number;
  readBytes: number;
  /** notes on the inputs (waiting for a file, rotated), the latest last */
  notes: string[];
}

const pct = (x: number | null): string => (x === null ? '?' : `${Math.round(x * 100)}%`);
const verdict = (x: number | null): string => (x === null ? 'unknown' : x >= 0.99 ? 'etcd' : x <= 0.01 ? 'cache' : `etcd ${pct(x)}`);
const time = (iso: string | null): string => (iso === null ? '–' : iso.slice(11, 19));
/** A rate with the digits it needs: 120, 12.5, 0.25. */
const rate = (x: number): string => (x >= 100 ? String(Math.round(x)) : x >= 10 ? x.toFixed(1).replace(/\.0$/, '') : String(Math.round(x * 100) / 100));

/** The view's lines, without a trailing newline. */
export function renderLive(r: ScanReport, w: LiveWindow, o: LiveViewOptions): string[] {
  const c = o.chalk;
  const W = o.width;
  const out: string[] = [];
  const line = (s: string, style: (x: string) => string = (x) => x): void => {
    for (const l of wrapLines(s, W, '', '  ')) out.push(style(l));
  };
  const inputs = r.inputs.length;
  line(
    `audit-scan --follow · log time ${time(w.to)} UTC · ${plural(inputs, 'input')}, ${formatBytes(o.readBytes)} read · every ${o.intervalSeconds} s, last ${Math.round(w.seconds / 60) >= 1 && w.seconds % 60 === 0 ? `${w.seconds / 60} min` : `${w.seconds} s`}${o.paused ? ' · PAUSED' : ''}`,
    (x) => c.bold(x),
  );
  line(
    `Now ${rate(w.nowPerSecond)} requests/s (last 10 s); over the window ${rate(w.perSecond)}/s${w.coveredSeconds + 0.05 < w.seconds ? ` (the log covers ${w.coveredSeconds} s of it)` : ''}, ${formatCount(w.requests)} requests, ${w.etcdShare === null ? 'etcd share unknown' : `${pct(w.etcdShare)} of the reads to etcd (${formatCount(w.etcdRequests)}, estimated)`}. Whole run: ${formatCount(r.totals.requests)} requests, ${formatCount(r.totals.listFromEtcd)} lists from etcd.`,
  );
  out.push('');
  out.push(c.bold.underline(`Top clients, last ${w.seconds >= 60 ? `${Math.round(w.seconds / 60)} min` : `${w.seconds} s`}`));
  if (w.top.length === 0) out.push('No reads in the window.');
  else {
    const cols: Col[] = [
      { head: 'client', min: 10, flex: 2, want: 14 },
      { head: 'user', min: 10, flex: 1, drop: 2 },
      { head: 'verb', min: 4, flex: 0, drop: 3 },
      { head: 'resource', min: 8, flex: 1, want: 10 },
      { head: 'selector', min: 10, flex: 2, drop: 1 },
      { head: 'reqs', min: 4, flex: 0, align: 'right' },
      { head: '/s', min: 3, flex: 0, align: 'right' },
      { head: 'served', min: 6, flex: 0 },
    ];
    const rows = w.top.map((t) => [safeText(t.client), safeText(t.username.startsWith('system:serviceaccount:') ? `sa:${t.username.slice(22)}` : t.username), t.verb, safeText(t.resource), safeText(t.selector || '–'), formatCount(t.requests), rate(t.perSecond), verdict(t.etcdShare)]);
    out.push(...drawTable(cols, rows, W, c.bold).split('\n'));
  }
  const from = w.from === null ? -Infinity : Date.parse(w.from);
  const storms = r.findings.filter((f): f is StormFinding => f.kind === 'list-storm' && Date.parse((f as StormFinding).end) >= from);
  const token = r.findings.find((f): f is TokenFinding => f.kind === 'token-refresh-storm');
  if (storms.length > 0 || token?.nextWaveAt) out.push('');
  for (const st of storms) line(`Storm: ${formatCount(st.requests)} ${st.resource} lists ${time(st.start)}–${time(st.end)}, peak ${st.peakPerSecond}/s, ${servingWords(mixOfShares(st), true)}`, c.yellow);
  if (token?.nextWaveAt) line(`Next TokenRequest wave about ${token.nextWaveAt.slice(0, 19).replace('T', ' ')} UTC (${plural(token.waves.length, 'wave')} so far)`);
  out.push('');
  out.push(c.bold.underline('Findings so far'));
  const offenders = r.summary.offenders;
  if (offenders.length === 0) out.push(r.findings.some((f) => f.severity !== 'info' && f.severity !== 'low') ? `${plural(r.findings.length, 'finding')} (none about one client)` : 'No client reads etcd heavily so far.');
  for (const x of offenders.slice(0, 5)) {
    const sev = x.severity.toUpperCase();
    const style = x.severity === 'critical' || x.severity === 'high' ? c.red : x.severity === 'medium' ? c.yellow : (s: string) => s;
    for (const l of wrapLines(`${sev} ${safeText(x.client)}: ${safeText(x.what)} → ${safeText(x.fix)}`, W, '', '    ')) out.push(style(l));
  }
  for (const n of o.notes.slice(-2)) out.push(c.dim(cutEnd(safeText(n), W)));
  const keys = c.dim(cutEnd(`q quit (prints the report) · p ${o.paused ? 'resume' : 'pause'} · Ctrl-C quit`, W));
  // fit the height: keep the head and the keys line, cut the middle from the bottom
  const room = Math.max(3, o.height - 1);
  const body = out.length > room ? [...out.slice(0, room - 1), c.dim(cutEnd(`… ${out.length - room + 1} more lines (a taller terminal shows them)`, W))] : out;
  return [...body, keys];
}
