// Which findings buildFindings and etcdSlowFinding choose, and their words: the etcd-only read and failure findings
// (answered reads, heaviest and slowest range, worst failing range), etcd's own slowness, list and get findings' text and order.
import { describe, expect, it } from 'vitest';
import { buildFindings, etcdSlowFinding, type EtcdContext } from '../../src/analyze/report-findings.js';
import type { EtcdRangeReport, Finding, GroupReport } from '../../src/analyze/findings.js';
import type { EtcdSlowAgg } from '../../src/aggregate/state-types.js';
import type { ScanReport } from '../../src/analyze/report-types.js';
import { DEFAULT_KUBE_VERSION } from '../../src/model/kube-version.js';
import { groupReport } from '../support.js';

const NO_AUDIT = 'Add the apiserver audit log to see which client sent them.';
const NOT_EXPLAINED = 'No list in the audit log explains them: check that the audit log covers the same time and comes from the apiservers of this etcd.';
const FILTERED = 'The filters left out the audit requests that would name the client.';
const FAILED_TAIL = ': etcd logs "context canceled" when the apiserver stopped waiting and "request timed out" when etcd ran out of time; either way the client got no objects and will retry.';
const FAILED_FIX = 'Look at etcd’s load and disk at those times (the slow-etcd findings, etcd_disk_wal_fsync_duration_seconds); a read of a whole large prefix that times out is retried in full, so serve it from the watch cache.';
const DISK_TAIL = '. Slow writes and syncs delay every request that writes, and a late heartbeat risks a leader election.';
const DISK_FIX = 'Check etcd’s disk: etcd_disk_wal_fsync_duration_seconds p99 should stay under 10 ms and etcd_disk_backend_commit_duration_seconds under 25 ms; give etcd a dedicated SSD, keep its database small (compaction, defragmentation), and look for noisy neighbours on the node.';

function range(o: Partial<EtcdRangeReport>): EtcdRangeReport {
  return {
    key: '/registry/pods/', resource: 'pods', scope: 'all', limited: false, internal: null, reads: 1, objectsPerRead: 10, objectsMax: 10, bytesPerRead: null,
    tookMsAvg: null, tookMsMax: 150, errors: 0, firstSeen: null, lastSeen: null, ...o,
  };
}

function head(requests = 0, listGroups: GroupReport[] = []): Pick<ScanReport, 'totals' | 'listGroups'> {
  return { totals: { requests } as ScanReport['totals'], listGroups };
}

/** The findings of an etcd log with no audit list (the report's listGroups empty). */
function etcdOnly(ranges: EtcdRangeReport[], ctx: Partial<EtcdContext> = {}): Finding[] {
  return buildFindings(head(), [], [], ranges, DEFAULT_KUBE_VERSION, new Map(), { thresholdMs: null, slow: new Map(), auditFiltered: false, audit: false, ...ctx });
}

const summaryOf = (fs: Finding[], kind: string): string | undefined => fs.find((f) => f.kind === kind)?.summary;

describe('etcd-only slow reads: only answered reads count, the heaviest and the slowest named', () => {
  it('a range whose every read failed is no slow read: it is the failed-reads finding, with its worst range', () => {
    // pods: 3 answered reads; secrets: 4 reads, all 4 failed (no objects), slower
    const fs = etcdOnly([
      range({ key: '/registry/pods/', resource: 'pods', reads: 3, objectsPerRead: 7130, tookMsMax: 130 }),
      range({ key: '/registry/secrets/', resource: 'secrets', reads: 4, errors: 4, objectsPerRead: null, tookMsMax: 900 }),
    ]);
    expect(fs).toEqual([
      {
        kind: 'etcd-slow-ranges',
        severity: 'medium',
        summary: `etcd logged 3 slow reads (over 100 ms, etcd’s default threshold) of /registry/pods/, 7,130 objects each, up to 130 ms. ${NO_AUDIT}`,
        fix: 'Find the client in the audit log (lists of this resource without resourceVersion), then serve it from the watch cache or queue it with APF.',
        resource: 'pods',
        apf: null,
      },
      {
        kind: 'etcd-failed-reads',
        severity: 'medium',
        summary: `4 reads of etcd ended in an error, not an answer (most of /registry/secrets/, 4)${FAILED_TAIL}`,
        fix: FAILED_FIX,
        resource: 'secrets',
        apf: null,
      },
    ]);
  });

  it('a range with some failed reads counts only its answered ones, in the total and for the heaviest', () => {
    // pods: 5 reads, 2 failed → 3 answered; configmaps: 2 answered → 5 slow reads of 2 ranges
    const fs = etcdOnly(
      [
        range({ key: '/registry/pods/', reads: 5, errors: 2, objectsPerRead: 100, tookMsMax: 300 }),
        range({ key: '/registry/configmaps/', resource: 'configmaps', reads: 2, objectsPerRead: 10, tookMsMax: 120 }),
      ],
      { thresholdMs: 250, audit: true },
    );
    expect(summaryOf(fs, 'etcd-slow-ranges')).toBe(
      `etcd logged 5 slow reads (over 250 ms, the threshold its log states) of 2 key ranges; the most objects: /registry/pods/, 3 reads, 100 objects each, up to 300 ms. ${NOT_EXPLAINED}`,
    );
    expect(summaryOf(fs, 'etcd-failed-reads')).toBe(`2 reads of etcd ended in an error, not an answer (most of /registry/pods/, 2)${FAILED_TAIL}`);
  });

  it.each([
    ['no audit log', { auditFiltered: false, audit: false }, NO_AUDIT],
    ['an audit log with no list that explains them', { auditFiltered: false, audit: true }, NOT_EXPLAINED],
    ['an audit log the filters emptied', { auditFiltered: true, audit: true }, FILTERED],
  ])('with %s, the summary says where the client could be found', (_name, ctx, who) => {
    expect(summaryOf(etcdOnly([range({ reads: 2, objectsPerRead: 1 })], ctx), 'etcd-slow-ranges')).toBe(
      `etcd logged 2 slow reads (over 100 ms, etcd’s default threshold) of /registry/pods/, 1 object each, up to 150 ms. ${who}`,
    );
  });

  it('without an etcd context: the default threshold, and no audit log', () => {
    const fs = buildFindings(head(), [], [], [range({ reads: 2, objectsPerRead: 1 })], DEFAULT_KUBE_VERSION, new Map());
    expect(summaryOf(fs, 'etcd-slow-ranges')).toBe(`etcd logged 2 slow reads (over 100 ms, etcd’s default threshold) of /registry/pods/, 1 object each, up to 150 ms. ${NO_AUDIT}`);
  });

  const pods = (o: Partial<EtcdRangeReport>): EtcdRangeReport => range({ key: '/registry/pods/', reads: 2, objectsPerRead: 50, ...o });
  const cms = (o: Partial<EtcdRangeReport>): EtcdRangeReport => range({ key: '/registry/configmaps/', resource: 'configmaps', reads: 1, objectsPerRead: 5, ...o });
  it.each([
    // heavy and slowest: the first of equal times stays the slowest, so it is the heavy range's own "up to"
    ['equal times: the heaviest is the slowest', [pods({ tookMsMax: 200 }), cms({ tookMsMax: 200 })], ', 50 objects each, up to 200 ms'],
    ['a slower second range is named', [pods({ tookMsMax: 200 }), cms({ tookMsMax: 480 })], ', 50 objects each; the slowest, /registry/configmaps/, took 480 ms'],
    // no time for either: nothing is slowest, no time is said
    ['no time for either range', [pods({ tookMsMax: null }), cms({ tookMsMax: null })], ', 50 objects each'],
    // any time beats no time, even under 1 ms
    ['a time of 0.5 ms beats none', [pods({ tookMsMax: null }), cms({ tookMsMax: 0.5 })], ', 50 objects each; the slowest, /registry/configmaps/, took 0.5 ms'],
    ['no object count for the heaviest', [pods({ objectsPerRead: null, tookMsMax: 200 }), cms({ tookMsMax: 100 })], ', up to 200 ms'],
  ])('%s', (_name, ranges, tail) => {
    expect(summaryOf(etcdOnly(ranges), 'etcd-slow-ranges')).toBe(
      `etcd logged 3 slow reads (over 100 ms, etcd’s default threshold) of 2 key ranges; the most objects: /registry/pods/, 2 reads${tail}. ${NO_AUDIT}`,
    );
  });

  it('one range with neither an object count nor a time says only its key', () => {
    expect(summaryOf(etcdOnly([range({ reads: 1, objectsPerRead: null, tookMsMax: null })]), 'etcd-slow-ranges')).toBe(
      `etcd logged 1 slow read (over 100 ms, etcd’s default threshold) of /registry/pods/. ${NO_AUDIT}`,
    );
  });

  it('the failed-reads finding names the range with the most errors, the first of equals', () => {
    // errors 1, 3, 3, 0: the first range with 3 (configmaps) is the worst
    const fs = etcdOnly([
      range({ key: '/registry/secrets/', resource: 'secrets', reads: 1, errors: 1 }),
      range({ key: '/registry/configmaps/', resource: 'configmaps', reads: 3, errors: 3 }),
      range({ key: '/registry/events/', resource: 'events', reads: 3, errors: 3 }),
      range({ key: '/registry/pods/', resource: 'pods', reads: 1, errors: 0 }),
    ]);
    const failed = fs.find((f) => f.kind === 'etcd-failed-reads');
    expect(failed?.summary).toBe(`7 reads of etcd ended in an error, not an answer (most of /registry/configmaps/, 3)${FAILED_TAIL}`);
    expect(failed?.resource).toBe('configmaps');
  });
});

describe('etcd slow by itself: each kind named, counted in English, disk kinds make it medium', () => {
  const agg = (n: number, tookMaxMs: number | null = null): EtcdSlowAgg => ({ n, tookMaxMs, firstMs: null, lastMs: null });
  it.each<[string, Record<string, EtcdSlowAgg>, string, string]>([
    ['one slow write', { 'slow write': agg(1, 157.2) }, '1 slow write, up to 157.2 ms', 'low'],
    ['9 slow writes', { 'slow write': agg(9, 999) }, '9 slow writes (txn or put over the threshold), up to 999 ms', 'low'],
    ['10 slow writes, up to 1 s', { 'slow write': agg(10, 1000) }, '10 slow writes (txn or put over the threshold), up to 1 s', 'medium'],
    ['one slow apply', { 'slow apply': agg(1, 120) }, '1 slow apply, up to 120 ms', 'low'],
    ['two slow applies', { 'slow apply': agg(2) }, '2 slow applies', 'low'],
    ['slow writes and applies, 10 in all', { 'slow apply': agg(4), 'slow write': agg(6) }, '6 slow writes (txn or put over the threshold); 4 slow applies', 'medium'],
    ['two slow fdatasyncs', { 'slow fdatasync': agg(2, 1204) }, '2 slow fdatasyncs, up to 1.2 s', 'medium'],
    ['one slow WAL sync', { 'wal sync': agg(1) }, '1 slow WAL sync', 'medium'],
    ['three slow WAL syncs', { 'wal sync': agg(3, 1500) }, '3 slow WAL syncs, up to 1.5 s', 'medium'],
    ['two late heartbeats', { 'late heartbeat': agg(2) }, '2 late leader heartbeats (the leader overloaded, often by a slow disk)', 'medium'],
    [
      'every kind, in a fixed order',
      { 'late heartbeat': agg(1), 'wal sync': agg(2), 'slow fdatasync': agg(1), 'slow apply': agg(1), 'slow write': agg(2) },
      '2 slow writes (txn or put over the threshold); 1 slow apply; 1 slow fdatasync; 2 slow WAL syncs; 1 late leader heartbeat',
      'medium',
    ],
  ])('%s', (_name, slow, parts, severity) => {
    const f = etcdSlowFinding({ thresholdMs: null, slow: new Map(Object.entries(slow)), auditFiltered: false, audit: false });
    expect(f).toEqual({ kind: 'etcd-slow-disk', severity, summary: `etcd was slow by itself, not for a read: ${parts}${DISK_TAIL}`, fix: DISK_FIX, apf: null });
  });
});

describe('list and get findings: their summary, resource and order', () => {
  const lst = (o: Partial<GroupReport>): GroupReport => groupReport({ userAgent: 'agent/1', username: 'u', requests: 50, servedFrom: { etcd: 50, cache: 0, unknown: 0, rejected: 0 }, ...o });
  const findings = (lists: GroupReport[], gets: GroupReport[] = [], requests = 100_000): Finding[] =>
    buildFindings(head(requests, lists), lists, gets, [], DEFAULT_KUBE_VERSION, new Map());

  const NO_FIGURES = 'agent (u) sent 50 pod lists; 50 were served from etcd; the etcd log does not show how much each read (pass the etcd log or --objects).';
  it.each<[string, Partial<GroupReport>, string]>([
    ['every figure', { objectsReadPerRequest: 5000, objectsReturnedPerRequest: 50, amplification: 100 }, 'agent (u) sent 50 pod lists; each read 5,000 pods from etcd to return ~50: 100× amplification'],
    ['no objects read', { objectsReadPerRequest: null, objectsReturnedPerRequest: 50, amplification: 100 }, NO_FIGURES],
    ['objects read but no amplification', { objectsReadPerRequest: 5000, objectsReturnedPerRequest: 50, amplification: null }, NO_FIGURES],
    ['no objects returned', { objectsReadPerRequest: 5000, objectsReturnedPerRequest: null, amplification: 100 }, NO_FIGURES],
    ['only objects returned', { objectsReadPerRequest: null, objectsReturnedPerRequest: 50, amplification: null }, NO_FIGURES],
  ])('a list finding with %s', (_name, o, summary) => {
    expect(findings([lst(o)]).map((f) => f.summary)).toEqual([summary]);
  });

  it('refused reads: the figures are of the reads served from etcd', () => {
    const g = lst({
      requests: 120, servedFrom: { etcd: 100, cache: 0, unknown: 0, rejected: 20 },
      objectsReadPerRequest: 5000, objectsReturnedPerRequest: 50, amplification: 100, bytesReadPerRequest: 13_313_287, bytesReadTotal: 1_331_328_700,
    });
    // 13,313,287 B → 13.3 MB each; ×100 = 1,331,328,700 B → 1.3 GB
    expect(findings([g])[0]?.summary).toBe(
      'agent (u) sent 120 pod lists, 20 of them refused before storage (read nothing); the 100 served from etcd each read 5,000 pods (13.3 MB) to return ~50: 100× amplification, 1.3 GB read',
    );
  });

  it('a get finding names its resource with the API group, as a list finding does', () => {
    const get = (o: Partial<GroupReport>): GroupReport => groupReport({ verb: 'get', userAgent: 'kubelet/1.30', username: 'system:node:n1', ...o });
    const fs = findings([], [
      get({ resource: 'pods', apiGroup: '', requests: 2000, servedFrom: { etcd: 2000, cache: 0, unknown: 0, rejected: 0 } }),
      get({ resource: 'leases', apiGroup: 'coordination.k8s.io', requests: 1500, servedFrom: { etcd: 1500, cache: 0, unknown: 0, rejected: 0 } }),
    ]);
    expect(fs.map((f) => [f.kind, f.resource, f.summary])).toEqual([
      ['get-from-etcd', 'pods', 'kubelet (system:node:n1) sent 2,000 pod gets without resourceVersion; each is a quorum read of one etcd key.'],
      ['get-from-etcd', 'leases.coordination.k8s.io', 'kubelet (system:node:n1) sent 1,500 lease gets without resourceVersion; each is a quorum read of one etcd key.'],
    ]);
  });

  it('findings come most bytes read first, then most etcd requests', () => {
    // lists in etcd-request order (300, 200, 100); bytes 1 MB, 5 MB, none; a get of 1,500 etcd reads has no bytes
    const lists = [
      lst({ resource: 'secrets', requests: 300, servedFrom: { etcd: 300, cache: 0, unknown: 0, rejected: 0 }, bytesReadTotal: 1e6 }),
      lst({ resource: 'configmaps', requests: 200, servedFrom: { etcd: 200, cache: 0, unknown: 0, rejected: 0 }, bytesReadTotal: 5e6 }),
      lst({ resource: 'pods', requests: 100, servedFrom: { etcd: 100, cache: 0, unknown: 0, rejected: 0 } }),
    ];
    const gets = [groupReport({ verb: 'get', resource: 'nodes', requests: 1500, servedFrom: { etcd: 1500, cache: 0, unknown: 0, rejected: 0 } })];
    expect(findings(lists, gets).map((f) => `${f.kind} ${f.resource}`)).toEqual(['list-from-etcd configmaps', 'list-from-etcd secrets', 'get-from-etcd nodes', 'list-from-etcd pods']);
  });
});
