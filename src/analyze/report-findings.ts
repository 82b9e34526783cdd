/*! One job: choosing the report's findings from its figures (report.ts builds the figures): the etcd-served
 * list and get groups worth a finding, with their severity, fix and APF manifest; etcd's own slowness; and the
 * words (singular resource names, byte sizes) they are written in. */

import { formatCount } from '../model/count-format.js';
import { renderApfYaml } from './apf.js';
import { clientName, type EtcdRangeReport, type Finding, type GroupReport } from './findings.js';
import type { EtcdSlowAgg } from '../aggregate/scan-state.js';
import type { KubeVersion } from '../model/kube-version.js';
import type { ScanReport } from './report-types.js';

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** "pods" → "pod", "ingresses" → "ingress", "endpoints" stays. */
export function singular(resource: string): string {
  if (resource === 'endpoints') return resource;
  if (resource.endsWith('ies')) return resource.slice(0, -3) + 'y';
  if (resource.endsWith('sses') || resource.endsWith('xes')) return resource.slice(0, -2);
  if (resource.endsWith('s')) return resource.slice(0, -1);
  return resource;
}

/** 13313287 → "13.3 MB" (SI units, as the etcd size field is bytes). */
export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  // Stryker disable next-line EqualityOperator,Regex: 100 prints as 100 either way; toFixed(1) has one decimal, so ".0" can only end it
  return i === 0 ? `${Math.round(v)} ${units[0]}` : `${v >= 100 ? Math.round(v) : v >= 10 ? v.toFixed(1).replace(/\.0$/, '') : v.toFixed(1)} ${units[i]}`;
}

/** 4800 → "4,800". */
export { formatCount };

export function fixFor(g: GroupReport): string {
  // the most frequent reason that sent requests to etcd (a reason served "from cache" names no fix)
  const top = Object.keys(g.reasons).find((r) => {
    if (r.includes('from cache')) return false;
    return r.startsWith('no resourceVersion') || r.startsWith('continue') || r.startsWith('limit with') || r.includes('Exact') || r.startsWith('events') || r.startsWith('watch cache') || r.startsWith('unsupported');
  }) ?? '';
  const res = g.resource;
  if (top.startsWith('events') || top.startsWith('watch cache')) {
    return `${res} have no watch cache, so every list reads etcd: list a narrower scope (one namespace, fieldSelector on involvedObject), list less often, or move ${res} to their own etcd with --etcd-servers-overrides.`;
  }
  if (top.startsWith('continue')) {
    return 'Pages 2..n of a paginated list (continue token) read etcd before 1.34: list with resourceVersion=0 and no limit (one page, from the watch cache), or upgrade to 1.34+ (ListFromCacheSnapshot).';
  }
  if (top.startsWith('limit with') || top.includes('Exact')) {
    return 'Exact-resourceVersion reads go to etcd: use resourceVersionMatch=NotOlderThan (or resourceVersion=0) so the watch cache can serve it.';
  }
  const idx = res === 'pods' && g.selector.includes('spec.nodeName=') ? ' (pods by spec.nodeName use the watch-cache index)' : '';
  return `Send resourceVersion=0&resourceVersionMatch=NotOlderThan so the watch cache serves the list${idx}, or use an informer (client-go reflectors list from the cache).`;
}

export function severityOf(g: GroupReport, totalRequests: number): Finding['severity'] {
  const bytes = g.bytesReadTotal ?? 0;
  const amp = g.amplification ?? 0;
  const n = g.servedFrom.etcd;
  if (bytes >= 10e9 || (amp >= 50 && n >= 1000)) return 'critical';
  if (bytes >= 1e9 || (amp >= 10 && n >= 100) || n >= Math.max(1000, totalRequests * 0.1)) return 'high';
  if (n >= 100 || amp >= 10) return 'medium';
  return 'low';
}

/** What the etcd log says beyond the reads joined to clients: its own threshold, and etcd being slow by itself. */
export interface EtcdContext {
  thresholdMs: number | null;
  slow: ReadonlyMap<string, EtcdSlowAgg>;
  /** audit events were read, but the filters left out every request */
  auditFiltered: boolean;
  /** audit events were read at all */
  audit: boolean;
}

/** The slow reads of an etcd log no audit list explains: the heaviest and the slowest range, and the failed reads. */
function etcdOnlyFindings(report: Pick<ScanReport, 'totals'>, etcdRanges: EtcdRangeReport[], etcd: EtcdContext): Finding[] {
  const out: Finding[] = [];
  const client = etcdRanges.filter((x) => x.internal === null);
  const failed = client.reduce((n, x) => n + x.errors, 0);
  const answered = client.filter((x) => x.reads > x.errors);
  const reads = answered.reduce((n, x) => n + x.reads - x.errors, 0);
  const over = etcd.thresholdMs === null ? 'over 100 ms, etcd’s default threshold' : `over ${etcd.thresholdMs} ms, the threshold its log states`;
  const who = etcd.auditFiltered
    ? 'The filters left out the audit requests that would name the client.'
    : etcd.audit
      ? 'No list in the audit log explains them: check that the audit log covers the same time and comes from the apiservers of this etcd.'
      : 'Add the apiserver audit log to see which client sent them.';
  if (reads > 0) {
    // the heaviest first (etcdRanges' order: most objects read in all); the slowest may be another range
    const heavy = answered[0]!;
    const slowest = answered.reduce((a, b) => ((b.tookMsMax ?? -1) > (a.tookMsMax ?? -1) ? b : a));
    const each = heavy.objectsPerRead !== null ? `, ${plural(heavy.objectsPerRead, 'object')} each` : '';
    const slowText = slowest === heavy ? (heavy.tookMsMax !== null ? `, up to ${heavy.tookMsMax} ms` : '') : `; the slowest, ${slowest.key}, took ${slowest.tookMsMax} ms`;
    out.push({
      kind: 'etcd-slow-ranges',
      severity: reads >= 100 ? 'high' : 'medium',
      summary: `etcd logged ${plural(reads, 'slow read')} (${over})${answered.length > 1 ? ` of ${formatCount(answered.length)} key ranges; the most objects: ${heavy.key}, ${plural(heavy.reads - heavy.errors, 'read')}` : ` of ${heavy.key}`}${each}${slowText}. ${who}`,
      fix: 'Find the client in the audit log (lists of this resource without resourceVersion), then serve it from the watch cache or queue it with APF.',
      resource: heavy.resource,
      apf: null,
    });
  }
  if (failed > 0) {
    const worst = client.reduce((a, b) => (b.errors > a.errors ? b : a));
    out.push({
      kind: 'etcd-failed-reads',
      severity: 'medium',
      summary: `${plural(failed, 'read')} of etcd ended in an error, not an answer (most of ${worst.key}, ${formatCount(worst.errors)}): etcd logs "context canceled" when the apiserver stopped waiting and "request timed out" when etcd ran out of time; either way the client got no objects and will retry.`,
      fix: 'Look at etcd’s load and disk at those times (the slow-etcd findings, etcd_disk_wal_fsync_duration_seconds); a read of a whole large prefix that times out is retried in full, so serve it from the watch cache.',
      resource: worst.resource,
      apf: null,
    });
  }
  return out;
}

/** etcd slow on its own: writes, fdatasync, WAL syncs and heartbeats over their thresholds, which no read explains. */
export function etcdSlowFinding(etcd: EtcdContext): Finding | null {
  if (etcd.slow.size === 0) return null;
  const names: Record<string, [string, string]> = {
    'slow write': ['slow write', 'slow writes (txn or put over the threshold)'],
    'slow apply': ['slow apply', 'slow applies'],
    'slow fdatasync': ['slow fdatasync', 'slow fdatasyncs'],
    'wal sync': ['slow WAL sync', 'slow WAL syncs'],
    'late heartbeat': ['late leader heartbeat', 'late leader heartbeats (the leader overloaded, often by a slow disk)'],
  };
  const order = ['slow write', 'slow apply', 'slow fdatasync', 'wal sync', 'late heartbeat'];
  const parts: string[] = [];
  let disk = 0;
  let n = 0;
  for (const k of order) {
    const a = etcd.slow.get(k);
    if (a === undefined) continue;
    n += a.n;
    if (k !== 'slow write' && k !== 'slow apply') disk += a.n;
    const [one, many] = names[k]!;
    parts.push(`${formatCount(a.n)} ${a.n === 1 ? one : many}${a.tookMaxMs !== null ? `, up to ${formatMs(a.tookMaxMs)}` : ''}`);
  }
  return {
    kind: 'etcd-slow-disk',
    severity: disk > 0 || n >= 10 ? 'medium' : 'low',
    summary: `etcd was slow by itself, not for a read: ${parts.join('; ')}. Slow writes and syncs delay every request that writes, and a late heartbeat risks a leader election.`,
    fix: 'Check etcd’s disk: etcd_disk_wal_fsync_duration_seconds p99 should stay under 10 ms and etcd_disk_backend_commit_duration_seconds under 25 ms; give etcd a dedicated SSD, keep its database small (compaction, defragmentation), and look for noisy neighbours on the node.',
    apf: null,
  };
}

/** "1 read" / "2 reads". */
function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** 157.2 ms, 1.2 s */
function formatMs(ms: number): string {
  return ms >= 1000 ? `${round1(ms / 1000)} s` : `${round1(ms)} ms`;
}

export function buildFindings(
  report: Pick<ScanReport, 'totals' | 'listGroups'>,
  lists: GroupReport[],
  gets: GroupReport[],
  etcdRanges: EtcdRangeReport[],
  v: KubeVersion,
  groupOf: Map<Finding, GroupReport>,
  etcd: EtcdContext = { thresholdMs: null, slow: new Map(), auditFiltered: false, audit: false },
): Finding[] {
  const out: Finding[] = [];
  // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator: lists come ordered by etcd requests, so groups with none follow every group with some
  const etcdLists = lists.filter((g) => g.servedFrom.etcd > 0);
  const etcdListTotal = etcdLists.reduce((s, g) => s + g.servedFrom.etcd, 0);
  for (const g of etcdLists.slice(0, 10)) {
    if (g.servedFrom.etcd < Math.max(10, etcdListTotal * 0.01) && (g.amplification ?? 0) < 10) continue;
    const client = clientName(g.userAgent, g.username);
    const res = g.apiGroup.length > 0 ? `${g.resource}.${g.apiGroup}` : g.resource;
    const who = g.username.length > 0 && g.username !== client ? `${client} (${g.username})` : client;
    const from = g.nodes > 1 ? ` from ${formatCount(g.nodes)} nodes` : '';
    const noRv = g.withoutResourceVersion > 0 ? (g.withoutResourceVersion === g.requests ? ' without resourceVersion' : ` (${formatCount(g.withoutResourceVersion)} without resourceVersion)`) : '';
    // refused reads are in the group's requests but read nothing (serving.ts servingMix): said, never counted as etcd's
    const refused = g.servedFrom.rejected > 0 ? `, ${formatCount(g.servedFrom.rejected)} of them refused before storage (read nothing)` : '';
    let summary = `${who} sent ${formatCount(g.requests)} ${singular(g.resource)} lists${from}${noRv}${refused}; ${formatCount(g.servedFrom.etcd)} were served from etcd`;
    const est = g.estimated ? ' (estimated)' : '';
    if (g.objectsReadPerRequest !== null && g.amplification !== null && g.objectsReturnedPerRequest !== null) {
      const size = g.bytesReadPerRequest !== null ? ` (${formatBytes(g.bytesReadPerRequest)})` : '';
      const total = g.bytesReadTotal !== null ? `, ${formatBytes(g.bytesReadTotal)} read` : '';
      summary = `${who} sent ${formatCount(g.requests)} ${singular(g.resource)} lists${from}${noRv}${refused}; ${refused ? `the ${formatCount(g.servedFrom.etcd)} served from etcd each read ${formatCount(g.objectsReadPerRequest)} ${g.resource}${size}` : `each read ${formatCount(g.objectsReadPerRequest)} ${g.resource}${size} from etcd`} to return ~${formatCount(g.objectsReturnedPerRequest)}: ${g.amplification}× amplification${total}${est}`;
    } else {
      summary += '; the etcd log does not show how much each read (pass the etcd log or --objects).';
    }
    const finding: Finding = {
      kind: (g.amplification ?? 0) >= 2 ? 'etcd-list-amplification' : 'list-from-etcd',
      severity: severityOf(g, report.totals.requests),
      summary,
      fix: fixFor(g),
      client,
      userAgent: g.userAgent,
      username: g.username,
      resource: res,
      selector: g.selector,
      requests: g.requests,
      etcdRequests: g.servedFrom.etcd,
      nodes: g.nodes,
      amplification: g.amplification,
      bytesReadTotal: g.bytesReadTotal,
      estimated: g.estimated,
      apf: renderApfYaml(
        { username: g.username, apiGroup: g.apiGroup, resource: g.resource, verbs: ['list'], clusterScope: g.namespace === null, namespaced: g.namespace !== null },
        v,
      ),
    };
    out.push(finding);
    groupOf.set(finding, g);
  }
  for (const g of gets.slice(0, 5)) {
    if (g.servedFrom.etcd < 1000) continue;
    const client = clientName(g.userAgent, g.username);
    // with its API group, as a list finding's: leases.coordination.k8s.io, not leases
    const res = g.apiGroup.length > 0 ? `${g.resource}.${g.apiGroup}` : g.resource;
    const finding: Finding = {
      kind: 'get-from-etcd',
      severity: g.servedFrom.etcd >= report.totals.requests * 0.1 ? 'medium' : 'low',
      summary: `${client} (${g.username}) sent ${formatCount(g.servedFrom.etcd)} ${singular(g.resource)} gets without resourceVersion; each is a quorum read of one etcd key.`,
      fix: 'Read from an informer cache, or send resourceVersion=0 when a slightly stale object is acceptable.',
      client,
      userAgent: g.userAgent,
      username: g.username,
      resource: res,
      selector: g.selector,
      requests: g.requests,
      etcdRequests: g.servedFrom.etcd,
      nodes: g.nodes,
      apf: null,
    };
    out.push(finding);
    groupOf.set(finding, g);
  }
  if (report.listGroups.length === 0) out.push(...etcdOnlyFindings(report, etcdRanges, etcd));
  // by severity first: buildReport's stable sort of every finding puts that above this order
  out.sort((a, b) => (b.bytesReadTotal ?? 0) - (a.bytesReadTotal ?? 0) || (b.etcdRequests ?? 0) - (a.etcdRequests ?? 0));
  return out;
}
