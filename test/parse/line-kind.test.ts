import { describe, expect, it } from 'vitest';
import { classifyLine } from '../../src/decode/line-kind.js';

describe('classifyLine', () => {
  const ev = '{"kind":"Event"}';
  it.each([
    ['', 'blank', null],
    ['   ', 'blank', null],
    [ev, 'json', ev],
    ['\ufeff' + ev, 'json', ev],
    [`2026-11-30T10:00:00.123456789Z ${ev}`, 'json', ev],
    [`[pod/kube-apiserver-m1/kube-apiserver] ${ev}`, 'json', ev],
    [`[pod/kube-apiserver-m1/kube-apiserver] 2026-11-30T10:00:00.123456789Z ${ev}`, 'json', ev],
    [`master-1 ${ev}`, 'json', ev],
    [`Nov 30 10:00:00 master-1 kube-apiserver[123]: ${ev}`, 'json', ev],
    ['I1130 10:00:00.120345       1 controller.go:615] quota admission added evaluator for: leases', 'klog', null],
    ['E1130 10:00:00.120345       1 status.go:71] apiserver received an error {"err": "x"}', 'klog', null],
    ['2021-05-14 16:47:40.070062 W | wal: sync duration of 2.004393954s, expected less than 1s', 'capnslog', null],
    ['goroutine 1 [running]:', 'other', null],
    ['panic: assertion failed: Page expected to be: 23, but self identifies as 0', 'other', null],
    ['go.etcd.io/bbolt._assert(...)', 'other', null],
    ['/tmp/etcd-release-3.5.0/etcd/release/etcd/server/main.go:32 +0x45', 'other', null],
    ['garbage here', 'unknown', null],
  ])('%j → %s', (line, kind, text) => {
    const k = classifyLine(line);
    expect(k.kind).toBe(kind);
    if (text !== null && k.kind === 'json') expect(k.text).toBe(text);
  });
});

describe('classifyLine: runtime, syslog and journald wrappers (issue 15)', () => {
  const ev = '{"kind":"Event"}';
  const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
  const range = 'read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" " with result "range_response_count:7130 size:13313287" took too long (130.768157ms) to execute';
  it.each<[string, Record<string, unknown>]>([
    // containerd / CRI-O: the stream, then F (a whole line, or the end of one) or P (a part; the line goes on)
    [`2026-11-30T12:00:01.332000000Z stdout F ${ev}`, { kind: 'cri', text: ev }],
    [`2026-11-30T12:00:01.332000000Z stderr F ${ev}`, { kind: 'cri', text: ev }],
    [`2026-11-30T12:00:01.332000000+01:00 stdout P {"kind":"Ev`, { kind: 'partial', text: '{"kind":"Ev', wrapper: 'cri' }],
    ['2026-11-30T12:00:01.332000000Z stdout F', { kind: 'cri', text: '' }],
    // not CRI: another stream name, another tag, no space after the tag
    [`2026-11-30T12:00:01Z stdin F ${ev}`, { kind: 'unknown' }],
    [`2026-11-30T12:00:01Z stdout X ${ev}`, { kind: 'unknown' }],
    // kubectl --timestamps and journald short-iso: the ISO time, then the JSON or "host ident[pid]: "
    [`2026-11-30T12:00:01.2+00:00 ${ev}`, { kind: 'json', text: ev, wrapper: 'kubectl' }],
    [`2026-11-30T12:00:01+0000 master-1 kube-apiserver[812]: ${ev}`, { kind: 'json', text: ev, wrapper: 'journald' }],
    [`2026-11-30T12:00:01+0000 master-1 etcd: ${ev}`, { kind: 'json', text: ev, wrapper: 'journald' }],
    // stern and kubetail: "<pod> <container> " before a klog line or a trace's next line (kubernetes#115993)
    ['kube-apiserver-m1.c.dev.internal kube-apiserver I0223 05:35:39.126843       1 trace.go:205] Trace[1]: "Update" url:/x (23-Feb-2023 05:35:38.587) (total time: 538ms):', { kind: 'klog', wrapper: 'pod and container' }],
    ['kube-apiserver-m1.c.dev.internal kube-apiserver Trace[1]: [538.99ms] [538.99ms] END', { kind: 'klog-bare', text: 'Trace[1]: [538.99ms] [538.99ms] END', wrapper: 'pod and container' }],
    // not: two words before something else
    [`kube-apiserver-m1 kube-apiserver hello ${ev}`, { kind: 'unknown' }],
    // syslog / journald short and short-precise, any case of month
    [`Nov 30 12:00:01 master-1 etcd[900]: ${ev}`, { kind: 'json', text: ev, wrapper: 'syslog' }],
    [`nov 30 12:00:01 master-1 k3s[21139]: ${ev}`, { kind: 'json', text: ev, wrapper: 'syslog' }],
    [`NOV  3 12:00:01.131000 master-1 etcd[900]: ${ev}`, { kind: 'json', text: ev, wrapper: 'syslog' }],
    // capnslog with its header under syslog: the capnslog time
    [`Nov 30 12:00:01 m1 etcd[900]: 2026-11-30 12:00:01.000000 W | etcdserver: ${range}`, { kind: 'capnslog', wrapper: 'syslog' }],
    // capnslog without its header: the package kept, or gone; the prefix's time
    [`Nov 30 12:00:01 m1 etcd[900]: etcdserver: ${range}`, { kind: 'capnslog-bare', pkg: 'etcdserver', text: range, tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'syslog' }],
    [`Nov 30 12:00:01 m1 etcd: ${range}`, { kind: 'capnslog-bare', pkg: 'etcdserver', text: range, tsMs: Date.UTC(2026, 10, 30, 12, 0, 1) }],
    [`Nov 30 12:00:01.250000 m1 kube-etcd[7]: ${range}`, { kind: 'capnslog-bare', pkg: 'etcdserver', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1, 250) }],
    [`2026-11-30T12:00:01+0000 m1 etcd[900]: ${range}`, { kind: 'capnslog-bare', pkg: 'etcdserver', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'journald' }],
    ['Nov 30 11:00:00 m1 etcd[900]: etcd Version: 3.4.13', { kind: 'capnslog-bare', pkg: 'etcdmain', text: 'etcd Version: 3.4.13' }],
    ['Nov 30 11:00:00 m1 etcd[900]: etcdmain: etcd Version: 3.4.13', { kind: 'capnslog-bare', pkg: 'etcdmain', text: 'etcd Version: 3.4.13' }],
    ['Nov 30 11:00:00 m1 etcd[900]: rafthttp: peer 8e9e05c52164694d became active', { kind: 'capnslog-bare', pkg: 'rafthttp', text: 'peer 8e9e05c52164694d became active' }],
    // a version line is etcd's only under an etcd-ish ident; a read-only range request is etcd's under any
    ['Nov 30 11:00:00 m1 myapp[1]: etcd Version: 3.4.13', { kind: 'unknown' }],
    ['Nov 30 11:00:00 m1 k3s[1]: time="2026-11-30T11:00:00Z" level=info msg="Starting k3s"', { kind: 'other', what: 'etcd message (syslog)' }],
    ['Nov 30 11:00:00 m1 rke2[1]: some message', { kind: 'other', what: 'etcd message (syslog)' }],
    // a package word under another ident is not etcd's
    ['Nov 30 11:00:00 m1 sshd[1]: etcdserver: nothing', { kind: 'unknown' }],
    // without a prefix, a bare range request is no known format (no time, no source)
    [range, { kind: 'unknown' }],
  ])('%j', (line, want) => {
    expect(classifyLine(line, NOW)).toMatchObject(want);
  });

  it('dates syslog in --syslog-year, or in the latest year not after now', () => {
    const line = `Dec 31 23:59:59 m1 etcd: ${'read-only range request "key:\\"/a\\" " took too long (1s) to execute'}`;
    expect(classifyLine(line, NOW)).toMatchObject({ tsMs: Date.UTC(2025, 11, 31, 23, 59, 59) });
    expect(classifyLine(line, Date.UTC(2026, 11, 31, 0, 0, 0))).toMatchObject({ tsMs: Date.UTC(2026, 11, 31, 23, 59, 59) });
    expect(classifyLine(line, NOW, 2020)).toMatchObject({ tsMs: Date.UTC(2020, 11, 31, 23, 59, 59) });
    expect(classifyLine(`Dec  2 11:00:00 m1 etcd: ${'read-only range request "key:\\"/a\\" " took too long (1s) to execute'}`, NOW)).toMatchObject({ tsMs: Date.UTC(2026, 11, 2, 11, 0, 0) });
    expect(classifyLine(`Dec  3 12:00:01 m1 etcd: ${'read-only range request "key:\\"/a\\" " took too long (1s) to execute'}`, NOW)).toMatchObject({ tsMs: Date.UTC(2025, 11, 3, 12, 0, 1) });
  });
});
