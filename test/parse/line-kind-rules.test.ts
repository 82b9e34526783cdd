// Each rule of the line classifier and the prefix stripper, seen whole (every field of the answer, not a subset):
// which prefixes come off and in what order, the time and program each gives, the one-day rule that dates a
// syslog line, the shapes of a Go panic, and the limits of the "hostname {…}" form. Times worked out by hand.
import { describe, expect, it } from 'vitest';
import { classifyLine, stripPrefixes, type Prefixes } from '../../src/decode/line-kind.js';

const ev = '{"kind":"Event"}';
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0); // 1 December 2026, 12:00:00 UTC
const none = (rest: string): Prefixes => ({ rest, prefixed: false, wrapper: null, tsMs: null, ident: null });

describe('stripPrefixes', () => {
  it.each<[string, string, Prefixes]>([
    ['nothing to take off', ev, none(ev)],
    ['kubectl --prefix, a pod', `[pod/kube-apiserver-m1/kube-apiserver] ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: null, ident: null }],
    ['kubectl --prefix, a deployment', `[deployment/metrics] ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: null, ident: null }],
    ['kubectl --prefix, a daemonset', `[daemonset/vector] ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: null, ident: null }],
    ['kubectl --prefix, a statefulset', `[statefulset/etcd] ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: null, ident: null }],
    ['another bracket is no kubectl prefix', `[job/x] ${ev}`, none(`[job/x] ${ev}`)],
    ['a pod prefix that never closes', `[pod/x ${ev}`, none(`[pod/x ${ev}`)],
    ['kubectl --timestamps, an offset with a colon', `2026-11-30T12:00:01.5+01:00 ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: Date.UTC(2026, 10, 30, 11, 0, 1, 500), ident: null }],
    ['an offset without a colon', `2026-11-30T12:00:01-0130 ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: Date.UTC(2026, 10, 30, 13, 30, 1), ident: null }],
    ['journald short-iso names the program', `2026-11-30T12:00:01Z m1 kube-apiserver[812]: ${ev}`, { rest: ev, prefixed: true, wrapper: 'journald', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), ident: 'kube-apiserver' }],
    ['journald short-iso without a pid', `2026-11-30T12:00:01Z m1 etcd: x`, { rest: 'x', prefixed: true, wrapper: 'journald', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), ident: 'etcd' }],
    // the outermost wrapper names the input; the first time found is the line's
    ['kubectl around kubectl --timestamps', `[pod/a/b] 2026-11-30T12:00:01Z ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), ident: null }],
    ['two times: the first', `2026-11-30T12:00:01Z 2026-11-30T13:00:00Z ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), ident: null }],
    ['syslog around journald: the first program', `Nov 30 12:00:01 m1 etcd[900]: 2026-11-30T12:00:02Z m1 k3s[3]: ${ev}`, { rest: ev, prefixed: true, wrapper: 'syslog', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), ident: 'etcd' }],
    ['syslog, fractions of a second', `Nov  3 12:00:01.131999 m1 etcd[900]: ${ev}`, { rest: ev, prefixed: true, wrapper: 'syslog', tsMs: Date.UTC(2026, 10, 3, 12, 0, 1, 131), ident: 'etcd' }],
    ['syslog, a month nobody names: no time, still taken off', `Foo 30 12:00:01 m1 etcd: ${ev}`, { rest: ev, prefixed: true, wrapper: 'syslog', tsMs: null, ident: 'etcd' }],
    // at most four layers come off
    ['five kubectl prefixes: four come off', `${'[pod/a/b] '.repeat(5)}${ev}`, { rest: `[pod/a/b] ${ev}`, prefixed: true, wrapper: 'kubectl', tsMs: null, ident: null }],
    ['digits that are not a time', `2026-11-30 12:00:01 ${ev}`, none(`2026-11-30 12:00:01 ${ev}`)],
    ['a time later in the line is no prefix', `12 2026-11-30T12:00:01Z ${ev}`, none(`12 2026-11-30T12:00:01Z ${ev}`)],
    ['a syslog date later in the line is no prefix', `hello Nov 30 12:00:01 m1 etcd: ${ev}`, none(`hello Nov 30 12:00:01 m1 etcd: ${ev}`)],
    ['nanoseconds', `2026-11-30T12:00:01.123456789Z ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1, 123), ident: null }],
    ['a time that cannot be: taken off, no time', `2026-13-01T12:00:00Z ${ev}`, { rest: ev, prefixed: true, wrapper: 'kubectl', tsMs: null, ident: null }],
    // journald's "host ident[pid]: " right after the time, not further on
    ['two words before an ident with a pid', `2026-11-30T12:00:01Z x m1 etcd[9]: y`, { rest: 'x m1 etcd[9]: y', prefixed: true, wrapper: 'kubectl', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), ident: null }],
    ['two words before an ident', `2026-11-30T12:00:01Z x m1 etcd: y`, { rest: 'x m1 etcd: y', prefixed: true, wrapper: 'kubectl', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), ident: null }],
    ['only the closing pid leaves the program name', `Nov 30 12:00:01 m1 my[1]app[2]: x`, { rest: 'x', prefixed: true, wrapper: 'syslog', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), ident: 'my[1]app' }],
  ])('%s', (_name, line, want) => expect(stripPrefixes(line, NOW)).toStrictEqual(want));

  it.each(['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].map((m, i) => [m, i] as const))('reads the month %s as month %i', (month, i) => {
    expect(stripPrefixes(`${month} 15 06:07:08 m1 etcd: x`, NOW, 2026).tsMs).toBe(Date.UTC(2026, i, 15, 6, 7, 8));
  });

  it('dates a syslog line in the latest year that puts it at most a day after now', () => {
    const t = (line: string) => stripPrefixes(`${line} m1 etcd: x`, NOW).tsMs;
    expect(t('Dec  2 12:00:00')).toBe(Date.UTC(2026, 11, 2, 12, 0, 0)); // exactly a day after now: this year
    expect(t('Dec  2 12:00:01')).toBe(Date.UTC(2025, 11, 2, 12, 0, 1)); // a second more: last year
    expect(t('Jan  1 00:00:00')).toBe(Date.UTC(2026, 0, 1));
    expect(stripPrefixes('Dec  2 12:00:01 m1 etcd: x', NOW, 2030).tsMs).toBe(Date.UTC(2030, 11, 2, 12, 0, 1));
  });
});

describe('classifyLine, the whole answer', () => {
  const range = 'read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" " with result "range_response_count:7130 size:13313287" took too long (130.768157ms) to execute';
  const capn = `2026-11-30 12:00:01.000000 W | etcdserver: ${range}`;
  it.each<[string, string, unknown]>([
    ['a byte-order mark alone', '\ufeff', { kind: 'blank' }],
    ['an event line', ev, { kind: 'json', text: ev, prefixed: false, wrapper: null }],
    ['an event line after a byte-order mark', `\ufeff${ev}`, { kind: 'json', text: ev, prefixed: false, wrapper: null }],
    ['a CRI end without fractions of a second', `2026-11-30T12:00:01Z stdout F ${ev}`, { kind: 'cri', text: ev }],
    ['a CRI prefix later in the line', `1 2026-11-30T12:00:01Z stdout F ${ev}`, { kind: 'unknown' }],
    ['klog with a long thread id', 'I1130 10:00:00.120345   12345 controller.go:615] quota', { kind: 'klog', header: { severity: 'I', month: 11, day: 30, dayMs: 36_000_120, caller: 'controller.go:615', msg: 'quota' }, wrapper: null, tsMs: null }],
    ['klog with two spaces after the thread id', 'W1130 10:00:00.120345 7  controller.go:615] quota', { kind: 'klog', header: { severity: 'W', month: 11, day: 30, dayMs: 36_000_120, caller: 'controller.go:615', msg: 'quota' }, wrapper: null, tsMs: null }],
    ['a klog header later in the line', 'see I1130 10:00:00.120345 1 f.go:1] x', { kind: 'unknown' }],
    ['"panic: " later in the line', 'the apiserver said panic: no', { kind: 'unknown' }],
    ['a range request later in the message', `Nov 30 12:00:01 m1 app[1]: foo read-only range request x`, { kind: 'unknown' }],
    ['a range request with its package, under another program', `Nov 30 12:00:01 m1 kube-etcd[7]: etcdserver: ${range}`, { kind: 'capnslog-bare', pkg: 'etcdserver', text: range, tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'syslog' }],
    ['a version line under kubectl (no program named)', `[pod/etcd-m1/etcd] etcd Version: 3.5.9`, { kind: 'unknown' }],
    ['a version line under a program that ends in etcd', `Nov 30 12:00:01 m1 kube-etcd[7]: etcd Version: 3.5.9`, { kind: 'unknown' }],
    ['a package later in an etcd message', `Nov 30 12:00:01 m1 etcd[7]: some text pkg: more`, { kind: 'other', what: 'etcd message (syslog)' }],
    ['a space, a word, then the object', ` a ${ev}`, { kind: 'unknown' }],
    ['a tab', '\t', { kind: 'blank' }],
    ['a JSON array', '[{"kind":"Event"}]', { kind: 'json', text: '[{"kind":"Event"}]', prefixed: false, wrapper: null }],
    ['a bracket that is not "[p"', '[1]', { kind: 'json', text: '[1]', prefixed: false, wrapper: null }],
    ['a "[p" that is no kubectl prefix', '[pie] x', { kind: 'unknown' }],
    ['JSON after a prefix', `[pod/a/b] ${ev}`, { kind: 'json', text: ev, prefixed: true, wrapper: 'kubectl' }],
    ['JSON with spaces after a prefix', `[pod/a/b] {"kind": "Event", "user": {"username": "u"}}`, { kind: 'json', text: '{"kind": "Event", "user": {"username": "u"}}', prefixed: true, wrapper: 'kubectl' }],
    ['JSON after a deployment prefix', `[deployment/metrics] ${ev}`, { kind: 'json', text: ev, prefixed: true, wrapper: 'kubectl' }],
    ['an array whose first item is a string', '["a"]', { kind: 'json', text: '["a"]', prefixed: false, wrapper: null }],
    ['an empty array', '[]', { kind: 'json', text: '[]', prefixed: false, wrapper: null }],
    ['a bracket before "a"', '[a', { kind: 'unknown' }],
    ['a bracket before "z"', '[z', { kind: 'unknown' }],
    ['a bracket before "{"', '[{', { kind: 'json', text: '[{', prefixed: false, wrapper: null }],
    ['a bracket before "`"', '[`', { kind: 'json', text: '[`', prefixed: false, wrapper: null }],
    ['klog after a prefix', '[pod/a/b] I1130 10:00:00.120345       1 controller.go:615] quota', { kind: 'klog', header: { severity: 'I', month: 11, day: 30, dayMs: 36_000_120, caller: 'controller.go:615', msg: 'quota' }, wrapper: 'kubectl', tsMs: null }],
    ['capnslog after a prefix', `[pod/etcd-m1/etcd] ${capn}`, { kind: 'capnslog', text: capn, wrapper: 'kubectl' }],
    ['capnslog, no prefix', capn, { kind: 'capnslog', text: capn, wrapper: null }],
    ['a CRI part', `2026-11-30T12:00:01.5Z stderr P {"a"`, { kind: 'partial', text: '{"a"', wrapper: 'cri' }],
    ['a CRI end', `2026-11-30T12:00:01.5-05:00 stdout F ${ev}`, { kind: 'cri', text: ev }],
    // bare etcd under syslog or journald
    ['a range request under another program', `Nov 30 12:00:01 m1 kube-etcd[7]: ${range}`, { kind: 'capnslog-bare', pkg: 'etcdserver', text: range, tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'syslog' }],
    ['the package kept', `Nov 30 12:00:01 m1 etcd[7]: etcdserver: ${range}`, { kind: 'capnslog-bare', pkg: 'etcdserver', text: range, tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'syslog' }],
    ['a version line under k3s', `2026-11-30T12:00:01Z m1 k3s[3]: etcd Version: 3.5.9`, { kind: 'capnslog-bare', pkg: 'etcdmain', text: 'etcd Version: 3.5.9', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'journald' }],
    ['a version line under rke2', `Nov 30 12:00:01 m1 rke2[3]: etcd Version: 3.5.9`, { kind: 'capnslog-bare', pkg: 'etcdmain', text: 'etcd Version: 3.5.9', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'syslog' }],
    ['a version line under a program that only starts like etcd', `Nov 30 12:00:01 m1 etcdctl2[3]: etcd Version: 3.5.9`, { kind: 'unknown' }],
    ['a version line under etcd-backup (a word boundary)', `Nov 30 12:00:01 m1 etcd-backup[3]: etcd Version: 3.5.9`, { kind: 'capnslog-bare', pkg: 'etcdmain', text: 'etcd Version: 3.5.9', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'syslog' }],
    ['any package under etcd itself', `Nov 30 12:00:01 m1 etcd[7]: raft.node: 8e9e became leader`, { kind: 'capnslog-bare', pkg: 'raft.node', text: '8e9e became leader', tsMs: Date.UTC(2026, 10, 30, 12, 0, 1), wrapper: 'syslog' }],
    ['a package under k3s is k3s’s own message', `Nov 30 12:00:01 m1 k3s[7]: rafthttp: peer active`, { kind: 'other', what: 'etcd message (syslog)' }],
    ['a package with nothing after it', `Nov 30 12:00:01 m1 etcd[7]: rafthttp:  `, { kind: 'other', what: 'etcd message (syslog)' }],
    ['another etcd message under journald', `2026-11-30T12:00:01Z m1 etcd[7]: started`, { kind: 'other', what: 'etcd message (journald)' }],
    // "hostname {…}": one token, then the object
    ['hostname and JSON', `master-1 ${ev}`, { kind: 'json', text: ev, prefixed: true, wrapper: 'hostname' }],
    ['hostname and JSON under syslog: the wrapper is syslog', `Nov 30 12:00:01 m1 fluentd[1]: master-1 ${ev}`, { kind: 'json', text: ev, prefixed: true, wrapper: 'syslog' }],
    ['two words before the object', `master 1 ${ev}`, { kind: 'unknown' }],
    ['a brace inside the token', `m{1 ${ev}`, { kind: 'unknown' }],
    ['a token of 255 characters', `${'h'.repeat(255)} ${ev}`, { kind: 'json', text: ev, prefixed: true, wrapper: 'hostname' }],
    ['a token of 256 characters', `${'h'.repeat(256)} ${ev}`, { kind: 'unknown' }],
    ['a space, then the object', ` ${ev}`, { kind: 'unknown' }],
    // a Go panic, line by line
    ['panic', 'panic: runtime error: index out of range', { kind: 'other', what: 'go-panic' }],
    ['fatal error', 'fatal error: concurrent map writes', { kind: 'other', what: 'go-panic' }],
    ['a goroutine header', 'goroutine 118 [chan receive, 3 minutes]:', { kind: 'other', what: 'go-panic' }],
    ['created by', 'created by go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).Start', { kind: 'other', what: 'go-panic' }],
    ['a signal line', '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5f1c2e]', { kind: 'other', what: 'go-panic' }],
    ['a tab-indented frame', '\t/usr/local/go/src/runtime/panic.go:1038 +0x215', { kind: 'other', what: 'go-panic' }],
    ['a file and line without an offset', '    /go/src/main.go:32', { kind: 'other', what: 'go-panic' }],
    ['a function frame', 'main.(*T).run(0xc000123, {0x1, 0x2})', { kind: 'other', what: 'go-panic' }],
    ['a file with a bad offset', '/go/src/main.go:32 +0xZZ', { kind: 'unknown' }],
    ['a goroutine without a number', 'goroutine x [running]:', { kind: 'unknown' }],
    ['a word and a parenthesis in the middle', 'main.run(x) and more', { kind: 'unknown' }],
  ])('%s', (_name, line, want) => expect(classifyLine(line, NOW)).toStrictEqual(want));
});

describe('a Go panic in an etcd log, through the scan', () => {
  it('every line of it is counted as a Go panic line, none skipped as broken JSON', async () => {
    const { runCli } = await import('../support.js');
    const zap = JSON.stringify({ level: 'warn', ts: '2026-11-30T12:00:00.000Z', caller: 'etcdserver/util.go:170', msg: 'apply request took too long', took: '120.5ms', 'expected-duration': '100ms', prefix: 'read-only range ', request: 'key:"/registry/pods/" range_end:"/registry/pods0" ', response: 'range_response_count:10 size:100' });
    const panic = [
      'panic: runtime error: invalid memory address or nil pointer dereference',
      '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5f1c2e]',
      '',
      'goroutine 118 [running]:',
      'go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).apply(0xc000123, {0xc0004e2000, 0x1, 0x1})',
      '\t/go/src/go.etcd.io/etcd/server/etcdserver/server.go:2232 +0x2f5',
    ];
    const r = await runCli(['-o', 'json', '-'], [zap, ...panic].join('\n') + '\n');
    const i = JSON.parse(r.stdout).inputs[0];
    expect([r.code, i.lines, i.etcdEntries, i.otherLines, i.blankLines, i.skippedLines, i.otherKinds]).toStrictEqual([0, 7, 1, 5, 1, 0, { 'go-panic': 5 }]);
  });
});
