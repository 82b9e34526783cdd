/*! --output html: one self-contained page (no scripts, no external assets) for a postmortem or a ticket.
 * Every string from the log goes through escapeHtml(), which also strips control characters and secrets. */

import { apfOf, type GroupReport, type ScanReport } from '../analyze/report.js';
import { formatBytes, formatCount, formatRatio, orDash } from './format.js';
import { escapeHtml as h } from './text-safety.js';

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24}table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f6f8fa}.critical{color:#a40e26;font-weight:700}.high{color:#cf222e}.medium{color:#9a6700}.low{color:#57606a}
pre{background:#f6f8fa;padding:.75rem;overflow:auto}code{font-size:90%}`;

function table(head: string[], rows: string[][], numeric: Set<number>): string {
  const th = head.map((x) => `<th>${h(x)}</th>`).join('');
  const trs = rows.map((r) => `<tr>${r.map((c, i) => `<td${numeric.has(i) ? ' class="n"' : ''}>${c}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${trs}\n</tbody></table>`;
}

const res = (g: GroupReport): string => h(g.apiGroup ? `${g.resource}.${g.apiGroup}` : g.resource) + (g.namespace === null ? '' : ` (${h(g.namespace === '*' ? `${g.namespaces} namespaces` : g.namespace)})`);

/** Renders the report as an HTML document. */
export function renderHtml(r: ScanReport): string {
  const t = r.totals;
  const out: string[] = [];
  out.push('<!doctype html>', '<html lang="en"><head><meta charset="utf-8">', `<meta name="viewport" content="width=device-width,initial-scale=1">`);
  out.push(`<title>audit-scan report</title><style>${CSS}</style></head><body>`);
  out.push('<h1>Control-plane load: audit-scan report</h1>', '<ul>');
  out.push(`<li><b>Window:</b> ${h(t.firstSeen ?? 'unknown')} – ${h(t.lastSeen ?? 'unknown')}</li>`);
  out.push(`<li><b>Kubernetes:</b> ${h(r.kubernetes.version)} (${h(r.kubernetes.reason)})${r.kubernetes.etcdVersion !== null ? `; etcd ${h(r.kubernetes.etcdVersion)}` : ''}</li>`);
  out.push(`<li><b>Requests:</b> ${formatCount(t.requests)} (lists ${formatCount(t.listRequests)}, ${formatCount(t.listFromEtcd)} served from etcd, ${formatCount(t.listWithoutResourceVersion)} without resourceVersion)</li>`);
  out.push(`<li><b>Slow etcd reads:</b> ${formatCount(t.etcdSlowRanges)} by clients, ${formatCount(t.etcdInternalRanges)} apiserver-internal left out</li>`);
  out.push(`<li><b>Inputs:</b> ${r.inputs.map((i) => `<code>${h(i.name)}</code>`).join(', ')}</li>`, '</ul>');
  out.push('<h2>Findings</h2>');
  if (r.findings.length === 0) out.push('<p>No client reads etcd heavily in this log.</p>');
  else {
    out.push('<ol>');
    for (const f of r.findings) {
      out.push(`<li><span class="${f.severity}">${h(f.severity.toUpperCase())}</span> ${h(f.summary)}<br><i>Fix:</i> ${h(f.fix)}`);
      const apf = apfOf(f);
      if (apf) out.push(`<details><summary>API Priority and Fairness manifests</summary><pre><code>${h(apf)}</code></pre></details>`);
      out.push('</li>');
    }
    out.push('</ol>');
  }
  out.push('<h2>List groups (worst first)</h2>');
  out.push(
    table(
      ['#', 'client', 'user', 'resource', 'selector', 'requests', 'nodes', 'no RV', 'etcd', 'cache', 'read/req', 'returned/req', 'amplification', 'first seen', 'last seen'],
      r.listGroups.map((g, i) => [
        String(i + 1),
        h(g.userAgent || '(none)'),
        h(g.username),
        res(g),
        h(g.selector || '–'),
        formatCount(g.requests),
        formatCount(g.nodes),
        formatCount(g.withoutResourceVersion),
        formatCount(g.servedFrom.etcd),
        formatCount(g.servedFrom.cache),
        orDash(g.objectsReadPerRequest, formatCount),
        orDash(g.objectsReturnedPerRequest, (x) => (g.figureSources.objectsReturned === 'estimate-objects-per-node' ? '~' : '') + formatCount(x)),
        orDash(g.amplification, formatRatio),
        h(g.firstSeen ?? '–'),
        h(g.lastSeen ?? '–'),
      ]),
      new Set([5, 6, 7, 8, 9, 10, 11, 12]),
    ),
  );
  if (r.etcdRanges.length > 0) {
    out.push('<h2>Slow etcd reads by range</h2>');
    out.push(
      table(
        ['key', 'resource', 'reads', 'objects/read', 'bytes/read', 'max took [ms]', 'note'],
        r.etcdRanges.map((e) => [h(e.key), h(e.resource || '–'), formatCount(e.reads), orDash(e.objectsPerRead, formatCount), orDash(e.bytesPerRead, formatBytes), orDash(e.tookMsMax, (x) => x.toFixed(1)), e.internal !== null ? `internal: ${h(e.internal)}` : e.limited ? 'paginated' : '']),
        new Set([2, 3, 4, 5]),
      ),
    );
  }
  out.push('<h2>Inputs</h2>');
  out.push(
    table(
      ['input', 'lines', 'audit events', 'etcd entries', 'other lines', 'skipped'],
      r.inputs.map((i) => [h(i.name) + (i.error !== null ? ` (error: ${h(i.error)})` : ''), formatCount(i.lines), formatCount(i.auditEvents), formatCount(i.etcdEntries), formatCount(i.otherLines), formatCount(i.skippedLines + i.skippedItems)]),
      new Set([1, 2, 3, 4, 5]),
    ),
  );
  out.push(`<p><small>Generated by audit-scan ${h(r.tool.version)}; verdicts follow kube-apiserver ${h(r.kubernetes.version)} rules; ~ marks estimates.</small></p>`, '</body></html>', '');
  return out.join('\n');
}
