// Thin and odd logs (issue 21): etcd lines pasted from `minikube logs`, Linux auditd's audit.log (the same name as
// the apiserver's), klog under a syslog prefix, and a last line without a newline that is whole.
import { describe, expect, it } from 'vitest';
import { classifyLine } from '../../src/decode/line-kind.js';
import { runCli } from '../support.js';

const R = 'read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" " with result "range_response_count:7130 size:13313287" took too long (130.768157ms) to execute';

describe('line kinds', () => {
  it.each<[string, string, unknown]>([
    ['a capnslog line bulleted by minikube logs', `* 2026-11-30 10:00:00.000000 W | etcdserver: ${R}`, { kind: 'capnslog', wrapper: 'minikube' }],
    ['a zap line bulleted by minikube logs', '* {"level":"warn","ts":"2026-11-30T10:00:00Z","msg":"x"}', { kind: 'json', wrapper: 'minikube' }],
    ['a klog line bulleted by minikube logs', '* I1130 10:00:00.000000       1 trace.go:236] Trace[1]', { kind: 'klog', wrapper: 'minikube', header: { caller: 'trace.go:236', msg: 'Trace[1]' } }],
    ['a minikube section header', '==> etcd [e5c4b1f2a3d4] <==', { kind: 'other', what: 'minikube logs header' }],
    ['a bulleted section header', '* ==> kube-apiserver [9a8b7c6d5e4f] <==', { kind: 'other', what: 'minikube logs header' }],
    ['Markdown stays unknown', '* a list item', { kind: 'unknown' }],
    ['auditd', 'type=SYSCALL msg=audit(1701417600.123:456): arch=c000003e syscall=59 success=yes', { kind: 'other', what: 'linux-auditd' }],
    ['auditd with its node name', 'node=cp1 type=USER_LOGIN msg=audit(1701417600.123:456): pid=1 uid=0', { kind: 'other', what: 'linux-auditd' }],
    ['klog under syslog', 'Dec  1 08:00:00 host kube-apiserver[123]: I1201 08:00:00.123456       1 httplog.go:132] "HTTP"', { kind: 'klog', wrapper: 'syslog', tsMs: Date.UTC(2026, 11, 1, 8), header: { caller: 'httplog.go:132', msg: '"HTTP"' } }],
  ])('%s', (_name, line, want) => {
    expect(classifyLine(line, Date.UTC(2026, 11, 2), 2026)).toMatchObject(want as object);
  });
});

describe('inputs that are not what they seem', () => {
  it('etcd pasted from minikube logs is read as etcd, not as Markdown', async () => {
    const r = JSON.parse((await runCli(['-o', 'json', '-'], `==> etcd [e5c4b1f2a3d4] <==\n* 2026-11-30 10:00:00.000000 W | etcdserver: ${R}\n`)).stdout);
    expect(r.inputs[0]).toMatchObject({ etcdEntries: 1, skippedLines: 0, looksLike: null, wrappers: { minikube: 1 } });
    expect(r.etcdRanges[0]).toMatchObject({ key: '/registry/pods/', reads: 1, objectsPerRead: 7130 });
  });

  it("Linux auditd's audit.log says what it is, and its whole last line without a newline is not 'truncated'", async () => {
    const r = await runCli(['-o', 'json', '-'], 'type=SYSCALL msg=audit(1701417600.123:456): arch=c000003e syscall=59\ntype=EXECVE msg=audit(1701417600.123:456): argc=1 a0="ls"');
    expect(r.code).toBe(1);
    const i = JSON.parse(r.stdout).inputs[0];
    expect(i).toMatchObject({ skippedLines: 0, otherLines: 2, skipReasons: {} });
    expect(i.looksLike).toMatch(/^it is Linux auditd's log/);
  });

  it('an unknown last line without a newline is "not a known format", not "truncated"', async () => {
    const r = JSON.parse((await runCli(['-o', 'json', '-'], 'hello world\nstill not a log')).stdout);
    expect(r.inputs[0].skipReasons).toEqual({ 'not a known format': 2 });
  });

  it('`audit-scan version` prints the version (kubectl version habit)', async () => {
    const r = await runCli(['version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
