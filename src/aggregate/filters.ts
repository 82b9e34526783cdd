/*! Filters applied before aggregation (--since, --until, --user, --verb, --resource, --namespace). Plain data,
 * so the same filter can be posted to worker threads; compiled once into a predicate. */

import type { AuditEvent } from '../model/audit-event.js';

/** What to keep. Empty lists mean "any". Users may end in '*' (prefix match, e.g. system:node:*). */
export interface FilterSpec {
  sinceMs: number | null;
  untilMs: number | null;
  users: string[];
  verbs: string[];
  resources: string[];
  namespaces: string[];
}

export const NO_FILTER: FilterSpec = { sinceMs: null, untilMs: null, users: [], verbs: [], resources: [], namespaces: [] };

/** true when the spec filters nothing. */
export function isEmptyFilter(f: FilterSpec): boolean {
  return f.sinceMs === null && f.untilMs === null && f.users.length === 0 && f.verbs.length === 0 && f.resources.length === 0 && f.namespaces.length === 0;
}

/** Compiles a spec into a predicate over audit events. */
export function compileFilter(f: FilterSpec): ((e: AuditEvent) => boolean) | null {
  if (isEmptyFilter(f)) return null;
  const exact = new Set(f.users.filter((u) => !u.endsWith('*')));
  const prefixes = f.users.filter((u) => u.endsWith('*')).map((u) => u.slice(0, -1));
  const verbs = new Set(f.verbs);
  const resources = new Set(f.resources);
  const namespaces = new Set(f.namespaces);
  return (e) => {
    const t = e.receivedMs ?? e.stageMs;
    if (f.sinceMs !== null && (t === null || t < f.sinceMs)) return false;
    if (f.untilMs !== null && (t === null || t >= f.untilMs)) return false;
    if (verbs.size > 0 && !verbs.has(e.verb)) return false;
    if (resources.size > 0 && !resources.has(e.resource) && !resources.has(`${e.resource}.${e.apiGroup}`)) return false;
    if (namespaces.size > 0 && !namespaces.has(e.namespace)) return false;
    if (exact.size > 0 || prefixes.length > 0) {
      if (!exact.has(e.username) && !prefixes.some((p) => e.username.startsWith(p))) return false;
    }
    return true;
  };
}

/** Parses --since/--until: RFC 3339, or a duration before `nowMs` like kubectl ("30m", "2h", "1h30m", "90s"). */
export function parseTimeFlag(s: string, nowMs: number): number | null {
  const rel = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(s.trim());
  if (rel && s.trim().length > 0) {
    const [, d, h, m, sec] = rel;
    const ms = ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(m ?? 0)) * 60000 + Number(sec ?? 0) * 1000;
    return nowMs - ms;
  }
  if (!/^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/.test(s.trim())) return null;
  const ms = Date.parse(s.trim());
  return Number.isNaN(ms) ? null : ms;
}

/** Parses a duration flag like "10s", "1m", "500ms" into milliseconds. */
export function parseDurationFlag(s: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(s.trim());
  if (!m) return null;
  const f = { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * f;
}

/** The filters as flags, for the report and stderr: ["--since 2026-11-30T10:01:00.000Z", "--verb list"]. */
export function describeFilters(f: FilterSpec): string[] {
  const out: string[] = [];
  if (f.sinceMs !== null) out.push(`--since ${new Date(f.sinceMs).toISOString()}`);
  if (f.untilMs !== null) out.push(`--until ${new Date(f.untilMs).toISOString()}`);
  if (f.users.length > 0) out.push(`--user ${f.users.join(',')}`);
  if (f.verbs.length > 0) out.push(`--verb ${f.verbs.join(',')}`);
  if (f.resources.length > 0) out.push(`--resource ${f.resources.join(',')}`);
  if (f.namespaces.length > 0) out.push(`--namespace ${f.namespaces.join(',')}`);
  return out;
}

/** The verbs an audit event can carry: a resource request's (RequestInfo) or a non-resource request's lowercase
 * HTTP method. --verb takes only these, so a typo is a usage error rather than an empty report. */
export const AUDIT_VERBS: readonly string[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'post', 'put', 'head', 'options'];
