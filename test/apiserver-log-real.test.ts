// Real kube-apiserver logs (fixtures/apiserver-log/real/): lines of the apiserver's own klog log that other people
// pasted into public issues, one file per excerpt, copied as pasted (wrappers, terminal wraps and all). The answers
// below were worked out by reading the lines, not by running the tool; fixtures/apiserver-log/real/SOURCES.md says
// how (what counts as a request, what as a trace block) and, per file, the source, the release and the wrapper.
//
// Each case runs bin/audit-scan.js as a child process on one file and checks:
// - the requests (`totals.requests`) and how the apiserver log showed them (httplog / traceOnly / timeoutOnly /
//   joined), and the trace blocks, against the hand answer;
// - that no line the apiserver wrote was skipped: `skippedLines` may be at most `skippable`, the lines in the file
//   that the apiserver did not write (a reporter's `...`, minikube's section headers, kubelet or embedded-etcd
//   lines in a k3s stream).
//
// Where the tool disagreed with a hand answer (02, 04, 20, 21 when the set was collected), the tool was fixed; the
// expectation is the hand answer.
import { describe, expect, it } from 'vitest';
import { spawnCli } from './support.js';
import type { ScanReport } from '../src/analyze/report.js';

const DIR = 'fixtures/apiserver-log/real';

interface Case {
  file: string;
  requests: number;
  by: { httplog: number; traceOnly: number; timeoutOnly: number; joined: number };
  traceBlocks: number;
  skippable: number;
}

const by = (httplog: number, traceOnly: number, timeoutOnly: number, joined = 0) => ({ httplog, traceOnly, timeoutOnly, joined });

const CASES: Case[] = [
  // https://github.com/kubermatic/dashboard/issues/200 — 1.6.9, `kubectl logs --timestamps`, old wrap.go:75 httplog
  { file: '01-kubermatic-200-timestamps-wrap75.log', requests: 7, by: by(7, 0, 0), traceBlocks: 0, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/issues/57708 — 1.9–1.10, wrap.go:42 httplog of a 504 with its statusStack
  // the record's `[UA addr]` tail comes after the stack, so the first line ends at the status code (client unknown)
  { file: '02-k8s-57708-wrap42-504-stack.log', requests: 1, by: by(1, 0, 0), traceBlocks: 0, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/issues/74412 — 1.14-era, wrap.go:47 httplog of a watch
  { file: '03-k8s-74412-wrap47.log', requests: 1, by: by(1, 0, 0), traceBlocks: 0, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/issues/85221 — 1.17/1.18-alpha, httplog.go:90 old form, two lines
  // wrapped by the reporter's terminal at column 238
  // (each wrapped line's tail, `934785: (444.045µs) 400 [...]`, is read with its first part as one request)
  { file: '04-k8s-85221-httplog90-terminal-wrapped.log', requests: 4, by: by(4, 0, 0), traceBlocks: 0, skippable: 0 },
  // https://github.com/k3s-io/k3s/issues/2278 — v1.18.8+k3s1, journald, 1.18 httplog form, kubelet lines between
  { file: '05-k3s-2278-journald-httplog-v1.18.log', requests: 1, by: by(1, 0, 0), traceBlocks: 0, skippable: 4 },
  // https://github.com/kubernetes/kubernetes/issues/97798 — 1.21-dev, httplog.go:89, raw method verb
  { file: '06-k8s-97798-httplog89-v1.21.log', requests: 1, by: by(1, 0, 0), traceBlocks: 0, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/pull/106085 — 1.23-dev, httplog.go:129 with audit-ID, apf_fd
  { file: '07-k8s-pr106085-httplog129-v1.23.log', requests: 2, by: by(2, 0, 0), traceBlocks: 0, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/issues/125614 — 1.30.2, WATCH logged at its start (resp=0), "Starting watch"
  { file: '08-k8s-125614-httplog-watch-resp0-v1.30.log', requests: 1, by: by(1, 0, 0), traceBlocks: 0, skippable: 1 },
  // https://github.com/spidernet-io/spiderpool/pull/4089 — 1.31.0 (kind), httplog.go:134 with apf_ fields
  { file: '09-spiderpool-4089-httplog134-v1.31.log', requests: 2, by: by(2, 0, 0), traceBlocks: 0, skippable: 0 },
  // https://github.com/kubernetes/minikube/issues/4402 — 1.14, `minikube logs`, trace.go:81 `(started: …)` traces
  { file: '10-minikube-4402-trace81-v1.14.log', requests: 3, by: by(0, 3, 0), traceBlocks: 4, skippable: 1 },
  // https://github.com/rancher/rancher/issues/22264 — 1.13-era, every line indented by one space, trace.go:76
  { file: '11-rancher-22264-indented-trace76.log', requests: 4, by: by(0, 4, 0), traceBlocks: 4, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/issues/87126 — 1.16.4, `kubectl logs --tail=5`, storage traces only
  { file: '12-k8s-87126-kubectl-logs-trace116-v1.16.log', requests: 0, by: by(0, 0, 0), traceBlocks: 2, skippable: 0 },
  // https://github.com/kubernetes/website/issues/20364 — 1.18.0-rc.1, old `minikube logs` with `* ` on every line
  { file: '13-website-20364-minikube-star-v1.18.log', requests: 0, by: by(0, 0, 0), traceBlocks: 1, skippable: 2 },
  // https://github.com/k3s-io/k3s/issues/759 — v1.18.9+k3s1, /var/log/messages, trace.go:116 "List" url:
  { file: '14-k3s-759-syslog-trace116-v1.18.log', requests: 1, by: by(0, 1, 0), traceBlocks: 1, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/issues/97798 — 1.21-dev, trace.go:205 "List" with count:
  { file: '15-k8s-97798-trace205-v1.21.log', requests: 1, by: by(0, 1, 0), traceBlocks: 1, skippable: 0 },
  // https://github.com/kubernetes/minikube/issues/10087 — 1.20, `minikube logs`, grpc client lines, Get + storage trace
  { file: '16-minikube-10087-logs-v1.20.log', requests: 1, by: by(0, 1, 0), traceBlocks: 2, skippable: 1 },
  // https://github.com/k3s-io/k3s/issues/2938 — v1.20.2+k3s1, journald (lower-case month), embedded etcd JSON line
  { file: '17-k3s-2938-journald-etcd-json-v1.20.log', requests: 1, by: by(0, 1, 0), traceBlocks: 1, skippable: 1 },
  // https://github.com/k3s-io/k3s/issues/4191 — 1.21 (k3s), journald, Get + "List etcd3" storage trace
  { file: '18-k3s-4191-journald-trace-v1.21.log', requests: 1, by: by(0, 1, 0), traceBlocks: 2, skippable: 0 },
  // https://github.com/loft-sh/vcluster/issues/145 — 1.19–1.23 (vcluster's k3s), five "List etcd3" cache-fill traces
  { file: '19-vcluster-145-list-etcd3.log', requests: 0, by: by(0, 0, 0), traceBlocks: 5, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/issues/115993 — 1.22–1.25, `<pod> <container> ` prefix (stern-style)
  { file: '20-k8s-115993-stern-prefix-v1.22.log', requests: 1, by: by(0, 1, 0), traceBlocks: 1, skippable: 0 },
  // https://github.com/k3s-io/k3s/issues/8956 — v1.25.13+k3s1, journalctl's pager: long lines cut and ending in `>`
  // (the "Get" header, cut at `kubernet>`, is still the block's first line: trace.go's klog header says so)
  { file: '21-k3s-8956-journalctl-truncated-v1.25.log', requests: 1, by: by(0, 1, 0), traceBlocks: 1, skippable: 1 },
  // https://github.com/k3s-io/k3s/issues/8025 — v1.26.4+k3s1, journald, "Update" with a nested "GuaranteedUpdate etcd3"
  { file: '22-k3s-8025-journald-nested-etcd3-v1.26.log', requests: 1, by: by(0, 1, 0), traceBlocks: 1, skippable: 0 },
  // https://github.com/kubernetes/kubernetes/pull/137202 — 1.36-dev, 1.29+ fields, nested "cacher.GetList", no END
  { file: '23-k8s-pr137202-cacher-getlist-v1.36.log', requests: 1, by: by(0, 1, 0), traceBlocks: 1, skippable: 0 },
  // https://github.com/openshift/kubernetes/issues/1472 — OpenShift (1.22–1.30 form), wrap.go:54 timeout lines
  { file: '24-openshift-1472-timeout-wrap54.log', requests: 4, by: by(0, 0, 4), traceBlocks: 0, skippable: 0 },
  // https://github.com/fluent/fluent-bit/issues/10888 — 1.31+, a "Post-timeout activity" line (not a request record)
  { file: '25-fluent-bit-10888-post-timeout-v1.31.log', requests: 0, by: by(0, 0, 0), traceBlocks: 0, skippable: 0 },
];

describe('real kube-apiserver log excerpts (fixtures/apiserver-log/real)', () => {
  it.each(CASES)('$file', async (c) => {
    const res = await spawnCli(['-o', 'json', '--syslog-year', '2026', `${DIR}/${c.file}`]);
    const r = JSON.parse(res.stdout) as ScanReport;
    const al = r.apiserverLog?.inputs[0];
    expect(r.totals.requests, 'totals.requests').toBe(c.requests);
    expect(al?.requests ?? by(0, 0, 0), 'apiserverLog.inputs[0].requests').toEqual(c.by);
    expect(al?.traceBlocks ?? 0, 'apiserverLog.inputs[0].traceBlocks').toBe(c.traceBlocks);
    expect(r.inputs[0]!.skippedLines, `inputs[0].skippedLines (${JSON.stringify(r.inputs[0]!.skipReasons)})`).toBeLessThanOrEqual(c.skippable);
  });
});
