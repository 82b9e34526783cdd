// The time analysis on hand-built scan state (src/analyze/time-analysis.ts), where a log through the CLI cannot
// reach cheaply: series already coarsened to 2 s buckets (a log of over 100,000 busy seconds), groups whose
// serving is unknown (GKE), storms and restarts that tie on their start, a storm that ends one bucket before the
// log does. Every figure worked out by hand from the buckets below.
import { describe, expect, it } from 'vitest';
import { buildTimeline, findRestarts, findStorms, findTokenWaves } from '../../src/analyze/time-analysis.js';
import { TimeSeries } from '../../src/aggregate/time-series.js';
import { addSpacing, newSpacingHistogram } from '../../src/aggregate/gaps.js';
import type { GroupReport } from '../../src/analyze/report.js';
import type { ReadGroup } from '../../src/aggregate/read-groups.js';
import type { ScanState, TimeState } from '../../src/aggregate/scan-state.js';

const T = Date.UTC(2026, 10, 30, 12); // 12:00:00, a multiple of 2 s
const W = 2000;
const B0 = T / W;
const iso = (ms: number) => new Date(ms).toISOString();

function series(w: number, buckets: Array<[number, number]>): TimeSeries {
  const s = new TimeSeries(w);
  for (const [b, n] of buckets) s.buckets.set(b, (s.buckets.get(b) ?? 0) + n);
  return s;
}
const range = (from: number, to: number, n: number): Array<[number, number]> => Array.from({ length: to - from }, (_, i) => [from + i, n]);

function state(time: Partial<TimeState>, inputs: string[] = ['a.log'], gapMs: number | null = null): ScanState {
  const t: TimeState = {
    all: new TimeSeries(W), tokens: new TimeSeries(W), tokenAccounts: new Map(), tokenTtls: new Map(), listsByResource: new Map(),
    inputLists: new Map(), inputWatchEnds: new Map(), inputGaps: new Map(), inputSpacing: new Map(), inputSigns: new Map(),
    initRejects: new Map(), inputRequests: new Map(), clientInputs: new Map(), clientInputsOverflow: 0, streamRequests: new Map(), streamLists: new Map(),
    streamWatchEnds: new Map(), streamGaps: new Map(), streamSpacing: new Map(), streamSpan: new Map(), streamOverflow: new Map(), ...time,
  };
  return { time: t, inputs: inputs.map((name) => ({ name })), timeOptions: { gapMs } } as unknown as ScanState;
}

function group(over: Partial<GroupReport>, s: TimeSeries): [string, { report: GroupReport; raw: ReadGroup }] {
  const report = { verb: 'list', userAgent: 'agent/1', username: 'u', resource: 'pods', apiGroup: '', requests: 1, nodes: 0, servedFrom: { etcd: 0, cache: 0, unknown: 0 }, ...over } as GroupReport;
  return [`${report.verb} ${report.userAgent} ${report.resource}`, { report, raw: { series: s } as unknown as ReadGroup }];
}

describe('TokenRequest waves in 2 s buckets', () => {
  // wave 1: 4, 6 and 2 requests in buckets B0, B0+1, B0+3 (12); wave 2: 5 and 5 in B0+1440, B0+1441 (10); then 3
  // requests alone in B0+2880, too few for a wave (fewer than 5). Centroids: wave 1 at (B0 + 1.5) buckets = T + 3 s,
  // wave 2 at (B0 + 1441) buckets = T + 2,882 s: a period of 2,879 s. The default 3,607 s token gives
  // 0.8 × 3607 − 4.5 = 2,881.1 s, so the next wave is due at T + 2,882 s + 2,881.1 s = 13:36:03.1.
  const tokens = series(W, [[B0, 4], [B0 + 1, 6], [B0 + 3, 2], [B0 + 1440, 5], [B0 + 1441, 5], [B0 + 2880, 3]]);
  const tokenAccounts = new Map([['ns-b/sa1', 10], ['ns-a/sa2', 10], ['ns-b/sa3', 5]]);
  const f = findTokenWaves(state({ tokens, tokenAccounts }))!;

  it('two waves, their peaks per second at 2 s a bucket, the period and the next wave', () => {
    expect(f.waves).toStrictEqual([
      { start: iso(T), end: iso(T + 8000), requests: 12, peakPerSecond: 3 }, // 6 in one 2 s bucket
      { start: iso(T + 2_880_000), end: iso(T + 2_884_000), requests: 10, peakPerSecond: 2.5 },
    ]);
    expect([f.periodSeconds, f.periodSpreadSeconds, f.ttlSeconds, f.ttlSource, f.expectedPeriodSeconds, f.nextWaveAt, f.severity]).toStrictEqual([2879, 0, 3607, 'default', 2881.1, '2026-11-30T13:36:03.100Z', 'low']);
  });

  it('the jitter what-if from the first wave: 12 requests over 10 s = 1.2/s; over 300 s, 0.04/s (30× lower)', () => {
    expect(f.jitter).toStrictEqual({ currentSeconds: 10, predictedPeakPerSecond: 1.2, proposedSeconds: 300, predictedPeakWithProposed: 0, peakReduction: 30 });
  });

  it('accounts by requests then name; each namespace once', () => {
    expect(f.serviceAccounts).toStrictEqual([{ serviceAccount: 'ns-a/sa2', requests: 10 }, { serviceAccount: 'ns-b/sa1', requests: 10 }, { serviceAccount: 'ns-b/sa3', requests: 5 }]);
    expect(f.namespaces).toStrictEqual(['ns-a', 'ns-b']);
  });

  it('the sparkline spans the first to the last bucket: 2,881 buckets in 60 slots', () => {
    // slot of bucket j: ceil((j + 1) × 60 / 2881) − 1: j = 0, 1, 3 → 0; j = 1440, 1441 → 30; j = 2880 → 59
    const want = new Array<number>(60).fill(0);
    want[0] = 6;
    want[30] = 5;
    want[59] = 3;
    expect(f.sparkline).toStrictEqual(want);
  });

  it('the summary, figure by figure', () => {
    expect(f.summary).toBe(
      '2 TokenRequest waves (12 at 12:00:00, peak 3/s; 10 at 12:48:00, peak 2.5/s), every 2879 s (±0 s; the kubelet rule gives 2881.1 s for a 3607 s token). ' +
        "Next wave expected about 2026-11-30T13:36:03.100Z. With the kubelet's 10 s jitter the first wave's pods refresh at up to 1.2/s; a jitter of min(10% TTL, 5 min) = 300 s would cut that to 0/s.",
    );
  });
});

describe('list storms in 2 s buckets', () => {
  // The log: one request in each bucket from B0−100 to B0+99 (200 buckets). Pods: 2 lists in each bucket B0..B0+99,
  // but 40 in B0+50..B0+54 and 10 in B0+56. The usual rate is the median over all 200 buckets, 100 of them without
  // pods lists: (0 + 2) / 2 = 1 a bucket, 0.5/s. A storm bucket needs 10/s, 20 a bucket: B0+50..B0+54 (10 in B0+56 is
  // 5/s), 200 lists, peak 40 a bucket = 20/s.
  const all = series(W, range(B0 - 100, B0 + 100, 1));
  const pods = series(W, [...range(B0, B0 + 50, 2), ...range(B0 + 50, B0 + 55, 40), [B0 + 55, 2], [B0 + 56, 10], ...range(B0 + 57, B0 + 100, 2)]);
  const inStorm = (n: number) => series(W, range(B0 + 50, B0 + 55, n));
  const groups = new Map([
    // vector: 30 a bucket in the storm (150), all of its lists from etcd; the controller manager: 10 a bucket (50),
    // all from the watch cache. Share weighted by requests in the storm: 150 / 200 = 75%.
    group({ userAgent: 'vector/0.34.1', username: 'system:serviceaccount:vector:vector', requests: 150, nodes: 3, servedFrom: { etcd: 150, cache: 0, unknown: 0, rejected: 0 } }, inStorm(30)),
    group({ userAgent: 'kube-controller-manager/v1.30.2', username: 'system:kube-controller-manager', requests: 300, servedFrom: { etcd: 0, cache: 300, unknown: 0, rejected: 0 } }, inStorm(10)),
    // in the storm's window, but a get, and a list of another resource: not the storm's clients
    group({ verb: 'get', userAgent: 'getter/1', requests: 50, servedFrom: { etcd: 50, cache: 0, unknown: 0, rejected: 0 } }, inStorm(10)),
    group({ resource: 'configmaps', userAgent: 'cm/1', requests: 50, servedFrom: { etcd: 50, cache: 0, unknown: 0, rejected: 0 } }, inStorm(10)),
  ]);

  it('one storm, its clients and what reached etcd', () => {
    const [s, ...rest] = findStorms(state({ all, listsByResource: new Map([['pods', pods]]) }), groups);
    expect(rest).toStrictEqual([]);
    expect({ ...s, why: undefined }).toStrictEqual({
      kind: 'list-storm',
      severity: 'medium', // to etcd, but under 100/s and 1,000 lists
      summary: `200 pods lists in 10 s (${iso(T + 100_000)} – ${iso(T + 110_000)}), peak 20/s against a usual 0.5/s; 75% went to etcd. Top: vector (3 nodes) 150, kube-controller-manager 50.`,
      fix: 'The storm reaches etcd: make these clients list with resourceVersion=0 (watch cache) and spread their restarts; queue them with APF meanwhile.',
      resource: 'pods',
      start: iso(T + 100_000),
      end: iso(T + 110_000),
      requests: 200,
      peakPerSecond: 20,
      clients: [
        { client: 'vector', userAgent: 'vector/0.34.1', username: 'system:serviceaccount:vector:vector', requests: 150, nodes: 3, etcdShare: 1 },
        { client: 'kube-controller-manager', userAgent: 'kube-controller-manager/v1.30.2', username: 'system:kube-controller-manager', requests: 50, nodes: 0, etcdShare: 0 },
      ],
      etcdShare: 0.75,
      refusedShare: 0,
      beganBeforeLog: false,
      endedAfterLog: false,
      // ten buckets either side: B0+40..B0+64
      sparkline: [...new Array(10).fill(2), 40, 40, 40, 40, 40, 2, 10, ...new Array(8).fill(2)],
      why: undefined,
    });
  });

  it('clients whose serving the log does not say (GKE drops the query): an unknown mix, not the watch cache', () => {
    const gke = new Map([group({ userAgent: 'vector/0.34.1', requests: 200, servedFrom: { etcd: 0, cache: 0, unknown: 200, rejected: 0 } }, inStorm(40))]);
    const [s] = findStorms(state({ all, listsByResource: new Map([['pods', pods]]) }), gke);
    expect([s!.etcdShare, s!.severity, s!.clients[0]!.etcdShare]).toStrictEqual([null, 'low', null]);
    expect(s!.summary).toContain('peak 20/s against a usual 0.5/s; served from an unknown mix of cache and etcd. Top: vector 200.');
  });

  it('a storm whose clients are not among the groups: no share and no top clients', () => {
    const [s] = findStorms(state({ all, listsByResource: new Map([['pods', pods]]) }), new Map());
    expect([s!.etcdShare, s!.clients]).toStrictEqual([null, []]);
    expect(s!.summary).toBe(`200 pods lists in 10 s (${iso(T + 100_000)} – ${iso(T + 110_000)}), peak 20/s against a usual 0.5/s; served from an unknown mix of cache and etcd.`);
  });

  it('storms in time order, and by resource within one start; a storm in the log’s last bucket ended after it, one a bucket earlier did not', () => {
    const burst = (from: number, to: number) => series(W, range(from, to, 40));
    const listsByResource = new Map([
      ['pods', burst(B0 + 50, B0 + 55)],
      ['configmaps', burst(B0 + 50, B0 + 55)],
      ['secrets', burst(B0 - 50, B0 - 45)],
      ['leases', burst(B0 + 95, B0 + 99)], // ends at the start of B0+99, the log's last bucket
      ['nodes', burst(B0 + 96, B0 + 100)], // ends with the log
    ]);
    const out = findStorms(state({ all, listsByResource }), new Map());
    expect(out.map((s) => [s.resource, s.start, s.endedAfterLog])).toStrictEqual([
      ['secrets', iso(T - 100_000), false],
      ['configmaps', iso(T + 100_000), false],
      ['pods', iso(T + 100_000), false],
      ['leases', iso(T + 190_000), false],
      ['nodes', iso(T + 192_000), true],
    ]);
  });
});

describe('restarts', () => {
  // a.log: one event every 100 ms (the gap threshold is 100 × 100 ms = 10 s), then nothing from 12:00:40.000 to
  // 12:01:00.000 (20 s). 4 lists in the minute before, 30 in the minute after; 5 watches ended at 12:00:40.
  const spacing = () => {
    const h = newSpacingHistogram();
    for (let i = 0; i < 999; i++) addSpacing(h, 100);
    return h;
  };
  const from = T + 40_000;
  const to = T + 60_000;
  const lists = series(1000, [[from / 1000 - 30, 4], [to / 1000 + 5, 30]]);
  const watches = series(1000, [[from / 1000, 5]]);

  it('a gap after which clients relisted, with the watches that ended in its first second', () => {
    const [r, ...rest] = findRestarts(state({ inputGaps: new Map([[0, [[from, to]]]]), inputSpacing: new Map([[0, spacing()]]), inputLists: new Map([[0, lists]]), inputWatchEnds: new Map([[0, watches]]) }));
    expect(rest).toStrictEqual([]);
    expect(r).toStrictEqual({
      kind: 'apiserver-restart',
      severity: 'medium',
      summary: `a.log: no audit events for 20 s (${iso(from)} – ${iso(to)}; a gap here is ≥ 10 s: 100× this input's median spacing of 100 ms, at least 5 s), then 30 lists in the next minute against 4 in the minute before: clients relisting after an apiserver restart; 5 watches ended in the 10 s before.`,
      fix: 'Relists after a restart are served from the watch cache only once it is ready and only with resourceVersion=0 (or NotOlderThan); clients that relist without resourceVersion hit etcd all at once. Stagger restarts across apiservers, and queue heavy listers with APF.',
      input: 'a.log',
      start: iso(from),
      end: iso(to),
      gapSeconds: 20,
      gapThresholdSeconds: 10,
      listsInMinuteBefore: 4,
      listsInMinuteAfter: 30,
      watchesClosedBefore: 5,
      rejectedInMinuteAfter: 0,
      rejectedInitializing: 0,
      rejectedClients: [],
      signs: ['relist burst after', 'watches ended before'],
      certainty: 'seen',
    });
  });

  it('an input too short to have a rhythm has no gap rule: a pause with no sign of a restart is no finding (issue 21)', () => {
    expect(findRestarts(state({ inputGaps: new Map([[0, [[from, to]]]]), inputSpacing: new Map([[0, newSpacingHistogram()]]) }))).toEqual([]);
  });

  it('several quiet spells of one input are one finding with a list, their durations in hours and days', () => {
    const day = 86_400_000;
    const gaps: Array<[number, number]> = [
      [from, from + 3 * 3600_000 + 20 * 60_000],
      [from + day, from + day + 260 * day + 18 * 3600_000],
      [from + 500 * day, from + 500 * day + 45_000],
    ];
    const out = findRestarts(state({ inputGaps: new Map([[0, gaps]]), inputSpacing: new Map([[0, spacing()]]) }));
    expect(out).toHaveLength(1);
    expect(out[0]!).toMatchObject({ kind: 'audit-gap', severity: 'info', gapSeconds: 12000, gaps: [{ seconds: 12000 }, { seconds: 22528800 }, { seconds: 45 }] });
    expect(out[0]!.summary).toBe(
      `a.log: 3 pauses in its audit events, 260 d 21 h in all, with no sign of an apiserver restart (a gap here is ≥ 10 s: 100× this input's median spacing of 100 ms, at least 5 s): ` +
        `${iso(gaps[0]![0])} – ${iso(gaps[0]![1])} (3 h 20 min); ${iso(gaps[1]![0])} – ${iso(gaps[1]![1])} (260 d 18 h); ${iso(gaps[2]![0])} – ${iso(gaps[2]![1])} (45 s).`,
    );
  });

  it('identity-lease signs without a pause: one finding per cluster, each sign named once, an earlier sign out of order left in its cluster', () => {
    const signs: Array<[number, string]> = [
      [from, 'identity lease created'],
      [from + 5000, 'identity lease taken over'],
      [from + 8000, 'identity lease taken over'],
      [from + 120_000, 'identity lease taken over'],
      [from + 100_000, 'identity lease created'], // 20 s before the sign above, outside its window, out of order
    ];
    const out = findRestarts(state({ inputSigns: new Map([[0, signs]]), inputSpacing: new Map([[0, spacing()]]) }));
    expect(out.map((r) => [r.kind, r.start, r.signs])).toStrictEqual([
      ['apiserver-restart', iso(from), ['identity lease created', 'identity lease taken over']],
      ['apiserver-restart', iso(from + 120_000), ['identity lease taken over']],
    ]);
    expect(out[0]!.summary).toBe(`a.log: an apiserver started at ${iso(from)} (identity lease created, identity lease taken over) with no pause in this input's audit stream (shorter than its gap threshold of 10 s: 100× this input's median spacing of 100 ms, at least 5 s).`);
  });

  it('findings of two inputs at one start, by input name', () => {
    const gaps = new Map([[0, [[from, to]] as Array<[number, number]>], [1, [[from, to]] as Array<[number, number]>]]);
    const out = findRestarts(state({ inputGaps: gaps, inputSpacing: new Map([[0, spacing()], [1, spacing()]]) }, ['b.log', 'a.log']));
    expect(out.map((r) => r.input)).toStrictEqual(['a.log', 'b.log']);
  });
});

describe('the timeline', () => {
  it('at the widest width of its series: a 1 s series of all requests shown in 2 s buckets', () => {
    const all = series(1000, [[T / 1000, 1], [T / 1000 + 1, 2], [T / 1000 + 2, 4]]);
    const tl = buildTimeline(state({ all }), [{ key: 'list pods', series: series(W, [[B0, 5]]) }]);
    expect(tl).toStrictEqual({ bucketSeconds: 2, series: [{ key: 'all requests', points: [[iso(T), 3], [iso(T + 2000), 4]] }, { key: 'list pods', points: [[iso(T), 5]] }] });
  });
});
