// The time rules, each threshold on both sides, on logs whose counts per second are chosen by hand: what makes a
// list storm (≥ 10/s and ≥ 5× the usual rate, ≥ 50 requests, quiet spells under 5 s joined), what makes a gap a
// restart (a relist burst after, watches ending before), and what makes a TokenRequest wave.
import { describe, expect, it } from 'vitest';
import { auditLine, runCli } from '../support.js';

const T0 = Date.UTC(2026, 10, 30, 12);
const at = (ms: number) => new Date(T0 + ms).toISOString();
let seq = 0;
/** `perSec` requests in each second of [fromS, toS), spread evenly inside the second. */
function perSecond(fromS: number, toS: number, perSec: number, f: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (let s = fromS; s < toS; s++) for (let k = 0; k < perSec; k++) {
    const t = s * 1000 + Math.floor((k * 1000) / perSec);
    out.push(auditLine({ auditID: `q${seq++}`, requestReceivedTimestamp: at(t), stageTimestamp: at(t + 2), ...f }));
  }
  return out;
}
const cmList = { verb: 'list', requestURI: '/api/v1/configmaps', objectRef: { resource: 'configmaps', apiVersion: 'v1' }, user: { username: 'system:serviceaccount:ops:agent' }, userAgent: 'agent/1' };
const lease = { verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', objectRef: { resource: 'leases', namespace: 'kube-node-lease', name: 'n1', apiGroup: 'coordination.k8s.io' } };
const byTime = (ls: string[]) => ls.sort((a, b) => Date.parse(JSON.parse(a).stageTimestamp) - Date.parse(JSON.parse(b).stageTimestamp));
async function findings(lines: string[], kind: string, args: string[] = []): Promise<any[]> {
  const r = await runCli(['-o', 'json', '--kube-version', '1.30', ...args, '-'], byTime(lines).join('\n') + '\n');
  return JSON.parse(r.stdout).findings.filter((f: { kind: string }) => f.kind === kind);
}

describe('list storms', () => {
  it('10 lists a second for 5 s (50 lists) over a quiet log is a storm; 9 a second for 10 s is not', async () => {
    const quiet = perSecond(0, 300, 1, lease);
    const [s] = await findings([...quiet, ...perSecond(100, 105, 10, cmList)], 'list-storm');
    expect(s).toMatchObject({ resource: 'configmaps', start: at(100_000), end: at(105_000), requests: 50, peakPerSecond: 10, etcdShare: 1, severity: 'medium', beganBeforeLog: false, endedAfterLog: false });
    expect(await findings([...quiet, ...perSecond(100, 110, 9, cmList)], 'list-storm')).toEqual([]);
  });

  it('49 lists are too few, however fast', async () => {
    const quiet = perSecond(0, 300, 1, lease);
    expect(await findings([...quiet, ...perSecond(100, 101, 49, cmList)], 'list-storm')).toEqual([]);
    expect(await findings([...quiet, ...perSecond(100, 101, 50, cmList)], 'list-storm')).toHaveLength(1);
  });

  it('the bar is 5× the usual rate when that is above 10/s: with 4/s usual, 20/s is a storm and 19/s is not', async () => {
    const usual = perSecond(0, 300, 4, cmList);
    const [s] = await findings([...usual, ...perSecond(150, 155, 16, cmList)], 'list-storm');
    // 4 usual + 16 more = 20 in each of 5 s: 100 lists, peak 20/s against a usual 4/s
    expect(s).toMatchObject({ start: at(150_000), end: at(155_000), requests: 100, peakPerSecond: 20 });
    expect(s.summary).toContain('peak 20/s against a usual 4/s');
    expect(await findings([...usual, ...perSecond(150, 155, 15, cmList)], 'list-storm')).toEqual([]);
  });

  it('quiet spells under 5 s do not end a storm: 4 s of quiet joins two bursts, 5 s does not', async () => {
    const quiet = perSecond(0, 300, 1, lease);
    const joined = await findings([...quiet, ...perSecond(100, 105, 10, cmList), ...perSecond(109, 114, 10, cmList)], 'list-storm');
    expect(joined.map((s) => [s.start, s.end, s.requests])).toEqual([[at(100_000), at(114_000), 100]]);
    const apart = await findings([...quiet, ...perSecond(100, 105, 10, cmList), ...perSecond(110, 115, 10, cmList)], 'list-storm');
    expect(apart.map((s) => [s.start, s.end, s.requests])).toEqual([
      [at(100_000), at(105_000), 50],
      [at(110_000), at(115_000), 50],
    ]);
  });

  it('severity: etcd storms of 1,000 lists or 100/s are high; cache storms are low and say so', async () => {
    const quiet = perSecond(0, 300, 1, lease);
    const [big] = await findings([...quiet, ...perSecond(100, 110, 100, cmList)], 'list-storm');
    expect(big).toMatchObject({ requests: 1000, peakPerSecond: 100, severity: 'high' });
    const [ninetyNine] = await findings([...quiet, ...perSecond(100, 110, 99, cmList)], 'list-storm');
    expect(ninetyNine).toMatchObject({ requests: 990, peakPerSecond: 99, severity: 'medium' });
    const cached = { ...cmList, requestURI: '/api/v1/configmaps?resourceVersion=0' };
    const [c] = await findings([...quiet, ...perSecond(100, 110, 100, cached)], 'list-storm');
    expect(c).toMatchObject({ etcdShare: 0, severity: 'low' });
    expect(c.summary).toContain('100% served from the watch cache (harmless for etcd)');
  });

  it('a storm at the start of the log began before it; one at the end ended after it', async () => {
    const quiet = perSecond(0, 300, 1, lease);
    const [first] = await findings([...quiet, ...perSecond(0, 5, 20, cmList)], 'list-storm');
    expect(first).toMatchObject({ beganBeforeLog: true, endedAfterLog: false });
    expect(first.summary).toContain('The log begins inside this storm.');
    const [last] = await findings([...quiet, ...perSecond(295, 300, 20, cmList)], 'list-storm');
    expect(last).toMatchObject({ beganBeforeLog: false, endedAfterLog: true });
    // a log that is one storm from end to end has the storm as its usual rate: no storm
    expect(await findings(perSecond(0, 5, 20, cmList), 'list-storm')).toEqual([]);
  });
});

describe('gaps and restarts', () => {
  // 20 lease updates a second for 60 s; 40 s of silence; then 60 s more. A fixed --gap keeps the threshold at 30 s.
  const around = [...perSecond(0, 60, 20, lease), ...perSecond(100, 160, 20, lease)];
  const relistAfter = (n: number) => perSecond(100, 101, n, { ...cmList, requestURI: '/api/v1/configmaps?resourceVersion=0' });
  const listsBefore = (n: number) => perSecond(30, 31, n, { ...cmList, requestURI: '/api/v1/configmaps?resourceVersion=0' });
  const watchEnds = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      auditLine({ auditID: `w${seq++}`, verb: 'watch', requestURI: '/api/v1/pods?watch=true&resourceVersion=5', objectRef: { resource: 'pods' }, requestReceivedTimestamp: at(0), stageTimestamp: at(55_000 + i * 100) }),
    );
  const restart = async (lines: string[]) => (await findings([...around, ...lines], 'apiserver-restart', ['--gap', '30s']))[0];
  const gap = async (lines: string[]) => (await findings([...around, ...lines], 'audit-gap', ['--gap', '30s']))[0];

  it('10 lists in the minute after and none before: a relist burst, so a restart (medium)', async () => {
    expect(await restart(relistAfter(10))).toMatchObject({ listsInMinuteBefore: 0, listsInMinuteAfter: 10, signs: ['relist burst after'], severity: 'medium', gapSeconds: 40.1, gapThresholdSeconds: 30 });
  });

  it('9 lists after is not a burst: an audit gap (info)', async () => {
    expect(await gap(relistAfter(9))).toMatchObject({ listsInMinuteAfter: 9, signs: [], severity: 'info' });
  });

  it('after must be at least twice before: 12 after 6 is a burst, 11 after 6 is not', async () => {
    expect(await restart([...listsBefore(6), ...relistAfter(12)])).toMatchObject({ listsInMinuteBefore: 6, listsInMinuteAfter: 12 });
    expect(await gap([...listsBefore(6), ...relistAfter(11)])).toMatchObject({ listsInMinuteBefore: 6, listsInMinuteAfter: 11 });
  });

  it('5 watches ending in the 10 s before the silence are a restart sign (info, no relist); 4 are not', async () => {
    expect(await restart(watchEnds(5))).toMatchObject({ watchesClosedBefore: 5, signs: ['watches ended before'], severity: 'info' });
    expect(await gap(watchEnds(4))).toMatchObject({ watchesClosedBefore: 4 });
  });

  it('a pause of exactly the fixed --gap is a gap; 1 ms less is not', async () => {
    const pair = (ms: number) => [...perSecond(0, 10, 20, lease), auditLine({ auditID: `p${seq++}`, ...lease, requestReceivedTimestamp: at(9950 + ms - 2), stageTimestamp: at(9950 + ms) })];
    // the last event before the pause is stamped 9,952 ms (9,950 + 2)
    expect(await findings(pair(30_002), 'audit-gap', ['--gap', '30s'])).toHaveLength(1);
    expect(await findings(pair(30_001), 'audit-gap', ['--gap', '30s'])).toHaveLength(0);
  });
});

describe('TokenRequest waves', () => {
  const token = (id: string, s: number) =>
    auditLine({ auditID: id, verb: 'create', requestURI: '/api/v1/namespaces/a/serviceaccounts/b/token', user: { username: 'system:node:n1' }, objectRef: { resource: 'serviceaccounts', namespace: 'a', name: 'b', subresource: 'token' }, requestReceivedTimestamp: at(s * 1000), stageTimestamp: at(s * 1000 + 5) });
  const wave = (prefix: string, s: number, n: number) => Array.from({ length: n }, (_, i) => token(`${prefix}${i}`, s));

  it('5 TokenRequests make a wave, 4 do not', async () => {
    expect(await findings(wave('a', 0, 5), 'token-refresh-storm')).toHaveLength(1);
    expect(await findings(wave('a', 0, 4), 'token-refresh-storm')).toEqual([]);
  });

  it('requests up to 60 s apart are one wave; 61 s apart, two', async () => {
    const [one] = await findings([...wave('a', 0, 5), ...wave('b', 60, 5)], 'token-refresh-storm');
    expect(one.waves.map((w: any) => w.requests)).toEqual([10]);
    const [two] = await findings([...wave('a', 0, 5), ...wave('b', 61, 5)], 'token-refresh-storm');
    expect(two.waves.map((w: any) => w.requests)).toEqual([5, 5]);
  });

  it('severity: two waves peaking at 50/s are high, at 10/s medium, below that low; one wave is info', async () => {
    const sev = async (peak: number, waves: number) => (await findings(Array.from({ length: waves }, (_, w) => wave(`w${w}-`, w * 3000, peak)).flat(), 'token-refresh-storm'))[0].severity;
    expect(await sev(50, 2)).toBe('high');
    expect(await sev(49, 2)).toBe('medium');
    expect(await sev(10, 2)).toBe('medium');
    expect(await sev(9, 2)).toBe('low');
    expect(await sev(50, 1)).toBe('info');
  });
});

describe('TokenRequest waves: who, the TTL, and how many waves the summary lists', () => {
  const tok = (id: string, s: number, ns: string, ttl?: number) =>
    auditLine({
      auditID: id,
      level: 'Request',
      verb: 'create',
      requestURI: `/api/v1/namespaces/${ns}/serviceaccounts/sa/token`,
      user: { username: 'system:node:n1' },
      objectRef: { resource: 'serviceaccounts', namespace: ns, name: 'sa', subresource: 'token' },
      ...(ttl === undefined ? {} : { requestObject: { kind: 'TokenRequest', spec: { expirationSeconds: ttl } } }),
      requestReceivedTimestamp: at(s * 1000),
      stageTimestamp: at(s * 1000 + 5),
    });
  const pad = (i: number) => String(i).padStart(2, '0');

  it('the 20 busiest service accounts (ties by name) and the first 50 namespaces, sorted', async () => {
    // 60 requests in one second, written busiest-last: ns-04 … ns-00 twice, ns-54 … ns-05 once
    const lines = Array.from({ length: 60 }, (_, k) => 59 - k).map((i) => tok(`t${i}`, 0, `ns-${pad(i % 55)}`));
    const [t] = await findings(lines, 'token-refresh-storm');
    expect(t.serviceAccounts).toEqual([
      ...[0, 1, 2, 3, 4].map((i) => ({ serviceAccount: `ns-${pad(i)}/sa`, requests: 2 })),
      ...Array.from({ length: 15 }, (_, k) => ({ serviceAccount: `ns-${pad(k + 5)}/sa`, requests: 1 })),
    ]);
    expect(t.namespaces).toEqual(Array.from({ length: 50 }, (_, i) => `ns-${pad(i)}`));
  });

  it('the TTL is the one most requests ask for; a tie goes to the shorter', async () => {
    const ttlOf = async (ttls: number[]) => (await findings(ttls.map((x, i) => tok(`u${i}`, 0, 'a', x)), 'token-refresh-storm'))[0];
    const most = await ttlOf([3600, 3600, 3600, 7200, 7200, 7200, 7200, 7200]);
    expect([most.ttlSeconds, most.ttlSource, most.expectedPeriodSeconds]).toEqual([7200, 'requests', 5755.5]); // 0.8 × 7200 − 4.5
    const tie = await ttlOf([7200, 7200, 7200, 3600, 3600, 3600]);
    expect([tie.ttlSeconds, tie.expectedPeriodSeconds]).toEqual([3600, 2875.5]);
    const none = (await findings(Array.from({ length: 6 }, (_, i) => tok(`v${i}`, 0, 'a')), 'token-refresh-storm'))[0];
    expect([none.ttlSeconds, none.ttlSource]).toEqual([3607, 'default']);
  });

  it('the period is the median distance between waves: odd and even counts, in any order of distances', async () => {
    const at = async (starts: number[]) => (await findings(starts.flatMap((st, w) => Array.from({ length: 5 }, (_, i) => tok(`m${starts.length}-${w}-${i}`, st, 'a'))), 'token-refresh-storm'))[0].periodSeconds;
    // distances 3000, 2800, 2900: the median 2900
    expect(await at([0, 3000, 5800, 8700])).toBe(2900);
    // distances 3000, 2800, 2900, 2850: between 2850 and 2900
    expect(await at([0, 3000, 5800, 8700, 11550])).toBe(2875);
  });

  it('the summary lists up to 12 waves; past that the first 6, the last 6 and how many more', async () => {
    const waves = (n: number) => Array.from({ length: n }, (_, w) => Array.from({ length: 5 }, (_, i) => tok(`w${n}-${w}-${i}`, w * 2881, 'a'))).flat();
    const [twelve] = await findings(waves(12), 'token-refresh-storm');
    expect(twelve.waves).toHaveLength(12);
    expect(twelve.summary).not.toContain('more');
    expect(twelve.summary.match(/ at \d\d:\d\d:\d\d, peak/g)).toHaveLength(12);
    const [thirteen] = await findings(waves(13), 'token-refresh-storm');
    expect(thirteen.summary).toContain('; … 1 more)');
    expect(thirteen.summary.match(/ at \d\d:\d\d:\d\d, peak/g)).toHaveLength(12);
  });
});

describe('list storms: their order and their clients', () => {
  const lister = (resource: string, ua: string) => ({ verb: 'list', requestURI: `/api/v1/${resource}`, objectRef: { resource, apiVersion: 'v1' }, user: { username: `system:serviceaccount:ops:${ua.split('/')[0]}` }, userAgent: ua });
  it('storms in time order, ties by resource, whatever order the resources were first seen; clients busiest first, ties by user agent', async () => {
    const lines = [
      ...perSecond(0, 300, 1, lease),
      ...perSecond(1, 2, 1, lister('secrets', 'early/1')), // secrets are seen first
      ...perSecond(100, 105, 12, lister('configmaps', 'agent/1')),
      ...perSecond(200, 205, 10, lister('secrets', 'agent/1')),
      ...perSecond(200, 205, 6, lister('pods', 'b/1')),
      ...perSecond(200, 205, 6, lister('pods', 'a/1')),
      ...perSecond(200, 205, 8, lister('pods', 'c/1')),
    ];
    const storms = await findings(lines, 'list-storm');
    expect(storms.map((s) => [s.resource, s.start.slice(11, 19), s.requests])).toEqual([
      ['configmaps', '12:01:40', 60],
      ['pods', '12:03:20', 100],
      ['secrets', '12:03:20', 50],
    ]);
    expect(storms[1].clients.map((c: any) => [c.userAgent, c.requests, c.etcdShare])).toEqual([
      ['c/1', 40, 1],
      ['a/1', 30, 1],
      ['b/1', 30, 1],
    ]);
    expect(storms[1].summary).toContain('Top: c 40, a 30, b 30');
  });
});
