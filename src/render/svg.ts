/*! Charts as inline SVG for the HTML report: no script, no external file, every label escaped. Each chart is
 * a <figure> whose <svg> carries data-series (the number of series drawn), for the page test. */

import { escapeHtml as h } from './text-safety.js';
import { formatCount } from '../model/count-format.js';

const COLORS = ['#0969da', '#cf222e', '#1a7f37', '#9a6700', '#8250df', '#bc4c00'];

export interface Band {
  start: number;
  end: number;
  label: string;
  /** etcd storms and restarts are red, the rest grey */
  kind: 'restart' | 'gap' | 'storm-etcd' | 'storm' | 'token';
}

const BAND_FILL: Record<Band['kind'], string> = { restart: '#cf222e33', gap: '#57606a22', 'storm-etcd': '#cf222e22', storm: '#9a670022', token: '#8250df22' };

const fmtTime = (ms: number): string => new Date(ms).toISOString().slice(11, 19);
const nice = (x: number): number => {
  if (x <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
};

/** Requests per second over time, one line per series, restart and storm windows shaded. Points are counts per
 * bucket, divided here by the series' own bucketSeconds when it has one (the two sides of a diff may have been
 * scanned with different --bucket), else by the chart's. */
export function rateChart(title: string, series: Array<{ label: string; points: Array<[number, number]>; bucketSeconds?: number }>, bucketSeconds: number, bands: Band[]): string {
  const W = 720;
  const H = 260;
  const L = 48;
  const R = 12;
  const T = 12;
  const B = 36;
  let t0 = Infinity;
  let t1 = -Infinity;
  let max = 0;
  for (const s of series)
    for (const [t, n] of s.points) {
      t0 = Math.min(t0, t);
      t1 = Math.max(t1, t);
      max = Math.max(max, n / (s.bucketSeconds ?? bucketSeconds));
    }
  if (!Number.isFinite(t0)) return '';
  if (t1 === t0) t1 = t0 + bucketSeconds * 1000;
  const ymax = nice(max);
  const x = (t: number): number => L + ((t - t0) / (t1 - t0)) * (W - L - R);
  const y = (v: number): number => T + (1 - v / ymax) * (H - T - B);
  const parts: string[] = [];
  for (const b of bands) {
    const a = Math.max(t0, b.start);
    const e = Math.min(t1, Math.max(b.end, b.start + bucketSeconds * 1000));
    if (e < t0 || a > t1) continue;
    parts.push(`<rect x="${x(a).toFixed(1)}" y="${T}" width="${Math.max(2, x(e) - x(a)).toFixed(1)}" height="${H - T - B}" fill="${BAND_FILL[b.kind]}"><title>${h(b.label)}</title></rect>`);
  }
  for (let i = 0; i <= 4; i++) {
    const v = (ymax * i) / 4;
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#d0d7de" stroke-width="1"/><text x="${L - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${v}</text>`);
  }
  for (let i = 0; i <= 4; i++) {
    const t = t0 + ((t1 - t0) * i) / 4;
    // a span of a few seconds would print one second twice: each label once
    if (i > 0 && fmtTime(t) === fmtTime(t0 + ((t1 - t0) * (i - 1)) / 4)) continue;
    // the first and last labels sit inside the plot's edges, so neither is cut by the frame
    parts.push(`<text x="${x(t).toFixed(1)}" y="${H - B + 16}" text-anchor="${i === 0 ? 'start' : i === 4 ? 'end' : 'middle'}">${fmtTime(t)}</text>`);
  }
  series.forEach((s, i) => {
    const width = s.bucketSeconds ?? bucketSeconds;
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    // zeros between buckets that hold nothing, so a quiet minute reads as quiet
    const path: string[] = [];
    let last: number | null = null;
    for (const [t, n] of pts) {
      if (last !== null && t - last > width * 1000) path.push(`${x(last + width * 1000).toFixed(1)},${y(0).toFixed(1)}`, `${x(t - width * 1000).toFixed(1)},${y(0).toFixed(1)}`);
      path.push(`${x(t).toFixed(1)},${y(n / width).toFixed(1)}`);
      last = t;
    }
    parts.push(`<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="${i === 0 ? 2 : 1.5}" points="${path.join(' ')}"><title>${h(s.label)}</title></polyline>`);
    // A series active in one bucket is one point, which a polyline does not draw: a mark shows it, and where.
    if (pts.length === 1) {
      const [t, n] = pts[0]!;
      parts.push(`<circle cx="${x(t).toFixed(1)}" cy="${y(n / width).toFixed(1)}" r="3.5" fill="${COLORS[i % COLORS.length]}"><title>${h(s.label)}: ${Math.round(n / width)}/s at ${fmtTime(t)}</title></circle>`);
    }
  });
  const legend = series.map((s, i) => `<li><span style="background:${COLORS[i % COLORS.length]}"></span>${h(s.label)}</li>`).join('');
  return `<figure class="chart"><figcaption>${h(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${h(title)}" data-series="${series.length}">${parts.join('')}<text x="12" y="${T + 4}" transform="rotate(-90 12 ${T + 4})" text-anchor="end">requests/s</text></svg><ul class="legend">${legend}</ul></figure>`;
}

/** Objects read from etcd against objects returned, per list group. A linear bar for the objects read, the part
 * returned drawn inside it, and the ratio in words beside it: on a log scale 65× looked like 2:1. */
export function readReturnedChart(title: string, rows: Array<{ label: string; read: number; returned: number }>): string {
  if (rows.length === 0) return '';
  const W = 720;
  const rowH = 30;
  const L = 230;
  const R = 150;
  const H = rows.length * rowH + 12;
  const max = Math.max(...rows.map((r) => Math.max(r.read, r.returned)), 1);
  const w = (v: number): number => (v <= 0 ? 0 : Math.max(1, (v / max) * (W - L - R)));
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const y0 = i * rowH + 8;
    const ratio = r.returned > 0 ? r.read / r.returned : null;
    const words = ratio === null ? `${formatCount(r.read)} read, none returned` : `${formatCount(r.read)} read for ${formatCount(r.returned)} returned: ${ratio >= 10 ? Math.round(ratio) : Math.round(ratio * 10) / 10}×`;
    parts.push(`<text x="${L - 8}" y="${y0 + 13}" text-anchor="end">${h(r.label.length > 34 ? r.label.slice(0, 33) + '…' : r.label)}</text>`);
    parts.push(`<rect x="${L}" y="${y0}" width="${w(r.read).toFixed(1)}" height="18" fill="${COLORS[1]}"><title>read ${Math.round(r.read)}</title></rect>`);
    parts.push(`<rect x="${L}" y="${y0 + 4}" width="${w(Math.min(r.returned, r.read)).toFixed(1)}" height="10" fill="${COLORS[2]}"><title>returned ${Math.round(r.returned)}</title></rect>`);
    parts.push(`<text x="${(L + w(Math.max(r.read, r.returned)) + 6).toFixed(1)}" y="${y0 + 13}">${h(words)}</text>`);
  });
  const legend = `<li><span style="background:${COLORS[1]}"></span>objects read from etcd per list (to scale)</li><li><span style="background:${COLORS[2]}"></span>of them, returned</li>`;
  return `<figure class="chart"><figcaption>${h(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${h(title)}" data-series="2">${parts.join('')}</svg><ul class="legend">${legend}</ul></figure>`;
}
