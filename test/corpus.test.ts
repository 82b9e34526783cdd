// Every real sample in ../shared/corpus parses, and every line is accounted for (skipped when absent).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './support.js';
import type { ScanReport } from '../src/analyze/report.js';

const corpus = join(ROOT, '..', 'shared', 'corpus');
const files = existsSync(corpus)
  ? ['audit', 'cloud', 'etcd'].flatMap((d) => (existsSync(join(corpus, d)) ? readdirSync(join(corpus, d)).sort().map((f) => join(corpus, d, f)) : []))
  : [];

// What each sample must give: [audit events, etcd slow-read lines, skipped lines + items].
const EXPECTED: Record<string, [number, number, number]> = {
  'afcollins__kube-audit-log-tool__single-event.json': [1, 0, 0],
  'falcosecurity__falco__test__trace_files__k8s_audit__create_configmap_sensitive_values.json': [6, 0, 0],
  'falcosecurity__falco__test__trace_files__k8s_audit__exec_pod.json': [1, 0, 0],
  'falcosecurity__falco__test__trace_files__k8s_audit__fal_01_003.json': [0, 0, 1],
  'liggitt__audit2rbac__testdata__demo.log': [37, 0, 0],
  'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log': [100, 0, 0],
  'sysdiglabs__aks-audit-log__samples__event.json': [22, 0, 0],
  'Linux-project__fio-kubernetes__etcd-3.4-capnslog-excerpt.log': [0, 228, 0],
  'ahrtr__etcd-issues__slow-range-and-trace-excerpt.log': [0, 2, 0],
  'peterducai__etcd-tools__comp.txt': [0, 0, 0],
};

// Samples that hold nothing to analyse, and what audit-scan must say they look like.
const NOTHING: Record<string, string> = {
  'falcosecurity__falco__test__trace_files__k8s_audit__fal_01_003.json': 'JSON that is not audit events',
  'sysdiglabs__stackdriver-webhook-bridge__converter__test_files__log_entries__delete_service_failed_not_found.json': 'GKE Cloud Logging entries',
};

describe.skipIf(files.length === 0)('shared corpus', () => {
  it.each(files.map((f) => [f.slice(corpus.length + 1), f]))('%s: every line accounted for', async (_name, file) => {
    const r = await runCli(['-o', 'json', file]);
    const rep = JSON.parse(r.stdout) as ScanReport;
    const i = rep.inputs[0]!;
    // A sample with nothing to analyse says what it looked like and exits 1 (issue 11); the rest exit 0.
    const base0 = file.split('/').pop()!;
    expect(i.looksLike === null ? 0 : 1).toBe(r.code);
    if (NOTHING[base0] !== undefined) expect(i.looksLike).toContain(NOTHING[base0]);
    else expect(i.looksLike).toBeNull();
    // Each physical line is exactly one of: audit-bearing, etcd entry, other, blank, skipped.
    if (i.format === 'lines') {
      const auditLines = i.lines - i.etcdEntries - i.otherLines - i.blankLines - i.skippedLines;
      expect(auditLines).toBeGreaterThanOrEqual(0);
      expect(auditLines).toBeLessThanOrEqual(i.auditEvents);
      if (i.auditEvents === 0) expect(auditLines).toBe(0);
    }
    const base = file.split('/').pop()!;
    const want = EXPECTED[base];
    if (want) expect([i.auditEvents, i.etcdEntries, i.skippedLines + i.skippedItems]).toEqual(want);
  });

  it('pairs the apply and trace lines of one etcd read', async () => {
    const r = await runCli(['-o', 'json', join(corpus, 'etcd', 'ahrtr__etcd-issues__slow-range-and-trace-excerpt.log')]);
    const rep = JSON.parse(r.stdout) as ScanReport;
    // masterleases are the apiserver's endpoint reconciler: one internal read, not two, not a client's
    expect(rep.totals).toMatchObject({ etcdSlowRanges: 0, etcdInternalRanges: 1 });
  });

  it('reads the 100-line OpenShift sample with 220 KB lines and its two pod lists', async () => {
    const r = await runCli(['-o', 'json', join(corpus, 'audit', 'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log')]);
    const rep = JSON.parse(r.stdout) as ScanReport;
    expect(rep.totals.listRequests).toBe(2);
    expect(rep.kubernetes.version).toBe('1.25.8');
    const pods = rep.listGroups.filter((g) => g.resource === 'pods');
    expect(pods.reduce((s, g) => s + g.requests, 0)).toBe(2);
  });
});
