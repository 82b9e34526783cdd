// Time (issue 5): fixtures/time/ holds storms, waves and gaps built with known times and counts
// (fixtures/make-time-fixtures.mjs; the answers are derived in fixtures/README.md).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLine, runCli } from '../support.js';
import { TimeSeries } from '../../src/aggregate/time-series.js';
import { peakWithJitter } from '../../src/analyze/time-analysis.js';
import { parseTimeFlag } from '../../src/aggregate/filters.js';

async function scan(args: string[]) {
  const r = await runCli(['-o', 'json', '--kube-version', '1.30', ...args]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const byKind = (r: { findings: Array<{ kind: string }> }, k: string) => r.findings.filter((f) => f.kind === k) as any[];

describe('token refresh waves', () => {
  it('finds three waves of 300, about 2,881 s apart, and predicts the next', async () => {
    const r = await scan(['fixtures/time/token-waves.log']);
    const [t] = byKind(r, 'token-refresh-storm');
    expect(t.waves.map((w: any) => w.requests)).toEqual([300, 300, 300]);
    expect(t.waves[0].start).toBe(at(0));
    expect(t.waves.map((w: any) => [w.start, w.end])).toEqual([[at(0), at(20)], [at(2876), at(2906)], [at(5753), at(5791)]]);
    // The oracle, from the log itself: each TokenRequest in its 1 s bucket's middle, waves split by quiet
    // minutes, centroids averaged. Waves 2881.443 s and 2881.280 s apart: period the median 2881.4 s, spread
    // half their difference 0.1 s; next = the last centroid + 0.8 × 3,607 − 4.5 = 2,881.1 s.
    const lines = readFileSync('fixtures/time/token-waves.log', 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const tokenMs = lines.filter((e) => e.objectRef?.subresource === 'token').map((e) => Math.floor(Date.parse(e.requestReceivedTimestamp) / 1000) * 1000 + 500).sort((a, b) => a - b);
    const waves: number[][] = [];
    for (const x of tokenMs) {
      const w = waves[waves.length - 1];
      if (w !== undefined && x - w[w.length - 1]! <= 60_000) w.push(x);
      else waves.push([x]);
    }
    const cent = waves.map((w) => w.reduce((a, b) => a + b, 0) / w.length);
    const gaps = [cent[1]! - cent[0]!, cent[2]! - cent[1]!];
    expect(t.periodSeconds).toBe(Math.round((gaps[0]! + gaps[1]!) / 2 / 100) / 10);
    expect(t.periodSeconds).toBe(2881.4);
    expect(t.periodSpreadSeconds).toBe(Math.round(Math.abs(gaps[0]! - gaps[1]!) / 2 / 100) / 10);
    expect(t.ttlSeconds).toBe(3607);
    expect(t.expectedPeriodSeconds).toBe(2881.1);
    expect(t.nextWaveAt).toBe(new Date(cent[2]! + 2_881_100).toISOString());
    expect(t.nextWaveAt).toBe('2026-11-30T14:24:13.500Z');
    expect(t.serviceAccounts).toEqual([
      { serviceAccount: 'pay/api', requests: 300 },
      { serviceAccount: 'shop/default', requests: 300 },
      { serviceAccount: 'web/worker', requests: 300 },
    ]);
    expect(t.namespaces).toEqual(['pay', 'shop', 'web']);
    // 300 pods over 20 s, spread by a 10 s vs a 300 s jitter
    expect(t.jitter).toEqual({ currentSeconds: 10, predictedPeakPerSecond: 16.1, proposedSeconds: 300, predictedPeakWithProposed: 1, peakReduction: 16.1 });
    expect(byKind(r, 'apiserver-restart')).toEqual([]);
  });

  it('one wave only: no period, a prediction from the TTL rule', async () => {
    const r = await scan(['fixtures/time/token-one-wave.log']);
    const [t] = byKind(r, 'token-refresh-storm');
    expect(t.waves.map((w: any) => w.requests)).toEqual([300]);
    expect(t).toMatchObject({ periodSeconds: null, periodSpreadSeconds: null, ttlSeconds: 3607, ttlSource: 'default', expectedPeriodSeconds: 2881.1 });
  });

  // Hand-built waves: 10 kubelet TokenRequests inside one second each, so each wave's centroid is that second's
  // middle (its 1 s bucket), and every figure follows by arithmetic.
  const tokenLines = (waveStarts: number[], ttl?: number): string =>
    waveStarts
      .flatMap((s, w) =>
        Array.from({ length: 10 }, (_, i) =>
          auditLine({
            auditID: `w${w}-${i}`,
            verb: 'create',
            level: ttl === undefined ? 'Metadata' : 'Request',
            requestURI: '/api/v1/namespaces/shop/serviceaccounts/default/token',
            user: { username: `system:node:n${i}` },
            objectRef: { resource: 'serviceaccounts', namespace: 'shop', name: 'default', subresource: 'token', apiVersion: 'v1' },
            ...(ttl === undefined ? {} : { requestObject: { kind: 'TokenRequest', spec: { expirationSeconds: ttl } } }),
            requestReceivedTimestamp: at(s + i / 10),
            stageTimestamp: at(s + i / 10 + 0.01),
          }),
        ),
      )
      .join('\n') + '\n';

  it('one wave at 12:00:00.5: the next is due 0.8 × 3,607 − 4.5 = 2,881.1 s later, at 12:48:01.600', async () => {
    const r = await runCli(['-o', 'json', '-'], tokenLines([0]));
    const [t] = byKind(JSON.parse(r.stdout), 'token-refresh-storm');
    expect(t).toMatchObject({ waves: [{ start: at(0), end: at(1), requests: 10, peakPerSecond: 10 }], nextWaveAt: '2026-11-30T12:48:01.600Z', severity: 'info' });
    // 10 in one second spread over the kubelet's 10 s: 1/s; over min(10% of 3,607 s, 300 s) = 300 s: 0.03/s (0.0 at one decimal)
    expect(t.jitter).toEqual({ currentSeconds: 10, predictedPeakPerSecond: 1, proposedSeconds: 300, predictedPeakWithProposed: 0, peakReduction: 30 });
  });

  it('three waves 2,880 s and 2,882 s apart: period 2,881 s (the median), spread 1 s, next at the last centroid + 2,881.1 s', async () => {
    const r = await runCli(['-o', 'json', '-'], tokenLines([0, 2880, 5762]));
    const [t] = byKind(JSON.parse(r.stdout), 'token-refresh-storm');
    expect(t.waves.map((w: any) => [w.start, w.requests])).toEqual([[at(0), 10], [at(2880), 10], [at(5762), 10]]);
    // last centroid 5,762.5 s + 2,881.1 s = 8,643.6 s after 12:00:00 = 14:24:03.600
    expect(t).toMatchObject({ periodSeconds: 2881, periodSpreadSeconds: 1, expectedPeriodSeconds: 2881.1, nextWaveAt: '2026-11-30T14:24:03.600Z', severity: 'medium' });
  });

  it('says it in one sentence: waves, period, the next wave and the jitter what-if', async () => {
    const r = await runCli(['-o', 'json', '-'], tokenLines([0, 2880, 5762]));
    const [t] = byKind(JSON.parse(r.stdout), 'token-refresh-storm');
    expect(t.summary).toBe(
      '3 TokenRequest waves (10 at 12:00:00, peak 10/s; 10 at 12:48:00, peak 10/s; 10 at 13:36:02, peak 10/s), every 2881 s (±1 s; the kubelet rule gives 2881.1 s for a 3607 s token). ' +
        "Next wave expected about 2026-11-30T14:24:03.600Z. With the kubelet's 10 s jitter the first wave's pods refresh at up to 1/s; a jitter of min(10% TTL, 5 min) = 300 s would cut that to 0/s.",
    );
    expect(t.fix).toBe('Spread pod starts (rollout maxSurge, staggered DaemonSet updates); a kubelet with a TTL-proportional refresh jitter would flatten the waves (kubernetes/kubernetes#124646). Longer token TTLs lengthen the period but not the peak.');
    const one = byKind(JSON.parse((await runCli(['-o', 'json', '-'], tokenLines([0]))).stdout), 'token-refresh-storm')[0];
    expect(one.summary.startsWith('1 TokenRequest wave (10 at 12:00:00, peak 10/s), one wave only, so no period yet. Next wave expected about 2026-11-30T12:48:01.600Z.')).toBe(true);
  });

  it('names the first and last 6 of more than 12 waves', async () => {
    const starts = Array.from({ length: 13 }, (_, i) => i * 2881);
    const r = await runCli(['-o', 'json', '-'], tokenLines(starts));
    const [t] = byKind(JSON.parse(r.stdout), 'token-refresh-storm');
    expect(t.waves).toHaveLength(13);
    const hhmmss = (s: number) => at(s).slice(11, 19);
    const named = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12].map((i) => `10 at ${hhmmss(starts[i]!)}, peak 10/s`);
    expect(t.summary.startsWith(`13 TokenRequest waves (${named.slice(0, 6).join('; ')}; ${named.slice(6).join('; ')}; … 1 more), every 2881 s (±0 s;`)).toBe(true);
    // exactly 12 waves are all named
    const twelve = byKind(JSON.parse((await runCli(['-o', 'json', '-'], tokenLines(starts.slice(0, 12)))).stdout), 'token-refresh-storm')[0];
    expect(twelve.summary).not.toContain('more)');
    expect(twelve.summary.split(', peak 10/s').length - 1).toBe(12);
  });

  it('severity: one wave is info; two or more peaking under 10/s low, at 10/s medium, at 50/s high', async () => {
    const wave = (n: number, startS: number, w: number) =>
      Array.from({ length: n }, (_, i) =>
        auditLine({ auditID: `s${startS}-${w}-${i}`, verb: 'create', requestURI: '/api/v1/namespaces/shop/serviceaccounts/default/token', user: { username: `system:node:n${i}` }, objectRef: { resource: 'serviceaccounts', namespace: 'shop', name: 'default', subresource: 'token', apiVersion: 'v1' }, requestReceivedTimestamp: at(startS + i / n), stageTimestamp: at(startS + i / n) }),
      );
    const sev = async (n: number) => byKind(JSON.parse((await runCli(['-o', 'json', '-'], [...wave(n, 0, 0), ...wave(n, 2881, 1)].join('\n') + '\n')).stdout), 'token-refresh-storm')[0]?.severity;
    expect([await sev(9), await sev(10), await sev(49), await sev(50)]).toEqual(['low', 'medium', 'medium', 'high']);
  });

  it('takes the TTL from the requests when the audit level shows it: 7,200 s gives 0.8 × 7,200 − 4.5 = 5,755.5 s', async () => {
    const r = await runCli(['-o', 'json', '-'], tokenLines([0], 7200));
    const [t] = byKind(JSON.parse(r.stdout), 'token-refresh-storm');
    // proposed jitter min(720 s, 300 s) = 300 s; next wave at 0.5 s + 5,755.5 s = 5,756 s = 13:35:56.000
    expect(t).toMatchObject({ ttlSeconds: 7200, ttlSource: 'requests', expectedPeriodSeconds: 5755.5, nextWaveAt: '2026-11-30T13:35:56.000Z' });
    expect(t.jitter.proposedSeconds).toBe(300);
  });

  it('overlapping waves of two deployments 30 s apart merge into one wave each time', async () => {
    const r = await scan(['fixtures/time/token-overlapping.log']);
    const [t] = byKind(r, 'token-refresh-storm');
    expect(t.waves.map((w: any) => w.requests)).toEqual([400, 400]);
  });

  it('the jitter model: a burst of 10 in one second spread over 10 s is 1/s', () => {
    expect(peakWithJitter([10], 1000, 10)).toBe(1);
    expect(peakWithJitter([10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10], 1000, 10)).toBe(10);
  });
});

describe('restarts and relist storms', () => {
  it('finds the restart of apiserver a: 60 s gap, 30 watches ended before, relists after', async () => {
    const r = await scan(['fixtures/time/restart-a.log']);
    const [g] = byKind(r, 'apiserver-restart');
    expect(g).toMatchObject({ input: 'fixtures/time/restart-a.log', start: '2026-11-30T12:00:59.405Z', end: '2026-11-30T12:02:00.005Z', watchesClosedBefore: 30, listsInMinuteBefore: 0, listsInMinuteAfter: 300 });
  });

  it('tells the etcd storm (configmaps, no resourceVersion) from the cache one (kubelets, rv=0)', async () => {
    const r = await scan(['fixtures/time/restart-a.log']);
    const storms = byKind(r, 'list-storm');
    const cm = storms.find((s) => s.resource === 'configmaps');
    const pods = storms.find((s) => s.resource === 'pods');
    expect(cm).toMatchObject({ start: at(121), end: at(126), requests: 100, peakPerSecond: 20, etcdShare: 1, severity: 'medium' });
    expect(cm.clients[0]).toMatchObject({ client: 'agent', requests: 100 });
    expect(pods).toMatchObject({ start: at(120), end: at(130), requests: 200, peakPerSecond: 20, etcdShare: 0, severity: 'low' });
    expect(pods.clients[0]).toMatchObject({ client: 'kubelet', nodes: 200 });
    expect(pods.summary).toContain('watch cache (harmless for etcd)');
  });

  it('merges one storm seen by two apiservers with 3 s of clock skew', async () => {
    const r = await scan(['fixtures/time/restart-a.log', 'fixtures/time/restart-b-skewed.log']);
    const storms = byKind(r, 'list-storm');
    expect(storms.map((s) => [s.resource, s.requests, s.start, s.end]).sort()).toEqual([
      ['configmaps', 200, at(121), at(129)],
      ['pods', 400, at(120), at(133)],
    ]);
    expect(byKind(r, 'apiserver-restart')).toHaveLength(1);
  });

  it('a log that begins mid-storm says so', async () => {
    const r = await scan(['fixtures/time/mid-storm.log']);
    const cm = byKind(r, 'list-storm').find((s) => s.resource === 'configmaps');
    expect(cm).toMatchObject({ beganBeforeLog: true, start: at(123), requests: 60 });
  });

  it('filters apply before aggregation: --since/--until/--verb', async () => {
    const r = await scan(['--since', at(120), '--until', at(125), '--verb', 'list', 'fixtures/time/restart-a.log']);
    expect(r.totals).toMatchObject({ requests: 180, listRequests: 180 });
    const u = await scan(['--user', 'system:node:*', '--verb', 'list', 'fixtures/time/restart-a.log']);
    expect(u.totals.listRequests).toBe(200);
  });

  it('the timeline has the whole control plane and the top groups, at --bucket', async () => {
    const r = await scan(['--bucket', '10s', 'fixtures/time/restart-a.log']);
    expect(r.timeline.bucketSeconds).toBe(10);
    const all = r.timeline.series.find((s: any) => s.key === 'all requests');
    const total = all.points.reduce((s: number, p: [string, number]) => s + p[1], 0);
    expect(total).toBe(r.totals.requests);
    // [120 s, 130 s): 2 lease updates/s, all 200 kubelet lists, all 100 agent lists
    expect(all.points.find((p: [string, number]) => p[0] === at(120))[1]).toBe(20 + 200 + 100);
  });
});

describe('TimeSeries', () => {
  it('coarsens when it would exceed its bucket cap, keeping the total', () => {
    const s = new TimeSeries(1000, 100);
    for (let i = 0; i < 1000; i++) s.add(i * 1000);
    expect(s.buckets.size).toBeLessThanOrEqual(100);
    expect(s.widthMs).toBe(16000);
    expect(s.total()).toBe(1000);
  });
  it('merges series of different widths', () => {
    const a = new TimeSeries(1000);
    const b = new TimeSeries(4000);
    a.add(1000);
    a.add(5000);
    b.add(0, 3);
    a.merge(b);
    expect(a.widthMs).toBe(4000);
    expect(a.points()).toEqual([[0, 4], [4000, 1]]);
  });
});

describe('--since', () => {
  it('reads kubectl-style durations before now and RFC 3339', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    expect(parseTimeFlag('30m', now)).toBe(now - 30 * 60000);
    expect(parseTimeFlag('1h30m', now)).toBe(now - 90 * 60000);
    expect(parseTimeFlag('2026-01-01T10:00:00Z', now)).toBe(Date.UTC(2026, 0, 1, 10));
    expect(parseTimeFlag('soon', now)).toBeNull();
  });
});

describe('token waves come from kubelets only', () => {
  it('ignores TokenRequests by other users (kubectl create token, controllers)', async () => {
    const { auditLine } = await import('../support.js');
    const lines = Array.from({ length: 20 }, (_, i) =>
      auditLine({ auditID: `k${i}`, verb: 'create', requestURI: '/api/v1/namespaces/a/serviceaccounts/b/token', user: { username: 'alice' }, objectRef: { resource: 'serviceaccounts', namespace: 'a', name: 'b', subresource: 'token' } }),
    );
    const r = await runCli(['-o', 'json', '-'], lines.join('\n') + '\n');
    const rep = JSON.parse(r.stdout);
    expect(rep.totals.tokenRequests).toBe(20);
    expect(rep.findings.filter((f: { kind: string }) => f.kind === 'token-refresh-storm')).toEqual([]);
  });
});

describe('requests never completed', () => {
  it('count in their own input\'s series: lists cut by the end of the log still show the relist after a gap', async () => {
    // 20 gets in the first 10 s, no events for 40 s, then 20 lists received at 50 s whose final stage the log
    // never reached (it ends there). The lists are counted at the end, and must count for this input.
    const lines: string[] = [];
    for (let i = 0; i < 20; i++) lines.push(auditLine({ auditID: `g${i}`, verb: 'get', requestURI: '/api/v1/namespaces/a/pods/p', objectRef: { resource: 'pods', namespace: 'a', name: 'p' }, requestReceivedTimestamp: at(i / 2), stageTimestamp: at(i / 2) }));
    for (let i = 0; i < 20; i++) lines.push(auditLine({ auditID: `l${i}`, stage: 'RequestReceived', verb: 'list', requestReceivedTimestamp: at(50 + i / 100), stageTimestamp: at(50 + i / 100) }));
    const file = join(mkdtempSync(join(tmpdir(), 'audit-scan-open-')), 'cut.log');
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await scan(['--gap', '30s', file]);
    expect(r.totals.requests).toBe(40);
    const [g] = byKind(r, 'apiserver-restart');
    expect(g).toMatchObject({ input: file, listsInMinuteBefore: 0, listsInMinuteAfter: 20 });
  });
});
