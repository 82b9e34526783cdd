// Logs as users have them (issue 15): the same events, written as container runtimes, shippers, cloud exports
// and journald write them (fixtures/make-wrapped.mjs), must give the same report as the plain log, and each
// physical line must be counted once, as what it is. Counts worked out in fixtures/README.md.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCli } from './support.js';
import type { ScanReport } from '../src/analyze/report.js';

const W = 'fixtures/wrapped';

async function scan(...files: string[]): Promise<ScanReport> {
  const r = await runCli(['-o', 'json', '-j', '1', '--syslog-year', '2026', ...files]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ScanReport;
}

/** The report without its inputs[] (the one part that says how the file was written) and the apiserver its name
 * maps to (issue 23). */
function analysis(r: ScanReport): Omit<ScanReport, 'inputs' | 'apiservers'> {
  const { inputs: _inputs, apiservers: _a, ...rest } = r;
  const { apiservers: _m, ...method } = rest.method;
  return { ...rest, method };
}

const newlines = (f: string): number => readFileSync(f).toString('latin1').split('\n').length - 1;

type Row = {
  file: string;
  base: 'audit.log' | 'etcd-zap.log' | 'etcd-capnslog.log';
  format: 'lines' | 'documents';
  /** physical lines; 'file' for pretty-printed documents, whose line count is the file's */
  lines: number | 'file';
  audit: number;
  etcd: number;
  other: Record<string, number>;
  skippedItems?: Record<string, number>;
  wrappers: Record<string, number>;
};

// 14 events; the 1st and 5th are 16-32 KiB, so containerd and Docker write each in two parts.
// 12 etcd zap lines: a version line (other) and 11 reads; 11 capnslog lines: a version line and 10 reads.
const ROWS: Row[] = [
  { file: 'audit/cri.log', base: 'audit.log', format: 'lines', lines: 16, audit: 14, etcd: 0, other: { 'cri partial line (joined with the next)': 2 }, wrappers: { cri: 16 } },
  { file: 'audit/docker.log', base: 'audit.log', format: 'lines', lines: 16, audit: 14, etcd: 0, other: { 'docker partial line (joined with the next)': 2 }, wrappers: { docker: 16 } },
  { file: 'audit/fluent-bit.log', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { 'fluent-bit': 14 } },
  { file: 'audit/fluent-bit-merged.log', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { 'fluent-bit': 14 } },
  { file: 'audit/vector.log', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { message: 14 } },
  { file: 'audit/filebeat.log', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { message: 14 } },
  { file: 'audit/loki.jsonl', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { loki: 14 } },
  { file: 'audit/splunk-hec.json', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { 'splunk-hec': 14 } },
  { file: 'audit/splunk-export.json', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { 'splunk-export': 14 } },
  { file: 'audit/datadog-api.json', base: 'audit.log', format: 'documents', lines: 'file', audit: 14, etcd: 0, other: {}, wrappers: { 'datadog-api': 14 } },
  // two ExportLogsServiceRequests of 7 records each: one line counts once, however many events it holds
  { file: 'audit/otlp.jsonl', base: 'audit.log', format: 'lines', lines: 2, audit: 14, etcd: 0, other: {}, wrappers: { otlp: 2 } },
  // 4-space pretty JSON: 2 + 15 events × 7 + 8 = 115 lines; the 15th message was cut by CloudWatch
  { file: 'audit/cloudwatch-cli.json', base: 'audit.log', format: 'documents', lines: 115, audit: 14, etcd: 0, other: {}, skippedItems: { 'truncated: CloudWatch message truncated ([Truncated...])': 1 }, wrappers: { cloudwatch: 15 } },
  { file: 'audit/logs-insights.csv', base: 'audit.log', format: 'lines', lines: 15, audit: 14, etcd: 0, other: { 'Logs Insights CSV header': 1 }, wrappers: { 'logs-insights-csv': 14 } },
  // [ + 14 × 4 + ] = 58 lines
  { file: 'audit/logs-insights.json', base: 'audit.log', format: 'documents', lines: 58, audit: 14, etcd: 0, other: {}, wrappers: { 'logs-insights': 14 } },
  { file: 'audit/aks-log-analytics.json', base: 'audit.log', format: 'documents', lines: 'file', audit: 14, etcd: 0, other: {}, wrappers: { 'aks-log-analytics': 14 } },
  { file: 'audit/journald-json.jsonl', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { journald: 14 } },
  { file: 'audit/journald-short.log', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { syslog: 14 } },
  { file: 'audit/journald-short-iso.log', base: 'audit.log', format: 'lines', lines: 14, audit: 14, etcd: 0, other: {}, wrappers: { journald: 14 } },
  { file: 'etcd/zap-cri.log', base: 'etcd-zap.log', format: 'lines', lines: 12, audit: 0, etcd: 11, other: { 'etcd version': 1 }, wrappers: { cri: 12 } },
  { file: 'etcd/zap-docker.log', base: 'etcd-zap.log', format: 'lines', lines: 12, audit: 0, etcd: 11, other: { 'etcd version': 1 }, wrappers: { docker: 12 } },
  { file: 'etcd/zap-journald-short.log', base: 'etcd-zap.log', format: 'lines', lines: 12, audit: 0, etcd: 11, other: { 'etcd version': 1 }, wrappers: { syslog: 12 } },
  { file: 'etcd/zap-journald-k3s.log', base: 'etcd-zap.log', format: 'lines', lines: 12, audit: 0, etcd: 11, other: { 'etcd version': 1 }, wrappers: { syslog: 12 } },
  { file: 'etcd/zap-journald-short-iso.log', base: 'etcd-zap.log', format: 'lines', lines: 12, audit: 0, etcd: 11, other: { 'etcd version': 1 }, wrappers: { journald: 12 } },
  { file: 'etcd/zap-journald-short-precise.log', base: 'etcd-zap.log', format: 'lines', lines: 12, audit: 0, etcd: 11, other: { 'etcd version': 1 }, wrappers: { syslog: 12 } },
  { file: 'etcd/zap-journald-json.jsonl', base: 'etcd-zap.log', format: 'lines', lines: 12, audit: 0, etcd: 11, other: { 'etcd version': 1 }, wrappers: { journald: 12 } },
  { file: 'etcd/capnslog-syslog-bare.log', base: 'etcd-capnslog.log', format: 'lines', lines: 11, audit: 0, etcd: 10, other: { 'etcd version': 1 }, wrappers: { syslog: 11 } },
  { file: 'etcd/capnslog-journald-header.log', base: 'etcd-capnslog.log', format: 'lines', lines: 11, audit: 0, etcd: 10, other: { 'etcd version': 1 }, wrappers: { syslog: 11 } },
];

describe('wrapped logs (fixtures/wrapped)', () => {
  it('reads the plain logs as worked out by hand', async () => {
    const r = await scan(`${W}/audit.log`, `${W}/etcd-zap.log`);
    expect(r.totals).toMatchObject({ requests: 14, listRequests: 10, listWithoutResourceVersion: 8, listFromEtcd: 8, getRequests: 3, getFromEtcd: 3, watchRequests: 1, etcdSlowRanges: 8, etcdInternalRanges: 3, clusterNodes: 4, readsQueryUnknown: 0 });
    expect(r.totals.etcdInternalByReason).toEqual({ 'count_only (object-count polling)': 1, 'health check': 1, 'count without the trailing slash (object-count polling, before 1.27)': 1 });
    const v = r.listGroups[0]!;
    expect(v).toMatchObject({ userAgent: 'vector/0.34.1 (x86_64-unknown-linux-gnu 2023-12-01)', requests: 8, nodes: 4, servedFrom: { etcd: 8, cache: 0, unknown: 0 }, objectsReadPerRequest: 7130, objectsReturnedPerRequest: 110, amplification: 64.8 });
    expect(r.listGroups[1]).toMatchObject({ resource: 'deployments', requests: 2, servedFrom: { etcd: 0, cache: 2, unknown: 0 } });
    expect(r.kubernetes).toMatchObject({ version: '1.29.4', etcdVersion: '3.5.9', etcdPrefix: { prefixes: ['/registry'], source: 'default' } });
    const c = await scan(`${W}/etcd-capnslog.log`);
    expect(c.kubernetes.etcdVersion).toBe('3.4.13');
    expect(c.totals).toMatchObject({ etcdSlowRanges: 8, etcdInternalRanges: 2 });
  });

  const bases = new Map<string, Promise<ScanReport>>();
  const baseOf = (b: string): Promise<ScanReport> => {
    if (!bases.has(b)) bases.set(b, scan(`${W}/${b}`));
    return bases.get(b)!;
  };

  it.each(ROWS.map((r) => [r.file, r] as const))('%s: every line counted, the same report as the plain log', async (_f, row) => {
    const file = `${W}/${row.file}`;
    const r = await scan(file);
    const i = r.inputs[0]!;
    expect(i.format).toBe(row.format);
    expect(i.lines).toBe(row.lines === 'file' ? newlines(file) : row.lines);
    expect([i.auditEvents, i.etcdEntries, i.skippedLines, i.blankLines]).toEqual([row.audit, row.etcd, 0, 0]);
    expect(i.otherKinds).toEqual(row.other);
    expect(i.otherLines).toBe(Object.values(row.other).reduce((a, b) => a + b, 0));
    expect(i.skipReasons).toEqual(row.skippedItems ?? {});
    expect(i.skippedItems).toBe(Object.values(row.skippedItems ?? {}).reduce((a, b) => a + b, 0));
    expect(i.wrappers).toEqual(row.wrappers);
    expect(analysis(r)).toEqual(analysis(await baseOf(row.base)));
  });

  it('joins a CRI audit log with a Docker etcd log: 7,130 read for 110 returned, 64.8×', async () => {
    const r = await scan(`${W}/audit/cri.log`, `${W}/etcd/zap-docker.log`);
    expect(r.listGroups[0]).toMatchObject({ requests: 8, objectsReadPerRequest: 7130, objectsReturnedPerRequest: 110, amplification: 64.8 });
    expect(analysis(r)).toEqual(analysis(await scan(`${W}/audit.log`, `${W}/etcd-zap.log`)));
  });

  it('says how each input was read, in the table', async () => {
    const r = await runCli(['--width', '200', '-j', '1', '--syslog-year', '2026', `${W}/audit/cri.log`, `${W}/etcd/capnslog-syslog-bare.log`]);
    expect(r.stdout).toMatch(/cri\.log .*read as containerd\/CRI-O lines/);
    expect(r.stdout).toMatch(/capnslog-syslog-bare\.log .*read as syslog lines/);
  });

  it('GKE: counts and groups what it knows, and leaves where reads were served unknown', async () => {
    const r = await scan(`${W}/audit/gke.json`);
    const i = r.inputs[0]!;
    expect([i.format, i.auditEvents, i.skippedLines, i.skippedItems]).toEqual(['documents', 14, 0, 0]);
    expect(i.wrappers).toEqual({ gke: 14 });
    // the same 14 requests, verbs and groups; the query (selectors, resourceVersion, limit) is gone
    expect(r.totals).toMatchObject({ requests: 14, listRequests: 10, getRequests: 3, watchRequests: 1, listFromEtcd: 0, getFromEtcd: 0, listWithoutResourceVersion: 0, readsQueryUnknown: 14 });
    const v = r.listGroups.find((g) => g.userAgent.startsWith('vector/'))!;
    expect(v).toMatchObject({ username: 'system:serviceaccount:vector:vector', resource: 'pods', requests: 8, selector: '', servedFrom: { etcd: 0, cache: 0, unknown: 8 }, amplification: null });
    expect(v.reasons).toEqual({ 'query string not in the log (GKE Cloud Logging drops it): resourceVersion, limit and selectors unknown': 8 });
    expect(r.getGroups[0]).toMatchObject({ resource: 'leases', requests: 3, servedFrom: { etcd: 0, cache: 0, unknown: 3 } });
    const t = await runCli(['--width', '200', '-j', '1', `${W}/audit/gke.json`]);
    expect(t.stdout).toContain('14 reads came without the query string (GKE Cloud Logging drops it)');
    expect(t.stdout).toMatch(/vector\/0\.34\.1 .* 8 +0 +\? +\? /);
    expect(t.stdout).toContain('No finding from what the log holds: it does not say where 14 reads were served');
  });

  it('infers the etcd prefix of OpenShift 4 and says so; --etcd-prefix overrides', async () => {
    const r = await scan(`${W}/etcd-openshift.log`);
    expect(r.kubernetes.etcdPrefix).toEqual({ prefixes: ['/kubernetes.io', '/openshift.io'], source: 'inferred', reason: 'inferred from the keys: 10 reads under /kubernetes.io, 1 read under /openshift.io (--etcd-prefix to override)' });
    expect(r.totals).toMatchObject({ etcdSlowRanges: 9, etcdInternalRanges: 2 });
    expect(r.etcdRanges.map((e) => [e.key, e.resource, e.reads, e.internal])).toEqual([
      ['/kubernetes.io/pods/', 'pods', 8, null],
      ['/openshift.io/routes/', 'routes', 1, null],
      ['/kubernetes.io/health', 'health', 1, 'health check'],
      ['/kubernetes.io/pods', 'pods', 1, 'count_only (object-count polling)'],
    ]);
    const withAudit = await scan(`${W}/audit.log`, `${W}/etcd-openshift.log`);
    expect(withAudit.listGroups[0]).toMatchObject({ objectsReadPerRequest: 7130, amplification: 64.8 });
    const t = await runCli(['--width', '200', '-j', '1', `${W}/etcd-openshift.log`]);
    expect(t.stdout).toContain('etcd keys under /kubernetes.io, /openshift.io (inferred from the keys');
    // told otherwise, the reads outside the given prefix are not Kubernetes objects
    const given = await scan('--etcd-prefix', '/kubernetes.io', `${W}/etcd-openshift.log`);
    expect(given.kubernetes.etcdPrefix).toEqual({ prefixes: ['/kubernetes.io'], source: 'given', reason: '--etcd-prefix' });
    expect(given.etcdRanges.find((e) => e.key.startsWith('/openshift.io'))).toMatchObject({ resource: '' });
  });

  it('counts a wrapper whose text was cut as truncated, with the reason', async () => {
    const lines = readFileSync(`${W}/audit.log`, 'utf8').split('\n');
    const cut = (l: string) => l.slice(0, 3000);
    const text = [
      JSON.stringify({ message: cut(lines[0]!), host: 'm1' }), // a shipper's size limit
      JSON.stringify({ log: cut(lines[0]!), date: 1 }), // Fluent Bit's Buffer_Max_Size
      JSON.stringify({ message: 'starting the shipper', host: 'm1' }), // its own message: not an event
      lines[1],
    ].join('\n') + '\n';
    const r = await runCli(['-o', 'json', '-j', '1', '-'], text);
    const i = (JSON.parse(r.stdout) as ScanReport).inputs[0]!;
    expect([i.lines, i.auditEvents, i.skippedLines]).toEqual([4, 1, 3]);
    expect(i.skipReasons).toEqual({
      'truncated: the message record holds cut JSON (a size limit of the shipper?)': 1,
      'truncated: the fluent-bit record holds cut JSON (a size limit of the shipper?)': 1,
      'message record holds text of no known format': 1,
    });
    expect(i.wrappers).toEqual({ message: 2, 'fluent-bit': 1 });
  });

  it('a must-gather tree: its timestamp, listings and logs are metadata, not skipped, so --strict passes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'must-gather-'));
    const img = join(root, 'quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-0a1b2c');
    mkdirSync(join(img, 'audit_logs', 'kube-apiserver'), { recursive: true });
    writeFileSync(join(img, 'timestamp'), '2026-11-30 12:00:00.123456789 +0000 UTC m=+0.012345678\n2026-11-30 12:03:10.98765432 +0000 UTC m=+190.87654321\n');
    writeFileSync(join(root, 'must-gather.logs'), '[must-gather      ] OUT Using must-gather plug-in image: quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0a1b2c\n[must-gather-x2x4z] POD 2026-11-30T12:00:01.000Z gathering audit logs\n');
    writeFileSync(join(root, 'event-filter.html'), '<!DOCTYPE html>\n<html><body>events</body></html>\n');
    writeFileSync(join(img, 'audit_logs', 'kube-apiserver.audit_logs_listing'), 'master-1 audit-2026-11-30T11-00-00.000.log\nmaster-1 audit.log\n');
    writeFileSync(join(img, 'audit_logs', 'kube-apiserver', 'master-1-audit.log.gz'), gzipSync(readFileSync(`${W}/audit.log`)));
    const r = await runCli(['-o', 'json', '-j', '1', '--strict', root]);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as ScanReport;
    const by = (n: string) => rep.inputs.find((i) => i.name.endsWith(n))!;
    for (const [n, lines] of [['timestamp', 2], ['must-gather.logs', 2], ['event-filter.html', 2], ['kube-apiserver.audit_logs_listing', 2]] as const) {
      expect(by(n)).toMatchObject({ lines, otherLines: lines, skippedLines: 0, looksLike: null, otherKinds: { 'must-gather metadata': lines } });
    }
    expect(by('master-1-audit.log.gz')).toMatchObject({ gzip: true, lines: 14, auditEvents: 14 });
    expect(rep.totals.requests).toBe(14);
    expect(r.stderr).not.toMatch(/looks like|no audit events/);
  });
});
