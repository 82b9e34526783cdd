/*! Number and time formatting shared by the human-readable renderers. */

import { formatBytes, formatCount, type EtcdRangeReport, type GroupReport } from '../analyze/report.js';

export { formatBytes, formatCount };

/** null → "–", else the formatted value. */
export function orDash<T>(v: T | null | undefined, f: (x: T) => string): string {
  return v === null || v === undefined ? '–' : f(v);
}

/** "2026-01-02T03:04:05.678Z" → "03:04:05" (or with the date when the scan spans days). */
export function shortTime(iso: string | null, withDate: boolean): string {
  if (iso === null) return '–';
  return withDate ? iso.slice(5, 19).replace('T', ' ') : iso.slice(11, 19);
}

/** An amplification ratio: "64.8×". */
export const formatRatio = (x: number): string => `${x >= 100 ? Math.round(x) : x}×`;

/** Column heads of the list-groups table in the Markdown and HTML reports. */
export const GROUP_HEAD = ['#', 'client', 'user', 'resource', 'selector', 'requests', 'nodes', 'no RV', 'etcd', 'cache', 'read/req', 'returned/req', 'amplification', 'first seen', 'last seen'];
/** Which of those columns hold numbers (right-aligned). */
export const GROUP_NUMERIC = new Set([5, 6, 7, 8, 9, 10, 11, 12]);

/** One list-groups row; `esc` makes a log string safe for the format (Markdown or HTML). */
export function groupRow(g: GroupReport, i: number, esc: (s: string) => string): string[] {
  const res = g.apiGroup ? `${g.resource}.${g.apiGroup}` : g.resource;
  const ns = g.namespace === null ? '' : ` (${g.namespace === '*' ? `${g.namespaces} namespaces` : g.namespace})`;
  return [
    String(i + 1),
    esc(g.userAgent || '(none)'),
    esc(g.username),
    esc(res + ns),
    esc(g.selector || '–'),
    formatCount(g.requests),
    formatCount(g.nodes),
    formatCount(g.withoutResourceVersion),
    formatCount(g.servedFrom.etcd),
    formatCount(g.servedFrom.cache),
    orDash(g.objectsReadPerRequest, formatCount),
    orDash(g.objectsReturnedPerRequest, (x) => (g.figureSources.objectsReturned === 'estimate-objects-per-node' ? '~' : '') + formatCount(x)),
    orDash(g.amplification, formatRatio),
    esc(g.firstSeen ?? '–'),
    esc(g.lastSeen ?? '–'),
  ];
}

/** Column heads of the slow-etcd-ranges table in the Markdown and HTML reports. */
export const ETCD_RANGE_HEAD = ['key', 'resource', 'reads', 'objects/read', 'bytes/read', 'max took [ms]', 'note'];
/** Which of those columns hold numbers (right-aligned). */
export const ETCD_RANGE_NUMERIC = new Set([2, 3, 4, 5]);

/** One slow-etcd-ranges row, the same cells in every renderer; `esc` makes a log string safe for the format. */
export function etcdRangeRow(e: EtcdRangeReport, esc: (s: string) => string): string[] {
  let note = '';
  if (e.internal !== null) note = `internal: ${e.internal}`;
  else if (e.limited) note = 'paginated';
  else if (e.errors > 0) note = `${formatCount(e.errors)} error${e.errors === 1 ? '' : 's'}`;
  return [esc(e.key), esc(e.resource || '–'), formatCount(e.reads), orDash(e.objectsPerRead, formatCount), orDash(e.bytesPerRead, formatBytes), orDash(e.tookMsMax, (x) => x.toFixed(1)), esc(note)];
}
