// Time findings as a user reads them: each sentence, figure and fix of restart, gap, storm and wave findings,
// on logs whose every event is placed by hand (counts per second, gaps to the millisecond).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLine, runCli } from '../support.js';

const T0 = Date.UTC(2026, 10, 30, 12);
const at = (ms: number) => new Date(T0 + ms).toISOString();
// why each kind of finding hurts, as the report says it (src/analyze/postmortem.ts whyOf)
const WHY_RESTART = 'After an apiserver restart every client relists: informers with resourceVersion=0 are served by the watch cache once it is ready; clients that list without resourceVersion all read etcd at once.';
const WHY_GAP = 'While the audit stream is silent, nothing in it says what the control plane did: a restart, dropped audit events, or an idle apiserver.';
const WHY_STORM = 'Many lists of one resource at once: each read from etcd reads the whole key prefix, each served from the watch cache costs apiserver CPU and memory to copy and encode.';
let seq = 0;
/** `n` requests spread evenly over [fromMs, toMs). */
function spread(n: number, fromMs: number, toMs: number, f: Record<string, unknown>): string[] {
  return Array.from({ length: n }, (_, k) => {
    const t = fromMs + Math.floor((k * (toMs - fromMs)) / n);
    return auditLine({ auditID: `e${seq++}`, requestReceivedTimestamp: at(t), stageTimestamp: at(t), ...f });
  });
}
/** `perSec` requests in each second of [fromS, toS). */
const perSecond = (fromS: number, toS: number, perSec: number, f: Record<string, unknown>): string[] => spread((toS - fromS) * perSec, fromS * 1000, toS * 1000, f);

const lease = { verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', objectRef: { resource: 'leases', namespace: 'kube-node-lease', name: 'n1', apiGroup: 'coordination.k8s.io' }, user: { username: 'system:node:n1' }, userAgent: 'kubelet/v1.30.2' };
const cmList = (ua = 'agent/1', rv?: string) => ({ verb: 'list', requestURI: `/api/v1/configmaps${rv === undefined ? '' : `?resourceVersion=${rv}`}`, objectRef: { resource: 'configmaps', apiVersion: 'v1' }, user: { username: `system:serviceaccount:ops:${ua.split('/')[0]}` }, userAgent: ua });
const watchEnd = (endMs: number, i: number) => auditLine({ auditID: `w${seq++}`, verb: 'watch', requestURI: `/api/v1/pods?watch=true&resourceVersion=5&fieldSelector=spec.nodeName%3Dn${i}`, objectRef: { resource: 'pods', apiVersion: 'v1' }, user: { username: `system:node:n${i}` }, userAgent: 'kubelet/v1.30.2', requestReceivedTimestamp: at(endMs - 300_000), stageTimestamp: at(endMs) });
const identityLease = (ms: number, verb: 'create' | 'update', holder: string) =>
  auditLine({ auditID: `l${seq++}`, level: 'Request', verb, requestURI: `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-x3k2${verb === 'update' ? '' : ''}`, objectRef: { resource: 'leases', namespace: 'kube-system', name: 'apiserver-x3k2', apiGroup: 'coordination.k8s.io', apiVersion: 'v1' }, user: { username: 'system:apiserver' }, userAgent: 'kube-apiserver/v1.30.2', requestObject: { kind: 'Lease', spec: { holderIdentity: `apiserver-x3k2_${holder}` } }, requestReceivedTimestamp: at(ms), stageTimestamp: at(ms) });

const byTime = (ls: string[]) => ls.sort((a, b) => Date.parse(JSON.parse(a).stageTimestamp) - Date.parse(JSON.parse(b).stageTimestamp));
async function findings(lines: string[], args: string[] = []): Promise<any[]> {
  const r = await runCli(['-o', 'json', '--kube-version', '1.30', ...args, '-'], byTime(lines).join('\n') + '\n');
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).findings;
}
const ofKind = (fs: any[], ...kinds: string[]) => fs.filter((f) => kinds.includes(f.kind));

// 10 lease updates a second (100 ms apart) for 100 s, none in [40 s, 60 s): the last before the pause at
// 39.900 s, the first after at 60.000 s, a 20.1 s gap. The median spacing is 100 ms, so the adaptive
// threshold is max(5 s, 100 × 100 ms) = 10 s.
const steady = () => [...perSecond(0, 40, 10, lease), ...perSecond(60, 100, 10, lease)];
const GAP_TEXT = `(stdin): no audit events for 20.1 s (${at(39_900)} – ${at(60_000)}; a gap here is ≥ 10 s: 100× this input's median spacing of 100 ms, at least 5 s)`;

describe('gaps and restarts: the edges of each window', () => {
  it('a lease sign counts from 10 s before a gap to 60 s after it, both ends included', async () => {
    const gapOf = async (ms: number) => ofKind(await findings([...steady(), ...perSecond(100, 140, 10, lease), identityLease(ms, 'create', 'a1')]), 'audit-gap', 'apiserver-restart').find((f: any) => f.gapSeconds > 0);
    // the gap runs 39.9 s – 60 s
    expect((await gapOf(29_900)).signs).toEqual(['identity lease created']);
    expect((await gapOf(29_899)).signs).toEqual([]);
    expect((await gapOf(120_000)).signs).toEqual(['identity lease created']);
    expect((await gapOf(120_001)).signs).toEqual([]);
  });

  it('a takeover up to 60 s after another is part of its restart; 60.001 s after, a restart of its own', async () => {
    const quiet = perSecond(0, 200, 10, lease);
    const starts = async (second: number) => ofKind(await findings([...quiet, identityLease(10_000, 'update', 'a1'), identityLease(30_000, 'update', 'b2'), identityLease(second, 'update', 'c3')]), 'apiserver-restart').map((f: any) => f.start);
    expect(await starts(90_000)).toEqual([at(30_000)]);
    expect(await starts(90_001)).toEqual([at(30_000), at(90_001)]);
  });

  it('a lease created and taken over just before a pause: both said, joined with "and"', async () => {
    // created by a1, renewed by a1 (its first holder), then b2 holds it
    const [f] = ofKind(await findings([...steady(), identityLease(38_000, 'create', 'a1'), identityLease(38_500, 'update', 'a1'), identityLease(39_000, 'update', 'b2')]), 'apiserver-restart');
    expect(f.signs).toEqual(['identity lease created', 'identity lease taken over']);
    expect(f.summary).toBe(`${GAP_TEXT}; the apiserver identity lease was created and taken over.`);
  });

  it('restarts of two inputs in time order, ties by input name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-order-'));
    const gapAt = (fromS: number) => [...perSecond(0, fromS, 10, lease), ...perSecond(fromS + 20, 200, 10, lease)].map((l) => l.replace(/"auditID":"e/, `"auditID":"${fromS}-e`));
    const b = join(dir, 'b.log');
    const a = join(dir, 'a.log');
    writeFileSync(b, byTime(gapAt(40)).join('\n') + '\n');
    writeFileSync(a, byTime(gapAt(100)).join('\n') + '\n');
    const r = await runCli(['-o', 'json', '--kube-version', '1.30', b, a]);
    const gaps = JSON.parse(r.stdout).findings.filter((f: any) => f.kind === 'audit-gap');
    expect(gaps.map((g: any) => [g.input, g.start.slice(11, 19)])).toEqual([
      [b, '12:00:39'],
      [a, '12:01:39'],
    ]);
    const c = join(dir, 'c.log');
    writeFileSync(c, byTime(gapAt(40)).join('\n').replace(/"auditID":"40-e/g, '"auditID":"c40-e') + '\n');
    const r2 = await runCli(['-o', 'json', '--kube-version', '1.30', c, b]);
    expect(JSON.parse(r2.stdout).findings.filter((f: any) => f.kind === 'audit-gap').map((g: any) => g.input)).toEqual([b, c]);
  });
});

describe('gaps and restarts, sentence by sentence', () => {
  it('a gap with no sign: an audit gap, log loss or an idle apiserver', async () => {
    expect(ofKind(await findings(steady()), 'audit-gap', 'apiserver-restart')).toEqual([
      {
        kind: 'audit-gap',
        severity: 'info',
        summary: `${GAP_TEXT}; no relist burst after it (log loss, or an idle apiserver).`,
        fix: 'Check the audit backend for dropped events (apiserver_audit_error_total, log rotation) if the apiserver did not restart.',
        input: '(stdin)',
        start: at(39_900),
        end: at(60_000),
        gapSeconds: 20.1,
        gapThresholdSeconds: 10,
        listsInMinuteBefore: 0,
        listsInMinuteAfter: 0,
        watchesClosedBefore: 0,
        rejectedInMinuteAfter: 0,
        rejectedInitializing: 0,
        rejectedClients: [],
        signs: [],
        certainty: null,
        why: WHY_GAP,
      },
    ]);
  });

  it('--gap replaces the adaptive threshold, and says so: 20 s finds the 20.1 s pause, 30 s does not', async () => {
    const [g] = ofKind(await findings(steady(), ['--gap', '20s']), 'audit-gap');
    expect(g).toMatchObject({ gapThresholdSeconds: 20, summary: `(stdin): no audit events for 20.1 s (${at(39_900)} – ${at(60_000)}; a gap here is ≥ --gap 20 s); no relist burst after it (log loss, or an idle apiserver).` });
    expect(ofKind(await findings(steady(), ['--gap', '30s']), 'audit-gap', 'apiserver-restart')).toEqual([]);
  });

  it('4 watches ending in the 10 s before are mentioned but are no sign; 5 are', async () => {
    const four = [0, 1, 2, 3].map((i) => watchEnd(39_500, i));
    const [g4] = ofKind(await findings([...steady(), ...four]), 'audit-gap', 'apiserver-restart');
    expect(g4).toMatchObject({ kind: 'audit-gap', watchesClosedBefore: 4, signs: [], summary: `${GAP_TEXT}; no relist burst after it (log loss, or an idle apiserver); 4 watches ended in the 10 s before.` });
    const five = [0, 1, 2, 3, 4].map((i) => watchEnd(39_500, i));
    const [g5] = ofKind(await findings([...steady(), ...five]), 'audit-gap', 'apiserver-restart');
    expect(g5).toEqual({
      kind: 'apiserver-restart',
      severity: 'info',
      summary: `${GAP_TEXT}; 5 watches ended in the 10 s before.`,
      fix: 'An apiserver restarted; check why (OOM kill, liveness probe, upgrade) in its pod events and logs.',
      input: '(stdin)',
      start: at(39_900),
      end: at(60_000),
      gapSeconds: 20.1,
      gapThresholdSeconds: 10,
      listsInMinuteBefore: 0,
      listsInMinuteAfter: 0,
      watchesClosedBefore: 5,
      rejectedInMinuteAfter: 0,
      rejectedInitializing: 0,
      rejectedClients: [],
      signs: ['watches ended before'],
      certainty: 'seen',
      why: WHY_RESTART,
    });
    // a watch that ended 11.9 s before the pause is not counted (the window is 10 s, in whole 1 s buckets)
    const early = [0, 1, 2, 3, 4].map((i) => watchEnd(i === 0 ? 28_000 : 39_500, i));
    expect(ofKind(await findings([...steady(), ...early]), 'audit-gap', 'apiserver-restart')[0]).toMatchObject({ kind: 'audit-gap', watchesClosedBefore: 4 });
  });

  it('a relist burst is ≥ 10 lists in the minute after and ≥ 2× the minute before', async () => {
    const after = (n: number) => spread(n, 60_000, 60_900, cmList('agent/1', '0'));
    const [r10] = ofKind(await findings([...steady(), ...after(10)]), 'audit-gap', 'apiserver-restart');
    expect(r10).toMatchObject({ kind: 'apiserver-restart', severity: 'medium', listsInMinuteBefore: 0, listsInMinuteAfter: 10, signs: ['relist burst after'] });
    expect(r10.summary).toContain('; a gap here is ≥ 10 s: 100× this input\'s median spacing of 100 ms, at least 5 s), then 10 lists in the next minute against 0 in the minute before: clients relisting after an apiserver restart.');
    expect(r10.fix).toBe('Relists after a restart are served from the watch cache only once it is ready and only with resourceVersion=0 (or NotOlderThan); clients that relist without resourceVersion hit etcd all at once. Stagger restarts across apiservers, and queue heavy listers with APF.');
    expect(ofKind(await findings([...steady(), ...after(9)]), 'audit-gap', 'apiserver-restart')[0]).toMatchObject({ kind: 'audit-gap', listsInMinuteAfter: 9 });
    // 6 lists in the minute before: 12 after is a burst, 11 is not
    const before = spread(6, 30_000, 30_600, cmList('agent/1', '0'));
    expect(ofKind(await findings([...steady(), ...before, ...after(12)]), 'audit-gap', 'apiserver-restart')[0]).toMatchObject({ kind: 'apiserver-restart', listsInMinuteBefore: 6, listsInMinuteAfter: 12 });
    expect(ofKind(await findings([...steady(), ...before, ...after(11)]), 'audit-gap', 'apiserver-restart')[0]).toMatchObject({ kind: 'audit-gap', listsInMinuteBefore: 6, listsInMinuteAfter: 11 });
  });

  it('times are read to the millisecond: 400 a second steps 2, 3, 2, 3 ms, median 2 ms, and the threshold is the 5 s floor', async () => {
    const fast = [...perSecond(0, 20, 400, lease), ...perSecond(26, 40, 400, lease)];
    const [g] = ofKind(await findings(fast), 'audit-gap');
    // the last before the pause at 19.9975 s, read as 19.997 s; the first after at 26.000 s
    expect(g).toMatchObject({ gapSeconds: 6, gapThresholdSeconds: 5, summary: `(stdin): no audit events for 6 s (${at(19_997)} – ${at(26_000)}; a gap here is ≥ 5 s: 100× this input's median spacing of 2 ms, at least 5 s); no relist burst after it (log loss, or an idle apiserver).` });
  });

  it('the identity lease: created during a pause it is a sign; taken over without a pause it is a restart of its own', async () => {
    const [created] = ofKind(await findings([...steady(), identityLease(60_010, 'create', 'a1')]), 'audit-gap', 'apiserver-restart');
    expect(created).toMatchObject({ kind: 'apiserver-restart', severity: 'info', signs: ['identity lease created'], summary: `${GAP_TEXT}; the apiserver identity lease was created.` });
    // no pause: a takeover 30 s in (a1 → b2), and one 30 s later (b2 → c3) is the same restart; 61 s later a new one
    const quiet = perSecond(0, 200, 10, lease);
    const took = ofKind(await findings([...quiet, identityLease(10_000, 'update', 'a1'), identityLease(30_000, 'update', 'b2'), identityLease(60_000, 'update', 'c3'), identityLease(121_000, 'update', 'd4')]), 'apiserver-restart');
    expect(took).toEqual([
      {
        kind: 'apiserver-restart',
        severity: 'info',
        summary: `(stdin): an apiserver started at ${at(30_000)} (identity lease taken over) with no pause in this input's audit stream (shorter than its gap threshold of 10 s: 100× this input's median spacing of 100 ms, at least 5 s).`,
        fix: 'An apiserver restarted; check why (OOM kill, liveness probe, upgrade) in its pod events and logs.',
        input: '(stdin)',
        start: at(30_000),
        end: at(30_000),
        gapSeconds: 0,
        gapThresholdSeconds: 10,
        listsInMinuteBefore: 0,
        listsInMinuteAfter: 0,
        watchesClosedBefore: 0,
        rejectedInMinuteAfter: 0,
        rejectedInitializing: 0,
        rejectedClients: [],
        signs: ['identity lease taken over'],
        certainty: 'seen',
        why: WHY_RESTART,
      },
      expect.objectContaining({ start: at(121_000), signs: ['identity lease taken over'] }),
    ]);
    // with a relist burst after the takeover, the sentence says so
    const [withLists] = ofKind(await findings([...quiet, identityLease(10_000, 'update', 'a1'), identityLease(30_000, 'update', 'b2'), ...spread(20, 31_000, 32_000, cmList('agent/1', '0'))]), 'apiserver-restart');
    expect(withLists.summary).toBe(`(stdin): an apiserver started at ${at(30_000)} (identity lease taken over) with no pause in this input's audit stream (shorter than its gap threshold of 10 s: 100× this input's median spacing of 100 ms, at least 5 s); 20 lists in the next minute against 0 in the minute before.`);
    expect(withLists).toMatchObject({ severity: 'medium', signs: ['relist burst after', 'identity lease taken over'] });
  });

  it('findings of several inputs come in time order, then by input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-gaps-'));
    const b = steady();
    const a = [...perSecond(0, 30, 10, lease), ...perSecond(50, 100, 10, lease)].map((l) => l.replace(/"auditID":"e/, '"auditID":"a'));
    writeFileSync(join(dir, 'b.log'), byTime(b).join('\n') + '\n');
    writeFileSync(join(dir, 'a.log'), byTime(a).join('\n') + '\n');
    writeFileSync(join(dir, 'c.log'), byTime(steady().map((l) => l.replace(/"auditID":"e/, '"auditID":"c'))).join('\n') + '\n');
    const r = await runCli(['-o', 'json', '-j', '1', join(dir, 'c.log'), join(dir, 'b.log'), join(dir, 'a.log')]);
    const gaps = ofKind(JSON.parse(r.stdout).findings, 'audit-gap').map((f) => [f.input.slice(dir.length + 1), f.start]);
    expect(gaps).toEqual([['a.log', at(29_900)], ['b.log', at(39_900)], ['c.log', at(39_900)]]);
  });
});

describe('list storms, sentence by sentence', () => {
  const quiet = () => perSecond(0, 300, 1, lease);

  it('an etcd storm in full: 60 lists in 3 s over a quiet log', async () => {
    const [s] = ofKind(await findings([...quiet(), ...perSecond(100, 103, 20, cmList())]), 'list-storm');
    expect(s).toEqual({
      kind: 'list-storm',
      severity: 'medium',
      summary: `60 configmaps lists in 3 s (${at(100_000)} – ${at(103_000)}), peak 20/s against a usual 0/s; 100% went to etcd. Top: agent 60.`,
      fix: 'The storm reaches etcd: make these clients list with resourceVersion=0 (watch cache) and spread their restarts; queue them with APF meanwhile.',
      resource: 'configmaps',
      start: at(100_000),
      end: at(103_000),
      requests: 60,
      peakPerSecond: 20,
      clients: [{ client: 'agent', userAgent: 'agent/1', username: 'system:serviceaccount:ops:agent', requests: 60, nodes: 0, etcdShare: 1 }],
      etcdShare: 1,
      refusedShare: 0,
      beganBeforeLog: false,
      endedAfterLog: false,
      // the storm's 3 buckets with 10 either side
      sparkline: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 20, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      afterRestart: null,
      why: WHY_STORM,
    });
  });

  it('high when it reaches etcd at ≥ 100/s or with ≥ 1,000 lists; medium below', async () => {
    const sev = async (lines: string[]) => ofKind(await findings([...quiet(), ...lines]), 'list-storm').map((s) => [s.requests, s.peakPerSecond, s.severity]);
    expect(await sev(perSecond(100, 101, 100, cmList()))).toEqual([[100, 100, 'high']]);
    expect(await sev(perSecond(100, 101, 99, cmList()))).toEqual([[99, 99, 'medium']]);
    expect(await sev(perSecond(100, 120, 50, cmList()))).toEqual([[1000, 50, 'high']]);
    expect(await sev(perSecond(100, 119, 50, cmList()))).toEqual([[950, 50, 'medium']]);
    // from the cache, however big: low
    expect(await sev(perSecond(100, 101, 100, cmList('agent/1', '0')))).toEqual([[100, 100, 'low']]);
  });

  it('half of it to etcd counts as reaching etcd; 49% does not', async () => {
    const half = ofKind(await findings([...quiet(), ...spread(50, 100_000, 105_000, cmList('a-agent/1')), ...spread(50, 100_000, 105_000, cmList('b-agent/1', '0'))]), 'list-storm')[0];
    expect(half).toMatchObject({ etcdShare: 0.5, severity: 'medium', summary: `100 configmaps lists in 5 s (${at(100_000)} – ${at(105_000)}), peak 20/s against a usual 0/s; 50% went to etcd. Top: a-agent 50, b-agent 50.` });
    expect(half.clients.map((c: any) => [c.userAgent, c.requests, c.etcdShare])).toEqual([['a-agent/1', 50, 1], ['b-agent/1', 50, 0]]);
    const less = ofKind(await findings([...quiet(), ...spread(49, 100_000, 105_000, cmList('a-agent/1')), ...spread(51, 100_000, 105_000, cmList('b-agent/1', '0'))]), 'list-storm')[0];
    // the first second holds 11 of b-agent's 51 (k·5000/51 < 1000 for k ≤ 10) and 10 of a-agent's 49: peak 21/s
    expect(less).toMatchObject({ etcdShare: 0.49, severity: 'low', summary: `100 configmaps lists in 5 s (${at(100_000)} – ${at(105_000)}), peak 21/s against a usual 0/s; 51% served from the watch cache (harmless for etcd). Top: b-agent 51, a-agent 49.` });
    expect(less.fix).toBe('Served from the watch cache: costs apiserver CPU and memory, not etcd. Spread the clients’ restarts if apiserver CPU suffered.');
  });

  it('names the top 3 clients in the sentence (with their nodes when more than one) and lists 10', async () => {
    const agents = Array.from({ length: 11 }, (_, i) => spread(10, 100_000, 101_000, cmList(`c${String(i + 1).padStart(2, '0')}/1`))).flat();
    const [s] = ofKind(await findings([...quiet(), ...agents]), 'list-storm');
    expect(s.summary).toBe(`110 configmaps lists in 1 s (${at(100_000)} – ${at(101_000)}), peak 110/s against a usual 0/s; 100% went to etcd. Top: c01 10, c02 10, c03 10.`);
    expect(s.clients.map((c: any) => c.client)).toEqual(['c01', 'c02', 'c03', 'c04', 'c05', 'c06', 'c07', 'c08', 'c09', 'c10']);
    // kubelets on 30 nodes and one on a single node
    const kubelet = (node: string) => ({ verb: 'list', requestURI: `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}&resourceVersion=0`, objectRef: { resource: 'pods', apiVersion: 'v1' }, user: { username: `system:node:${node}` }, userAgent: 'kubelet/v1.30.2' });
    const many = Array.from({ length: 30 }, (_, i) => spread(2, 100_000, 101_000, kubelet(`n${i}`))).flat();
    const one = spread(40, 100_000, 101_000, { ...kubelet('solo'), userAgent: 'kubelet/v1.29.0' });
    const [p] = ofKind(await findings([...quiet(), ...many, ...one]), 'list-storm');
    expect(p.summary).toBe(`100 pods lists in 1 s (${at(100_000)} – ${at(101_000)}), peak 100/s against a usual 0/s; 100% served from the watch cache (harmless for etcd). Top: kubelet 40, kubelet (30 nodes) 60.`.replace('kubelet 40, kubelet (30 nodes) 60', 'kubelet (30 nodes) 60, kubelet 40'));
  });

  it('a storm cut by the log\'s end or start says which', async () => {
    const [s] = ofKind(await findings([...perSecond(0, 100, 1, lease), ...perSecond(100, 103, 20, cmList())]), 'list-storm');
    expect(s).toMatchObject({ beganBeforeLog: false, endedAfterLog: true });
    expect(s.summary.endsWith('Top: agent 60.')).toBe(true);
    const [b] = ofKind(await findings([...perSecond(0, 3, 20, cmList()), ...perSecond(3, 100, 1, lease)]), 'list-storm');
    expect(b).toMatchObject({ beganBeforeLog: true, endedAfterLog: false });
    expect(b.summary.endsWith('Top: agent 60. The log begins inside this storm.')).toBe(true);
  });

  it('storms of several resources come in time order, then by resource', async () => {
    const pods = { ...cmList(), requestURI: '/api/v1/pods', objectRef: { resource: 'pods', apiVersion: 'v1' } };
    const secrets = { ...cmList(), requestURI: '/api/v1/secrets', objectRef: { resource: 'secrets', apiVersion: 'v1' } };
    const fs = ofKind(await findings([...quiet(), ...perSecond(200, 203, 20, cmList()), ...perSecond(100, 103, 20, secrets), ...perSecond(100, 103, 20, pods)]), 'list-storm');
    expect(fs.map((s) => [s.resource, s.start])).toEqual([['pods', at(100_000)], ['secrets', at(100_000)], ['configmaps', at(200_000)]]);
  });
});
