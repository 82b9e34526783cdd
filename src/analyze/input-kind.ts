/*! When an input yields no audit event and no etcd entry, say what it looked like (issue 11): feeding the
 * apiserver's own log instead of its audit log is the easiest mistake in an incident, and "nothing heavy in this
 * log" must never be the answer to the wrong file. Works on the counts the scan keeps; reads nothing again. */

import type { InputStats } from '../aggregate/scan-state.js';
import { MUST_GATHER_METADATA } from '../decode/json-shape.js';


/** true when an input gave the analysis something (audit events, slow etcd reads, any etcd line), or is a
 * must-gather's own metadata file: read as what it is, not the wrong file. */
export function inputYielded(i: Pick<InputStats, 'auditEvents' | 'etcdEntries' | 'otherKinds'> & Partial<Pick<InputStats, 'apiserverLog'>> & { metricSamples?: number }): boolean {
  if (i.auditEvents > 0 || i.etcdEntries > 0 || (i.metricSamples ?? 0) > 0) return true;
  // the apiserver's own log: read as what it is (its report part says what it could not show)
  const al = i.apiserverLog;
  if (al !== undefined && al.httplog + al.httplogLegacy + al.requestTraces + al.timeouts > 0) return true;
  for (const k of i.otherKinds.keys()) if (k.startsWith('etcd ') || k === MUST_GATHER_METADATA) return true;
  return false;
}

const share = (n: number, of: number): boolean => of > 0 && n * 2 >= of;

/** A short description of an input that yielded nothing, e.g. "it looks like the apiserver's klog log: …". */
export function describeInput(i: InputStats, isStdin: boolean): string {
  const content = i.lines - i.blankLines;
  if (i.lines === 0) return isStdin ? 'nothing arrived on stdin' : 'it is empty';
  if (content <= 0) return 'it holds only blank lines';
  const reasons = i.skipReasons;
  const count = (k: string): number => reasons.get(k) ?? 0;
  const al = i.apiserverLog;
  if (al !== undefined && share(al.textLines + al.jsonRecords, content) && (al.starts > 0 || al.traceLines > 0 || al.callers.size > 0)) {
    return "it is the apiserver's own log with no request in it (no httplog line, trace or timeout): kube-apiserver runs at -v<3 and nothing was slow; run it with --vmodule=httplog=3 (one line a request), or read its audit log (--audit-log-path)";
  }
  const klog = i.otherKinds.get('klog') ?? 0;
  if (share(klog, content)) {
    return "it looks like a klog log with no request line in it (a component's own log, or the apiserver's at -v<3): audit events are written to the file named by kube-apiserver's --audit-log-path (or sent to --audit-webhook-config-file)";
  }
  if (share(i.otherKinds.get('go-panic') ?? 0, content)) return 'it looks like a Go panic or stack trace, not a log of events';
  if (share(i.otherKinds.get('linux-auditd') ?? 0, content)) {
    return "it is Linux auditd's log (the kernel's audit of system calls, /var/log/audit/audit.log), not the Kubernetes audit log: that is the file named by kube-apiserver's --audit-log-path (often /var/log/kubernetes/audit/audit.log)";
  }
  if (share(i.otherKinds.get('prometheus metrics') ?? 0, content)) {
    return "it is a Prometheus metrics dump without the apiserver's storage metrics (apiserver_storage_objects, apiserver_storage_list_*): take it from the apiserver, kubectl get --raw /metrics";
  }
  let gke = 0;
  let gkeReason = '';
  for (const [k, n] of reasons) {
    if (!k.startsWith('GKE')) continue;
    gke += n;
    gkeReason ||= k;
  }
  if (share(gke, content)) return `it holds GKE Cloud Logging entries, none of them a Kubernetes API request it can read: ${gkeReason}`;
  const sample = i.sample ?? '';
  if (share(count('JSON is not an audit event') + count('batch item is not an audit event'), content + i.skippedItems)) {
    const kind = /kind: ([^;]+)/.exec(sample)?.[1];
    if (kind !== undefined && /\bapiVersion\b/.test(sample) && /\bmetadata\b/.test(sample)) {
      return `it holds Kubernetes objects (kind ${kind}), not audit events: the output of kubectl get -o json?`;
    }
    const msg = /msg: ([^;]+)/.exec(sample)?.[1];
    if (msg !== undefined) return `it looks like a JSON log of some component (first message: ${msg}), not audit events or etcd's slow-request lines`;
    return `it holds JSON that is not audit events (${sample.replace(/^json /, '') || 'no auditID, stage or verb'})`;
  }
  if (share(count('not JSON'), content)) return 'its lines start like JSON but do not parse (cut or corrupted?)';
  if (content === 1 && count('truncated last line') === 1) return 'its only line is cut off';
  if (share(count('not a known format'), content)) {
    const first = sample.trim();
    if (/^(#{1,6} |```|\| |- \[|\* )/.test(first) || /\]\(https?:/.test(first)) return `it looks like text or Markdown, not a log (first line: ${quote(first)})`;
    return `no line is in a known log format (first line: ${quote(first)})`;
  }
  return 'no line is an audit event or an etcd entry';
}

function quote(s: string): string {
  return JSON.stringify(s.length > 60 ? s.slice(0, 59) + '…' : s);
}
