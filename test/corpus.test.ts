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

// What each sample must give, counted by hand (grep, jq, reading the file) and checked against SOURCES.md:
// [lines, audit events, etcd slow-read lines, other lines, skipped lines + items, requests]. Every file in the
// corpus must have a row: a new sample fails until someone counts it.
const EXPECTED: Record<string, [number, number, number, number, number, number]> = {
  // one pretty-printed Event over 39 lines (document mode)
  'afcollins__kube-audit-log-tool__single-event.json': [39, 1, 0, 0, 0, 1],
  'falcosecurity__falco__test__trace_files__k8s_audit__create_configmap_sensitive_values.json': [6, 6, 0, 0, 0, 6],
  'falcosecurity__falco__test__trace_files__k8s_audit__create_nginx_pod_privileged.json': [1, 1, 0, 0, 0, 1],
  'falcosecurity__falco__test__trace_files__k8s_audit__delete_namespace_foo.json': [1, 1, 0, 0, 0, 1],
  'falcosecurity__falco__test__trace_files__k8s_audit__exec_pod.json': [1, 1, 0, 0, 0, 1],
  // {"kind": 0}: JSON, not an event
  'falcosecurity__falco__test__trace_files__k8s_audit__fal_01_003.json': [1, 0, 0, 0, 1, 0],
  'liggitt__audit2rbac__testdata__demo.log': [37, 37, 0, 0, 0, 37],
  'openshift__cluster-logging-operator__test__functional__filters__apiaudit__testdata__audit.log': [5, 5, 0, 0, 0, 5],
  'openshift__cluster-logging-operator__test__functional__filters__apiaudit__vrl__testdata__audit_in.log': [100, 100, 0, 0, 0, 100],
  // 3 native events and an AKS record, all auditID abcde12345 (one request), and a GKE entry (a get of /readyz: a second request)
  'elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-audit.log': [5, 5, 0, 0, 0, 2],
  // one AKS record whose properties.log is an Event as a JSON string
  'elastic__integrations__packages__kubernetes__data_stream__audit_logs___dev__test__pipeline__test-kube-audit.log': [1, 1, 0, 0, 0, 1],
  // {"records":[…22 AKS records…]} on one line
  'sysdiglabs__aks-audit-log__samples__event.json': [1, 22, 0, 0, 0, 22],
  'sysdiglabs__stackdriver-webhook-bridge__converter__test_files__k8s_audit_events__delete_service_failed_not_found.json': [1, 1, 0, 0, 0, 1],
  // a GKE Stackdriver LogEntry from the Go structs
  'sysdiglabs__stackdriver-webhook-bridge__converter__test_files__log_entries__delete_service_failed_not_found.json': [1, 0, 0, 0, 1, 0],
  // 228 "read-only range request" lines; 29 wal sync, 19 etcdhttp, 11 other slow requests, 8 other etcdserver
  'Linux-project__fio-kubernetes__etcd-3.4-capnslog-excerpt.log': [295, 0, 228, 67, 0, 0],
  // 23 zap lines and 30 lines of a Go panic; one blank line
  'ahrtr__etcd-issues__issues__13494__etcd.log': [54, 0, 0, 53, 0, 0],
  // an apply line and its trace line: two entries, one read
  'ahrtr__etcd-issues__slow-range-and-trace-excerpt.log': [2, 0, 2, 0, 0, 0],
  // a start-up line and four compactions
  'peterducai__etcd-tools__comp.txt': [5, 0, 0, 5, 0, 0],
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
    const want = EXPECTED[base0];
    expect(want, `${base0} is new in the corpus: count it by hand and add it to EXPECTED`).toBeDefined();
    expect([i.lines, i.auditEvents, i.etcdEntries, i.otherLines, i.skippedLines + i.skippedItems, rep.totals.requests]).toEqual(want);
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
