/*! One job: the live view's window (--follow): the requests of the last --window, their rate and the share that
 * went to etcd, and the top clients in it, from the groups' series. */

import type { ReadGroup } from '../aggregate/read-groups.js';
import type { ScanState } from '../aggregate/scan-state.js';
import type { TimeSeries } from '../aggregate/time-series.js';
import { clientName, type GroupReport } from './findings.js';
import { etcdShareOf } from './serving.js';
import type { LiveWindow } from './report-types.js';

const round1 = (x: number): number => Math.round(x * 10) / 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;

/** Requests of `s` in [from, to). A bucket the window cuts (a series coarsened over a long run) counts by the
 * share of it inside, the bucket taken as spanning only the times the series holds ([firstMs, lastMs]): the
 * last bucket of a run is seldom full. So groups' counts add up to about the whole's. */
function inWindow(s: TimeSeries, from: number, to: number, firstMs = -Infinity, lastMs = Infinity): number {
  let n = 0;
  for (const [b, c] of s.buckets) {
    const start = Math.max(b * s.widthMs, firstMs);
    const end = Math.min((b + 1) * s.widthMs, lastMs + 1);
    // Stryker disable next-line EqualityOperator: a bucket that only touches the window adds its share inside, 0
    if (end <= from || start >= to) continue;
    n += (start >= from && end <= to) || end <= start ? c : (c * (Math.min(end, to) - Math.max(start, from))) / (end - start);
  }
  return n;
}

/** `firstMs`, `lastMs`: the inputs' first and last event times (buildReport has them; ±Infinity when none). */
export function liveWindowOf(state: ScanState, index: Map<string, { report: GroupReport; raw: ReadGroup }>, windowMs: number, top: number, firstMs: number, lastMs: number): LiveWindow {
  const all = state.time.all;
  let last = -Infinity;
  for (const b of all.buckets.keys()) if (b > last) last = b;
  if (!Number.isFinite(last)) return { seconds: windowMs / 1000, coveredSeconds: 0, from: null, to: null, requests: 0, perSecond: 0, nowPerSecond: 0, etcdRequests: 0, etcdShare: null, top: [] };
  // the window ends with the bucket of the latest request; once the series has coarsened past --bucket, just
  // after the latest request (a wide last bucket is seldom full)
  const coarse = all.widthMs > state.timeOptions.bucketMs;
  const to = coarse && Number.isFinite(lastMs) && lastMs < (last + 1) * all.widthMs ? lastMs + 1 : (last + 1) * all.widthMs;
  const from = to - windowMs;
  const requests = Math.round(inWindow(all, from, to, firstMs, lastMs));
  const nowMs = Math.min(10_000, windowMs);
  // Rates are over the part of the window the log covers: a log shorter than the window is not a quiet one.
  const covered = Math.max(1000, to - Math.max(from, firstMs));
  const coveredNow = Math.max(1000, to - Math.max(to - nowMs, firstMs));
  let etcd = 0;
  let classified = 0;
  const rows: LiveWindow['top'] = [];
  for (const { report: g, raw } of index.values()) {
    const n = Math.round(inWindow(raw.series, from, to, raw.firstMs ?? -Infinity, raw.lastMs ?? Infinity));
    if (n === 0) continue;
    // the one rule (serving.ts servingMix): a refused read is known, and never an etcd read
    const share = etcdShareOf(g.servedFrom);
    if (share !== null) {
      etcd += n * share;
      classified += n;
    }
    rows.push({ client: clientName(g.userAgent, g.username), userAgent: g.userAgent, username: g.username, verb: g.verb, resource: g.apiGroup ? `${g.resource}.${g.apiGroup}` : g.resource, selector: g.selector, requests: n, perSecond: round2((n * 1000) / covered), etcdShare: share === null ? null : Math.round(share * 100) / 100 });
  }
  // worst for etcd first: the requests it sent there, then all it sent
  rows.sort((a, b) => (b.etcdShare ?? 0) * b.requests - (a.etcdShare ?? 0) * a.requests || b.requests - a.requests || (a.client < b.client ? -1 : 1));
  return {
    seconds: windowMs / 1000,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    coveredSeconds: round1(covered / 1000),
    requests,
    perSecond: round2((requests * 1000) / covered),
    nowPerSecond: round2((inWindow(all, to - nowMs, to, firstMs, lastMs) * 1000) / coveredNow),
    etcdRequests: Math.round(etcd),
    etcdShare: classified === 0 ? null : Math.round((etcd / classified) * 100) / 100,
    top: rows.slice(0, top),
  };
}
