// The postmortem's parts one at a time (src/analyze/postmortem.ts), on groups and findings built by hand so each
// rule is seen on both sides: which reads a fix moves, how the peak is bucketed, which figures are left out as
// unknown, how ties in the peak and in the incident's order break, and which figure source names which method.
import { describe, expect, it } from 'vitest';
import { etcdEvidence, incidentOf, methodOf, summaryOf, whatIfPlanner, whyOf, whyOfReason } from '../../src/analyze/postmortem.js';
import type { AnyFinding, EtcdRangeReport, Finding, GroupReport } from '../../src/analyze/report.js';
import type { ReadGroup } from '../../src/aggregate/read-groups.js';
import type { RestartFinding, TokenFinding } from '../../src/analyze/time-analysis.js';
import { TimeSeries } from '../../src/aggregate/time-series.js';
import { groupReport } from '../support.js';

const WHY_LIST = 'A list without resourceVersion asks for the newest data, which the apiserver reads from etcd (from 1.31 the watch cache serves it only with ConsistentListFromCache and an etcd with progress notify, 3.4.31+ or 3.5.13+); etcd knows nothing of selectors, so it reads every object under the prefix and the apiserver filters them after.';
const WHY_EXACT = 'A read at an exact resourceVersion cannot come from the watch cache (before 1.34): etcd serves it.';

const group = groupReport;

/** A series of `widthMs` buckets: bucket index → count. */
function series(widthMs: number, buckets: Array<[number, number]>): TimeSeries {
  const s = new TimeSeries(widthMs);
  for (const [b, n] of buckets) s.buckets.set(b, n);
  return s;
}
/** A group read as the planner sees it: its report, and the raw group's series (nothing else of it is read). */
const read = (report: GroupReport, s: TimeSeries) => ({ raw: { series: s } as unknown as ReadGroup, report });

describe('why a read went to etcd, by its reason', () => {
  it.each<[string, string]>([
    ['events: watch cache off by default', 'events have no watch cache (events#0 in --watch-cache-sizes by default), so every list is read from etcd, which reads every object under the key prefix.'],
    ['watch cache disabled for resource', 'events have no watch cache (events#0 in --watch-cache-sizes by default), so every list is read from etcd, which reads every object under the key prefix.'],
    ['get without resourceVersion', 'A get without resourceVersion is a quorum read of one etcd key: the watch cache serves a get only when resourceVersion is set.'],
    ['watch without resourceVersion (this patch release reads etcd)', 'On 1.27.0–1.27.12, 1.28.0–1.28.8 and 1.29.0–1.29.3 a watch without resourceVersion is served by etcd, which first reads the whole key prefix.'],
    ['continue token', 'Before 1.34, every page after the first (a continue token) is read from etcd: a range read from the token’s key to the end of the prefix.'],
    ['resourceVersionMatch=Exact', WHY_EXACT],
    ['limit with resourceVersion≠0 (exact page)', WHY_EXACT],
    ['unsupported resourceVersionMatch=Newest', WHY_EXACT],
    ['resourceVersionMatch=Newest', WHY_EXACT],
    ['no resourceVersion', WHY_LIST],
    ['no resourceVersion (paginated)', WHY_LIST],
    // each rule reads the start of the reason: the same words later on do not count
    ['list, events:', WHY_LIST],
    ['a continue token', WHY_LIST],
    ['the limit with', WHY_LIST],
    ['', WHY_LIST],
  ])('%j: %s', (reason, why) => expect(whyOfReason(reason, 'events')).toBe(why));

  it('names the resource that has no watch cache', () => {
    expect(whyOfReason('watch cache disabled for resource', 'leases.coordination.k8s.io')).toMatch(/^leases\.coordination\.k8s\.io have no watch cache /);
  });
});

describe('why a finding matters, by its kind', () => {
  const f = (kind: string) => ({ kind }) as unknown as AnyFinding;
  it.each<[string, string]>([
    ['apiserver-restart', 'After an apiserver restart every client relists: informers with resourceVersion=0 are served by the watch cache once it is ready; clients that list without resourceVersion all read etcd at once.'],
    ['audit-gap', 'While the audit stream is silent, nothing in it says what the control plane did: a restart, dropped audit events, or an idle apiserver.'],
    ['list-storm', 'Many lists of one resource at once: each read from etcd reads the whole key prefix, each served from the watch cache costs apiserver CPU and memory to copy and encode.'],
    ['token-refresh-storm', 'The kubelet refreshes a projected service-account token at 80% of its TTL with at most 10 s of jitter, so pods started together call TokenRequest together, every TTL × 0.8, for as long as they run.'],
    ['etcd-slow-ranges', 'etcd logs a read that takes longer than its threshold (100 ms unless set otherwise); a list reads every key under its prefix, however few objects it returns.'],
  ])('%s', (kind, why) => expect(whyOf(f(kind), undefined)).toBe(why));

  it('a client finding takes its group’s most frequent reason, and names its resource', () => {
    const g = group({ resource: 'events', reasons: { 'events: watch cache off by default': 9, 'continue token': 2 } });
    expect(whyOf(f('list-from-etcd'), g)).toBe(whyOfReason('events: watch cache off by default', 'events'));
    expect(whyOf(f('list-from-etcd'), group({ reasons: { 'continue token': 2 } }))).toBe(whyOfReason('continue token', 'pods'));
  });

  it('a client finding without a group, or whose group has no reason, gets the list-without-resourceVersion reason', () => {
    expect(whyOf(f('list-from-etcd'), undefined)).toBe(WHY_LIST);
    expect(whyOf(f('list-from-etcd'), group({ reasons: {} }))).toBe(WHY_LIST);
  });
});

describe('the what-if of a fix', () => {
  // pods/a: 4 lists, 2 of them from etcd (share ½), in seconds 10 (2 lists) and 11 (2 lists); 2.5 objects read per
  // list (an average), 10 bytes in all. pods/b: 3 lists from etcd in second 10; 100 objects read per list, bytes
  // unknown. cm: 6 lists from the watch cache in second 10, with figures (a fix changes nothing of them). get: 2
  // gets from etcd in second 11, 1 object and 500 bytes each (a get is not a list: left out of objects and bytes).
  const a = read(group({ userAgent: 'a', requests: 4, servedFrom: { etcd: 2, cache: 2, unknown: 0, rejected: 0 }, objectsReadPerRequest: 2.5, bytesReadTotal: 10 }), series(1000, [[10, 2], [11, 2]]));
  const b = read(group({ userAgent: 'b', requests: 3, servedFrom: { etcd: 3, cache: 0, unknown: 0, rejected: 0 }, objectsReadPerRequest: 100 }), series(1000, [[10, 3]]));
  const cm = read(group({ userAgent: 'cm', resource: 'configmaps', requests: 6, servedFrom: { etcd: 0, cache: 6, unknown: 0, rejected: 0 }, objectsReadPerRequest: 50, bytesReadTotal: 7 }), series(1000, [[10, 6]]));
  const get = read(group({ userAgent: 'g', verb: 'get', requests: 2, servedFrom: { etcd: 2, cache: 0, unknown: 0, rejected: 0 }, objectsReadPerRequest: 1, bytesReadTotal: 1000 }), series(1000, [[11, 2]]));
  const plan = whatIfPlanner([a, b, cm, get]);

  it('fixing nothing changes nothing: 7 etcd requests, 305 objects (2 × 2.5 + 3 × 100), 10 bytes (b’s unknown), peak 4/s', () => {
    // second 10: a’s 2 × ½ + b’s 3 = 4; second 11: a’s 2 × ½ + the gets’ 2 = 3
    expect(plan([])).toEqual({ etcdRequests: { before: 7, after: 7 }, objectsRead: { before: 305, after: 305 }, bytesRead: { before: 10, after: 10 }, peakEtcdRequestsPerSecond: { before: 4, after: 4 } });
  });

  it('fixing a: 7 → 5 etcd requests, 305 → 300 objects, 10 → 0 bytes, and second 10 drops to 3/s, level with second 11', () => {
    expect(plan([a])).toEqual({ etcdRequests: { before: 7, after: 5 }, objectsRead: { before: 305, after: 300 }, bytesRead: { before: 10, after: 0 }, peakEtcdRequestsPerSecond: { before: 4, after: 3 } });
  });

  it('fixing b, whose bytes are unknown: bytes stay at 10; the peak moves to second 11 (3/s)', () => {
    expect(plan([b])).toEqual({ etcdRequests: { before: 7, after: 4 }, objectsRead: { before: 305, after: 5 }, bytesRead: { before: 10, after: 10 }, peakEtcdRequestsPerSecond: { before: 4, after: 3 } });
  });

  it('fixing the gets: 7 → 5 etcd requests; objects and bytes count lists only, so they stay; second 11 drops to 1/s', () => {
    expect(plan([get])).toEqual({ etcdRequests: { before: 7, after: 5 }, objectsRead: { before: 305, after: 305 }, bytesRead: { before: 10, after: 10 }, peakEtcdRequestsPerSecond: { before: 4, after: 4 } });
    expect(plan([a, get]).peakEtcdRequestsPerSecond).toEqual({ before: 4, after: 3 });
  });

  it('objects read is rounded per group: 3 etcd lists × 2.5 = 7.5 → 8', () => {
    const c = read(group({ requests: 3, servedFrom: { etcd: 3, cache: 0, unknown: 0, rejected: 0 }, objectsReadPerRequest: 2.5 }), series(1000, [[0, 3]]));
    expect(whatIfPlanner([c])([]).objectsRead).toEqual({ before: 8, after: 8 });
  });

  it('with no figure for any etcd-served list, objects and bytes are unknown on both sides (a cache-served list’s figures do not count)', () => {
    const only = read(group({ requests: 2, servedFrom: { etcd: 2, cache: 0, unknown: 0, rejected: 0 } }), series(1000, [[0, 2]]));
    const w = whatIfPlanner([only, cm, get])([only]);
    expect(w).toEqual({ etcdRequests: { before: 4, after: 2 }, objectsRead: { before: null, after: null }, bytesRead: { before: null, after: null }, peakEtcdRequestsPerSecond: { before: 2, after: 2 } });
  });

  it('series of different widths are summed at the widest: a 2 s bucket of 3 etcd lists is 1.5/s', () => {
    // fine: 1 s buckets 0 and 1, one etcd list each; wide: one 2 s bucket (0) of 1 list. At 2 s: bucket 0 holds 3.
    const fine = read(group({ userAgent: 'fine', requests: 2, servedFrom: { etcd: 2, cache: 0, unknown: 0, rejected: 0 } }), series(1000, [[0, 1], [1, 1]]));
    const wide = read(group({ userAgent: 'wide', requests: 1, servedFrom: { etcd: 1, cache: 0, unknown: 0, rejected: 0 } }), series(2000, [[0, 1]]));
    expect(whatIfPlanner([fine, wide])([wide]).peakEtcdRequestsPerSecond).toEqual({ before: 1.5, after: 1 });
  });

  // Each bucket's sum is kept at the bucket's place among all groups' buckets, not at its time: groups far apart
  // in time sum as groups side by side do.
  it('buckets millions of seconds apart: the peaks as if they were side by side', () => {
    const far = (x: typeof a, shift: number) => read(x.report, series(1000, [...x.raw.series.buckets].map(([bk, n]) => [bk + shift, n])));
    const [fa, fb, fg] = [far(a, 0), far(b, 0), far(get, 5_000_000)];
    const p = whatIfPlanner([fa, fb, fg]);
    // second 10: a’s 1 + b’s 3 = 4; a’s second 11: 1; the gets’ second 5,000,011: 2
    expect(p([]).peakEtcdRequestsPerSecond).toEqual({ before: 4, after: 4 });
    expect(p([fb]).peakEtcdRequestsPerSecond).toEqual({ before: 4, after: 2 });
    expect(p([fb, fg]).peakEtcdRequestsPerSecond).toEqual({ before: 4, after: 1 });
    expect(p([fa, fb, fg]).peakEtcdRequestsPerSecond).toEqual({ before: 4, after: 0 });
  });

  it('the peak after a fix may be a bucket the fixed group shares, above every bucket it does not', () => {
    // x: 5 etcd lists in second 1; y: 1 in second 1; z: 3 in second 2. Fixing y: second 1 holds 5, second 2 holds 3.
    const x = read(group({ userAgent: 'x', requests: 5, servedFrom: { etcd: 5, cache: 0, unknown: 0, rejected: 0 } }), series(1000, [[1, 5]]));
    const y = read(group({ userAgent: 'y', requests: 1, servedFrom: { etcd: 1, cache: 0, unknown: 0, rejected: 0 } }), series(1000, [[1, 1]]));
    const z = read(group({ userAgent: 'z', requests: 3, servedFrom: { etcd: 3, cache: 0, unknown: 0, rejected: 0 } }), series(1000, [[2, 3]]));
    expect(whatIfPlanner([x, y, z])([y]).peakEtcdRequestsPerSecond).toEqual({ before: 6, after: 5 });
    expect(whatIfPlanner([x, y, z])([x]).peakEtcdRequestsPerSecond).toEqual({ before: 6, after: 3 });
  });

  it('no etcd reads at all: the peak is 0 before and after', () => {
    expect(whatIfPlanner([cm])([]).peakEtcdRequestsPerSecond).toEqual({ before: 0, after: 0 });
  });
});

describe('the etcd evidence of a group', () => {
  const range = (over: Partial<EtcdRangeReport>): EtcdRangeReport => ({ key: '/registry/pods/', resource: 'pods', scope: 'all', limited: false, internal: null, reads: 1, objectsPerRead: 10, objectsMax: 10, bytesPerRead: 100, tookMsAvg: 120, tookMsMax: 130, errors: 0, firstSeen: null, lastSeen: null, ...over });
  const ranges = [
    range({ key: '/registry/pods/', internal: 'count-only', reads: 9 }),
    range({ key: '/registry/configmaps/', resource: 'configmaps', reads: 8 }),
    range({ key: '/registry/pods/shop/', scope: 'namespace', reads: 2, objectsPerRead: 3, bytesPerRead: 30, tookMsMax: 110 }),
    range({ key: '/registry/pods/', reads: 4, objectsPerRead: 7130, bytesPerRead: 13_313_287, tookMsMax: 130.77 }),
  ];

  it('a cluster-wide list: the first whole-prefix read of its resource that is not the apiserver’s own', () => {
    expect(etcdEvidence(group(), ranges)).toEqual({ key: '/registry/pods/', reads: 4, objectsPerRead: 7130, bytesPerRead: 13_313_287, tookMsMax: 130.77 });
  });

  it('a namespaced list: the first read of its resource, at any scope', () => {
    expect(etcdEvidence(group({ namespace: 'shop' }), ranges)).toEqual({ key: '/registry/pods/shop/', reads: 2, objectsPerRead: 3, bytesPerRead: 30, tookMsMax: 110 });
  });

  it('none when the etcd log has no read of the resource', () => {
    expect(etcdEvidence(group({ resource: 'secrets' }), ranges)).toBeNull();
    expect(etcdEvidence(group(), [ranges[0]!, ranges[2]!])).toBeNull();
  });
});

const fmt = { count: (n: number) => `#${n}`, bytes: (n: number) => `${n}B`, singular: (r: string) => r.replace(/s$/, '') };
const finding = (over: Partial<Finding>): AnyFinding => ({ kind: 'list-from-etcd', severity: 'high', summary: '', fix: 'Send resourceVersion=0. Or else.', client: 'agent', userAgent: 'agent/1', username: 'system:serviceaccount:ops:agent', resource: 'pods', etcdRequests: 5, ...over }) as AnyFinding;

describe('the summary', () => {
  it('window and peak at 2 s buckets: buckets 5, 2 and 7 → 4 s to 16 s, 12 s long; the first of two equal peaks, 3 per 2 s = 1.5/s', () => {
    const s = summaryOf([], [], series(2000, [[5, 3], [2, 3], [7, 1]]), fmt);
    expect(s.window).toEqual({ start: new Date(4000).toISOString(), end: new Date(16_000).toISOString(), seconds: 12 });
    expect(s.peakRequestsPerSecond).toEqual({ value: 1.5, at: new Date(4000).toISOString() });
    // the same buckets met in the other order: still the earlier of the equal peaks
    expect(summaryOf([], [], series(2000, [[2, 3], [7, 1], [5, 3]]), fmt).peakRequestsPerSecond).toEqual({ value: 1.5, at: new Date(4000).toISOString() });
  });

  it('an empty log: no window, no peak, no offenders, no figures', () => {
    expect(summaryOf([], [], new TimeSeries(1000), fmt)).toEqual({ window: { start: null, end: null, seconds: null }, peakRequestsPerSecond: null, offenders: [], objectsRead: null, objectsReturned: null, bytesRead: null });
  });

  it('offenders: one line per client finding, with its group’s read/returned when all three figures are known', () => {
    const lists = [
      group({ username: 'someone-else', objectsReadPerRequest: 1, objectsReturnedPerRequest: 1, amplification: 1 }),
      group({ userAgent: 'other/2', objectsReadPerRequest: 2, objectsReturnedPerRequest: 2, amplification: 1 }),
      group({ objectsReadPerRequest: 7130, objectsReturnedPerRequest: 110, amplification: 64.8, estimated: true }),
      group({ resource: 'deployments', apiGroup: 'apps', objectsReadPerRequest: 40, objectsReturnedPerRequest: 4, amplification: 10 }),
    ];
    const fs: AnyFinding[] = [
      { kind: 'apiserver-restart' } as unknown as AnyFinding,
      finding({ kind: 'etcd-slow-ranges' }),
      finding({ client: undefined }),
      finding({ bytesReadTotal: 2048 }),
      finding({ kind: 'get-from-etcd', resource: 'deployments.apps', etcdRequests: undefined, bytesReadTotal: null, fix: 'Read from an informer; or send resourceVersion=0.' }),
      finding({ username: undefined, resource: undefined, severity: 'low' }),
    ];
    expect(summaryOf(fs, lists, new TimeSeries(1000), fmt).offenders).toEqual([
      { client: 'agent', username: 'system:serviceaccount:ops:agent', resource: 'pods', severity: 'high', what: '#5 pod lists from etcd, #7130 read / ~#110 returned (64.8×), 2048B', fix: 'Send resourceVersion=0' },
      { client: 'agent', username: 'system:serviceaccount:ops:agent', resource: 'deployments.apps', severity: 'high', what: '#0 deployment.apps gets from etcd, #40 read / #4 returned (10×)', fix: 'Read from an informer' },
      { client: 'agent', username: '', resource: '', severity: 'low', what: '#5  lists from etcd', fix: 'Send resourceVersion=0' },
    ]);
  });

  it.each<[string, Partial<GroupReport>]>([
    ['objects read', { objectsReadPerRequest: null }],
    ['objects returned', { objectsReturnedPerRequest: null }],
    ['amplification', { amplification: null }],
  ])('an offender without its group’s %s says only how many reads went to etcd', (_, over) => {
    const g = group({ objectsReadPerRequest: 10, objectsReturnedPerRequest: 5, amplification: 2, ...over });
    expect(summaryOf([finding({})], [g], new TimeSeries(1000), fmt).offenders[0]!.what).toBe('#5 pod lists from etcd');
  });

  it('what etcd read and returned, over the etcd-served lists with an objects-read figure', () => {
    const lists = [
      group({ servedFrom: { etcd: 3, cache: 0, unknown: 0, rejected: 0 }, objectsReadPerRequest: 100, objectsReturnedPerRequest: 10, bytesReadTotal: 300 }),
      group({ servedFrom: { etcd: 2, cache: 1, unknown: 0, rejected: 0 }, objectsReadPerRequest: 50, objectsReturnedPerRequest: 5, bytesReadTotal: 100 }),
      group({ servedFrom: { etcd: 0, cache: 4, unknown: 0, rejected: 0 }, objectsReadPerRequest: 1000, objectsReturnedPerRequest: 1000, bytesReadTotal: 9999 }), // the watch cache's
      group({ servedFrom: { etcd: 9, cache: 0, unknown: 0, rejected: 0 } }), // no figure: left out
    ];
    const s = summaryOf([], lists, new TimeSeries(1000), fmt);
    expect([s.objectsRead, s.objectsReturned, s.bytesRead]).toEqual([400, 40, 400]);
  });

  it('returned and bytes are unknown when any counted list lacks them; objects read still adds up', () => {
    const lists = [group({ objectsReadPerRequest: 100, objectsReturnedPerRequest: 10, bytesReadTotal: 300 }), group({ objectsReadPerRequest: 7 })];
    const s = summaryOf([], lists, new TimeSeries(1000), fmt);
    expect([s.objectsRead, s.objectsReturned, s.bytesRead]).toEqual([107, null, null]);
  });
});

describe('the incident, in time order', () => {
  const restart = (over: Partial<RestartFinding>) => ({ kind: 'apiserver-restart', input: 'a.log', start: '2026-11-30T12:00:40.000Z', end: '2026-11-30T12:01:00.000Z', gapSeconds: 20, signs: ['relist burst after', 'watches ended before'], ...over }) as AnyFinding;
  const storm = (etcdShare: number | null, start: string) => ({ kind: 'list-storm', start, end: start, requests: 1200, resource: 'pods', peakPerSecond: 300, etcdShare }) as unknown as AnyFinding;
  const token = (over: Partial<TokenFinding>) => ({ kind: 'token-refresh-storm', waves: [{ start: '2026-11-30T12:05:00.000Z', end: '2026-11-30T12:05:10.000Z', requests: 1, peakPerSecond: 1 }, { start: '2026-11-30T12:53:00.000Z', end: '2026-11-30T12:53:10.000Z', requests: 400, peakPerSecond: 80 }], nextWaveAt: '2026-11-30T13:41:00.000Z', ...over }) as AnyFinding;

  it('every kind, sorted by start, and by kind within a second', () => {
    const fs = [
      token({}),
      storm(0.675, '2026-11-30T12:02:00.000Z'),
      storm(0.5, '2026-11-30T12:01:00.000Z'),
      restart({ kind: 'audit-gap', start: '2026-11-30T12:01:00.000Z', end: '2026-11-30T12:01:30.000Z', gapSeconds: 30 }),
      restart({}),
      storm(0.49, '2026-11-30T12:03:00.000Z'),
      storm(null, '2026-11-30T12:04:00.000Z'),
      finding({}), // a client finding is not an event of the incident
    ];
    expect(incidentOf(fs, (n) => `#${n}`)).toEqual([
      { start: '2026-11-30T12:00:40.000Z', end: '2026-11-30T12:01:00.000Z', kind: 'apiserver-restart', what: 'apiserver restart seen in a.log (relist burst after, watches ended before)' },
      { start: '2026-11-30T12:01:00.000Z', end: '2026-11-30T12:01:30.000Z', kind: 'audit-gap', what: 'no audit events in a.log for 30 s' },
      { start: '2026-11-30T12:01:00.000Z', end: '2026-11-30T12:01:00.000Z', kind: 'list-storm', what: '#1200 pods lists, peak 300/s, 50% from etcd' },
      { start: '2026-11-30T12:02:00.000Z', end: '2026-11-30T12:02:00.000Z', kind: 'list-storm', what: '#1200 pods lists, peak 300/s, 68% from etcd' },
      { start: '2026-11-30T12:03:00.000Z', end: '2026-11-30T12:03:00.000Z', kind: 'list-storm', what: '#1200 pods lists, peak 300/s, from the watch cache' },
      { start: '2026-11-30T12:04:00.000Z', end: '2026-11-30T12:04:00.000Z', kind: 'list-storm', what: '#1200 pods lists, peak 300/s, served from an unknown mix' },
      { start: '2026-11-30T12:05:00.000Z', end: '2026-11-30T12:05:10.000Z', kind: 'token-wave', what: 'TokenRequest wave 1 of 2: #1 request, peak 1/s' },
      { start: '2026-11-30T12:53:00.000Z', end: '2026-11-30T12:53:10.000Z', kind: 'token-wave', what: 'TokenRequest wave 2 of 2: #400 requests, peak 80/s' },
      { start: '2026-11-30T13:41:00.000Z', end: '2026-11-30T13:41:00.000Z', kind: 'token-wave-expected', what: 'next TokenRequest wave expected' },
    ]);
  });

  it('events of one kind at one start keep the findings’ order', () => {
    const two = [storm(0.9, '2026-11-30T12:01:00.000Z'), { ...storm(0.9, '2026-11-30T12:01:00.000Z'), resource: 'configmaps' } as AnyFinding];
    expect(incidentOf(two, String).map((e) => e.what)).toEqual(['1200 pods lists, peak 300/s, 90% from etcd', '1200 configmaps lists, peak 300/s, 90% from etcd']);
  });

  it('the same second, met in the other order: the kinds still sort', () => {
    const fs = [storm(0.5, '2026-11-30T12:01:00.000Z'), restart({ kind: 'audit-gap', start: '2026-11-30T12:01:00.000Z', gapSeconds: 30 })];
    expect(incidentOf(fs, String).map((e) => e.kind)).toEqual(['audit-gap', 'list-storm']);
    expect(incidentOf([...fs].reverse(), String).map((e) => e.kind)).toEqual(['audit-gap', 'list-storm']);
  });

  it('no next wave when none is predicted', () => {
    expect(incidentOf([token({ nextWaveAt: null })], String).map((e) => e.kind)).toEqual(['token-wave', 'token-wave']);
  });
});

describe('how the figures were obtained', () => {
  const src = (objectsRead: string | null, objectsReturned: string | null, bytesRead: string | null) => group({ figureSources: { objectsRead, objectsReturned, bytesRead } as GroupReport['figureSources'] });
  const REQUESTS = 'requests, verbs, clients and times: the audit log (one request per auditID, however many stages)';

  it('every source once, sorted, however many groups name it', () => {
    const lists = [src('given', 'estimate-objects-per-node', null), src('etcd-log', 'audit-response', 'estimate-bytes-per-object'), src('audit-full-list', 'unfiltered-list', 'etcd-log'), src('etcd-log', 'single-object', null)];
    expect(methodOf(lists, { version: '1.30', reason: '--kube-version' })).toEqual({
      measured: [
        'bytes read per list: the etcd log (size of the same key range)',
        'objects read per list: a full list of the resource at RequestResponse level',
        'objects read per list: the etcd log (range_response_count of the same key range)',
        'objects returned per list: all of them (no selector)',
        'objects returned per list: the responses, at RequestResponse level',
        REQUESTS,
      ],
      estimated: ['bytes read per list: objects × the bytes per object of any read of the resource', 'objects read per list: --objects', 'objects returned per list (~): objects read ÷ nodes seen, for per-node selectors'],
      kubernetes: 'verdicts follow kube-apiserver 1.30 (--kube-version)',
    });
  });

  it('with no figures: only the requests, from the audit log', () => {
    expect(methodOf([src(null, null, null)], { version: '1.34', reason: 'assumed' })).toEqual({ measured: [REQUESTS], estimated: [], kubernetes: 'verdicts follow kube-apiserver 1.34 (assumed)' });
  });
});

