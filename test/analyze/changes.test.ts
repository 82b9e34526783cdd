// The changes a log shows that diff --split-at can cut at (issue 47 #1): table-driven.
import { describe, expect, it } from 'vitest';
import { changeLabel, changeMatches, changeOf, isChangeSpec } from '../../src/analyze/changes.js';
import { ApiserverRestarts } from '../../src/analyze/apiserver-changes.js';
import { normalizeAuditEvent } from '../../src/decode/audit-event.js';
import { auditLine, valueOf } from '../support.js';

const ev = (f: Record<string, unknown>) => valueOf(normalizeAuditEvent(JSON.parse(auditLine(f)), () => 'x'));
const ds = (over: Record<string, unknown> = {}) => ({ verb: 'patch', requestURI: '/apis/apps/v1/namespaces/logging/daemonsets/vector', objectRef: { resource: 'daemonsets', apiGroup: 'apps', namespace: 'logging', name: 'vector' }, user: { username: 'alice' }, ...over });

describe('changeOf', () => {
  it.each([
    ['an operator patching a DaemonSet', ds(), 'daemonset/logging/vector'],
    ['a FlowSchema created', { verb: 'create', requestURI: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', objectRef: { resource: 'flowschemas', apiGroup: 'flowcontrol.apiserver.k8s.io', name: 'vector' }, user: { username: 'bob' } }, 'flowschema/vector'],
    ['a Deployment updated by CI', ds({ verb: 'update', objectRef: { resource: 'deployments', apiGroup: 'apps', namespace: 'shop', name: 'web' }, user: { username: 'system:serviceaccount:ci:deployer' } }), 'deployment/shop/web'],
    ['the controller writing status', ds({ objectRef: { resource: 'daemonsets', apiGroup: 'apps', namespace: 'logging', name: 'vector', subresource: 'status' } }), null],
    ['a kube-system controller writing the object', ds({ user: { username: 'system:serviceaccount:kube-system:daemon-set-controller' } }), null],
    ['a refused patch', ds({ responseStatus: { code: 422 } }), null],
    ['a read', ds({ verb: 'get' }), null],
    ['a dry run (kubectl diff)', ds({ requestURI: '/apis/apps/v1/namespaces/logging/daemonsets/vector?dryRun=All&fieldManager=kubectl-client-side-apply' }), null],
    ['a dry run, not the first parameter', ds({ requestURI: '/apis/apps/v1/namespaces/logging/daemonsets/vector?fieldManager=flux&dryRun=All' }), null],
    ['an earlier stage', ds({ stage: 'RequestReceived' }), null],
    ['a resource of that name in another group', ds({ objectRef: { resource: 'deployments', apiGroup: 'extensions.example.com', namespace: 'a', name: 'b' } }), null],
  ])('%s', (_name, f, label) => {
    const c = changeOf(ev(f));
    expect(c === null ? null : changeLabel(c)).toBe(label);
  });
});

describe('naming a change on the command line', () => {
  const c = changeOf(ev(ds()))!;
  it.each([
    ['daemonset/logging/vector', true, true],
    ['DaemonSets/logging/vector', true, true],
    // KIND/NAME: in any namespace
    ['daemonset/vector', true, true],
    ['deployment/logging/vector', true, false],
    ['2026-11-30T12:30:00Z', false, false],
    ['12:30', false, false],
  ])('%s', (spec, isSpec, matches) => {
    expect(isChangeSpec(spec)).toBe(isSpec);
    expect(isSpec && changeMatches(spec, c)).toBe(matches);
  });
});

// The apiserver's own log: each start's flag dump and version against the start before it (apiserver-changes.ts).
// Two starts of the same apiserver, the first at 12:00:00 (serving at 12:00:10), the second at 12:10:40 (its flag
// dump), serving at 12:10:50: a change is at 12:10:50 unless the start has no "Serving securely" line.
describe('the changes at an apiserver\'s restarts', () => {
  const T = (hms: string) => Date.UTC(2026, 10, 30, Number(hms.slice(0, 2)), Number(hms.slice(3, 5)), Number(hms.slice(6, 8)));
  const klogLine = (hms: string, caller: string, msg: string) => `I1130 ${hms}.000000       1 ${caller}] ${msg}`;
  const flag = (hms: string, name: string, value: string) => klogLine(hms, 'flags.go:64', `FLAG: --${name}=${JSON.stringify(value)}`);
  const start = (hms: string, servingHms: string | null, version: string | null, flags: Record<string, string>) => [
    ...Object.entries(flags).map(([n, v]) => flag(hms, n, v)),
    ...(version === null ? [] : [klogLine(hms, 'server.go:156', `Version: ${version}`)]),
    ...(servingHms === null ? [] : [klogLine(servingHms, 'secure_serving.go:213', 'Serving securely on [::]:6443')]),
  ];
  const E = { 'etcd-servers': 'https://10.0.0.10:2379' };
  const changes = (lines: string[]) => {
    const r = new ApiserverRestarts('kube-apiserver.log', T('23:00:00'), 2026);
    for (const l of lines) r.line(Buffer.from(l));
    return r.changes().map((c) => [new Date(c.atMs).toISOString().slice(11, 19), changeLabel(c), `${c.restart!.from} → ${c.restart!.to}`]);
  };
  const first = start('12:00:00', '12:00:10', 'v1.29.3', { ...E, v: '3' });

  it.each([
    ['a flag set, one changed, one gone; a new version', [...first, ...start('12:10:40', '12:10:50', 'v1.30.1', { ...E, 'goaway-chance': '0.001', v: '2' })], [
      ['12:10:50', 'apiserver-version/v1.30.1', 'v1.29.3 → v1.30.1'],
      ['12:10:50', 'apiserver-flag/goaway-chance', '(not set) → "0.001"'],
      ['12:10:50', 'apiserver-flag/v', '"3" → "2"'],
    ]],
    ['the same flags again: no change', [...first, ...start('12:10:40', '12:10:50', 'v1.29.3', { ...E, v: '3' })], []],
    // a start cut by the log's end, or one that crashed before serving: its first flag line
    ['no "Serving securely" line: the first flag line', [...first, ...start('12:10:40', null, null, { ...E, v: '4' })], [['12:10:40', 'apiserver-flag/v', '"3" → "4"']]],
    // crash-looping: a second dump before any "Serving securely" is the next start
    ['two dumps without serving between', [...start('12:00:00', null, null, { ...E, v: '3' }), ...start('12:00:30', null, null, { ...E, v: '5' })], [['12:00:30', 'apiserver-flag/v', '"3" → "5"']]],
    // at -v=0 a start writes no flags: the flags of the starts around it are not compared
    ['a start at -v=0 between', [...first, ...start('12:05:00', '12:05:10', 'v1.29.3', {}), ...start('12:10:40', '12:10:50', 'v1.29.3', { ...E, v: '2' })], []],
    // the controller-manager's dump (no --etcd-servers) in the same file is not the apiserver's
    ['another component\'s dump', [...first, ...start('12:05:00', '12:05:10', null, { controllers: '*', v: '2' }), ...start('12:10:40', '12:10:50', null, { ...E, v: '3' })], []],
    ['secrets: a key file rotated, a token file set, credentials in a URL', [
      ...start('12:00:00', '12:00:10', null, { 'etcd-servers': 'https://root:CANARY-1@10.0.0.10:2379', 'service-account-key-file': '/pki/CANARY-a.key', 'token-auth-file': '' }),
      ...start('12:10:40', '12:10:50', null, { 'etcd-servers': 'https://root:CANARY-2@10.0.0.10:2379', 'service-account-key-file': '/pki/CANARY-b.key', 'token-auth-file': '/etc/CANARY-tokens.csv' }),
    ], [
      ['12:10:50', 'apiserver-flag/etcd-servers', '(set) → (changed)'],
      ['12:10:50', 'apiserver-flag/service-account-key-file', '(set) → (changed)'],
      ['12:10:50', 'apiserver-flag/token-auth-file', '"" → (set)'],
    ]],
  ])('%s', (_name, lines, want) => {
    expect(changes(lines)).toEqual(want);
  });

  // the same two starts as the apiserver writes them in other forms, and as wrappers keep them
  const second = start('12:10:40', '12:10:50', 'v1.30.1', { ...E, 'goaway-chance': '0.001', v: '3' });
  const want = [['12:10:50', 'apiserver-version/v1.30.1', 'v1.29.3 → v1.30.1'], ['12:10:50', 'apiserver-flag/goaway-chance', '(not set) → "0.001"']];
  const json = (l: string) => {
    // --logging-format=json: {"ts" (seconds), "caller", "msg", "v"}
    const m = /^I1130 (\d\d:\d\d:\d\d)\.000000 +1 (\S+)\] (.*)$/.exec(l)!;
    return JSON.stringify({ ts: T(m[1]!) / 1000, caller: m[2]!.startsWith('flags') ? `flag/${m[2]}` : `app/${m[2]}`, msg: m[3], v: 1 });
  };
  it.each([
    ['klog text', (l: string) => l],
    ['--logging-format=json', json],
    ['containerd (CRI)', (l: string) => `2026-11-30T12:00:00.000000000Z stderr F ${l}`],
    ['Docker json-file', (l: string) => JSON.stringify({ log: `${l}\n`, stream: 'stderr', time: '2026-11-30T12:00:00.000000000Z' })],
    ['Docker json-file of the JSON format', (l: string) => JSON.stringify({ log: `${json(l)}\n`, stream: 'stderr', time: '2026-11-30T12:00:00.000000000Z' })],
    ['stern (pod and container)', (l: string) => `kube-apiserver-cp-1 kube-apiserver ${l}`],
  ])('%s', (_name, wrap) => {
    expect(changes([...first, ...second].map(wrap))).toEqual(want);
  });

  it('kubectl logs --timestamps: the prefix\'s time, as the scan reads it', () => {
    const stamped = [...first, ...second].map((l) => `2026-11-30T${/^I1130 (\S+)/.exec(l)![1]!.slice(0, 8)}.250000000Z ${l}`);
    expect(changes(stamped)[0]![0]).toBe('12:10:50');
    const r = new ApiserverRestarts('x', T('23:00:00'), 2026);
    for (const l of stamped) r.line(Buffer.from(l));
    expect(r.changes()[0]!.atMs).toBe(T('12:10:50') + 250);
  });

  it('two apiservers a shipper names in one file are compared each with itself', () => {
    const loki = (pod: string, l: string) => JSON.stringify({ labels: { pod }, line: l, timestamp: '2026-11-30T12:00:00Z' });
    const a = [...first, ...second].map((l) => loki('kube-apiserver-a', l));
    const b = [...first, ...first.map((l) => l.replace('12:00:', '12:10:'))].map((l) => loki('kube-apiserver-b', l));
    const r = new ApiserverRestarts('all.jsonl', T('23:00:00'), 2026);
    for (const l of [...a, ...b].sort((x, y) => (JSON.parse(x).line < JSON.parse(y).line ? -1 : 1))) r.line(Buffer.from(l));
    expect(r.changes().map((c) => [changeLabel(c), c.restart!.input])).toEqual([
      ['apiserver-version/v1.30.1', 'all.jsonl (kube-apiserver-a)'],
      ['apiserver-flag/goaway-chance', 'all.jsonl (kube-apiserver-a)'],
    ]);
  });

  it('names a restart\'s change on the command line', () => {
    const c = { atMs: 0, kind: 'apiserver-flag', namespace: '', name: 'goaway-chance', verb: 'restart', username: '', userAgent: '' };
    for (const spec of ['apiserver-flag/goaway-chance', 'apiserver-flag/--goaway-chance', 'APISERVER-FLAGS/goaway-chance']) expect([isChangeSpec(spec), changeMatches(spec, c)]).toEqual([true, true]);
    expect(changeMatches('apiserver-flag/v', c)).toBe(false);
    const v = { ...c, kind: 'apiserver-version', name: 'v1.30.1' };
    for (const spec of ['apiserver-version', 'apiserver-version/v1.30.1']) expect([isChangeSpec(spec), changeMatches(spec, v)]).toEqual([true, true]);
    expect(changeMatches('apiserver-version/v1.31.0', v)).toBe(false);
  });
});
