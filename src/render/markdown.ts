/*! --output markdown: a report to paste into an incident postmortem, in the order one is read: summary, findings
 * (why, evidence, fix, what the fix changes), the incident in time order, then the tables and the method.
 * Every log string is escaped for Markdown (text-safety.ts); no line depends on the reader's screen width. */

import { apfWarranted, nothingRead, type ScanReport } from '../analyze/report.js';
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
  GROUP_HEAD,
  GROUP_NUMERIC,
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
import { escapeMarkdown as md, safeText } from './text-safety.js';

function table(head: string[], rows: string[][], right: Set<number>): string {
  const sep = head.map((_, i) => (right.has(i) ? '---:' : '---'));
  return [head, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** A fenced block whose fence no line of the text can close. */
function fenced(text: string, lang: string, indent: string): string[] {
  return [`${indent}\`\`\`${lang}`, ...text.trimEnd().split('\n').map((l) => indent + safeText(l).replace(/```/g, "'''")), `${indent}\`\`\``];
}

export interface MarkdownOptions {
  /** print the APF manifests under each finding that warrants them (--apf); else a pointer */
  showApf: boolean;
}

/** Renders the report as GitHub-flavoured Markdown. */
export function renderMarkdown(r: ScanReport, o: MarkdownOptions = { showApf: true }): string {
  const out: string[] = [];
  const sm = r.summary;
  out.push('# Control-plane load: audit-scan report', '');
  for (const l of overviewLines(r, md)) out.push(`- ${l}`);
  out.push(`- Inputs: ${r.inputs.map((i) => md(i.name)).join(', ')}`);
  if (r.totals.readsQueryUnknown > 0) out.push(`- ${md(queryUnknownNote(r.totals.readsQueryUnknown))}`);
  out.push('');

  out.push('## Summary', '');
  if (r.findings.length === 0) out.push(md(noFindingsText(r, nothingRead(r))), '');
  const lone = noOffenderText(r);
  if (lone !== null) out.push(md(lone), '');
  for (const x of sm.offenders) out.push(`- **${x.severity.toUpperCase()}** ${md(x.client)}: ${md(x.what)}. **Fix:** ${md(x.fix)}.`);
  const readTotal = readTotalText(sm);
  if (readTotal !== null) out.push(`- ${md(readTotal)}`);
  const every = whatIfText(r.whatIf);
  if (sm.offenders.length > 0 && every !== '') out.push(`- With every fix: ${md(every)}.`);
  if (sm.offenders.length > 0 || readTotal !== null) out.push('');

  out.push('## Findings', '');
  if (r.findings.length === 0) out.push(md(noFindingsText(r, nothingRead(r))), '');
  r.findings.forEach((f, i) => {
    out.push(`${i + 1}. **${f.severity.toUpperCase()}** ${md(f.summary)}`);
    if (f.why !== undefined) out.push(`   - *Why:* ${md(f.why)}`);
    const ev = 'evidence' in f ? evidenceText(f.evidence) : null;
    if (ev !== null) out.push(`   - *Evidence:* ${md(ev)}`);
    out.push(`   - *Fix:* ${md(f.fix)}`);
    const wi = 'whatIf' in f && f.whatIf ? whatIfText(f.whatIf) : '';
    if (wi !== '') out.push(`   - *If fixed:* ${md(wi)}.`);
    const apf = apfWarranted(f);
    if (apf !== null && o.showApf) out.push('   - *API Priority and Fairness* (`kubectl apply -f -`):', '', ...fenced(apf, 'yaml', '     '));
    else if (apf !== null) out.push(`   - *APF:* ${md(APF_POINTER)}`);
    out.push('');
  });

  if (r.incident.length > 0) {
    out.push('## Incident, in time order', '');
    const multi = r.incident[0]!.start.slice(0, 10) !== r.incident[r.incident.length - 1]!.end.slice(0, 10);
    out.push(table(['when (UTC)', 'what'], r.incident.map((e) => [incidentWhen(e, multi), md(e.what)]), new Set()), '');
  }

  out.push(`## List groups (worst first, ${Math.min(r.listGroups.length, r.listGroupsTotal)} of ${r.listGroupsTotal})`, '');
  if (r.listGroups.length === 0) out.push('No list requests.', '');
  else {
    out.push(table(GROUP_HEAD, r.listGroups.map((g, i) => groupRow(g, i, md)), GROUP_NUMERIC), '');
    if (r.listGroups.some((g) => g.estimated)) out.push('~ estimated: objects under the etcd prefix ÷ nodes seen.', '');
    if (r.listGroups.some((g) => g.latencyMs !== null)) out.push('p50, p99: request latency from the audit log (requestReceivedTimestamp to the stageTimestamp of ResponseComplete).', '');
    if (r.groupsCapped !== null) {
      const n = Object.values(r.groupsCapped.foldedRequests).reduce((a, b) => a + b, 0);
      out.push(`Group cap hit: ${formatCount(r.groupsCapped.foldedGroups)} small groups (${plural(n, 'request')}) folded into "other"; counts may be short by up to ${formatCount(r.groupsCapped.maxCountError)}.`, '');
    }
  }
  if (r.etcdRanges.length > 0) {
    out.push('## Slow etcd reads by range', '');
    out.push(table(ETCD_RANGE_HEAD, r.etcdRanges.map((e) => etcdRangeRow(e, md)), ETCD_RANGE_NUMERIC), '');
  }
  if (r.metrics !== null && r.metrics.resources.length > 0) {
    out.push('## Apiserver metrics', '', md(metricsCaption(r.metrics)), '');
    out.push(table(METRICS_HEAD, r.metrics.resources.slice(0, 10).map((m) => metricsRow(m, md)), METRICS_NUMERIC), '');
  }
  out.push('## Inputs', '');
  out.push(
    table(
      ['input', 'lines', 'audit events', 'etcd entries', 'other lines', 'skipped', 'note'],
      r.inputs.map((i) => [
        md(i.name),
        formatCount(i.lines),
        formatCount(i.auditEvents),
        formatCount(i.etcdEntries),
        formatCount(i.otherLines),
        formatCount(i.skippedLines + i.skippedItems),
        md([i.gzip ? 'gzip' : '', wrapperNote(i.wrappers), i.metricSamples > 0 ? `${formatCount(i.metricSamples)} metric samples` : '', i.error !== null ? `error: ${i.error}` : ''].filter((x) => x).join(', ')),
      ]),
      new Set([1, 2, 3, 4, 5]),
    ),
    '',
  );
  // the heading says Method: the paragraph does not start with it again
  out.push('## Method', '', md(methodText(r.method, (s) => s).replace(/^Method\. /, '')), '');
  out.push(`<sub>Generated by audit-scan ${md(r.tool.version)}; figures marked ~ are estimates.</sub>`, '');
  return out.join('\n');
}
