/*! One job: two reports compared, before → after (issue 47 #1): did the fix work? Works on the JSON contract
 * (docs/json-output.md) whatever each side came from: a saved report, a store, logs, or one log split in two. Rates
 * are per minute of each side's own window, so a shorter or quieter side is compared fairly, and said so when the
 * sides differ in size. */

import { clientName } from './findings.js';
import { servingMix } from './serving.js';

/** The diff's own JSON contract version (docs/diff.md). */
export const DIFF_SCHEMA_VERSION = 1;

/** What a side must hold: the parts of a report (schemaVersion 1) the diff reads. */
export interface SideReport {
  schemaVersion: number;
  tool: { name: string; version: string };
  totals: { requests: number; clusterNodes: number; firstSeen: string | null; lastSeen: string | null; listFromEtcd?: number; getFromEtcd?: number };
  listGroups: GroupJson[];
  getGroups: GroupJson[];
  listGroupsTotal?: number;
  /** absent in reports of an audit-scan before it (schemaVersion 1 all the same) */
  getGroupsTotal?: number;
  findings: FindingJson[];
  summary: { window: { start: string | null; end: string | null; seconds: number } | null };
  timeline?: { bucketSeconds: number; series: Array<{ key: string; points: Array<[string, number]> }> };
  /** the release its requests were read by, and where that came from (flag, metrics, the apiserver's log, user
   * agents); absent in reports that do not carry it */
  kubernetes?: { version: string | null; source?: string };
}

export interface GroupJson {
  verb: string;
  userAgent: string;
  username: string;
  resource: string;
  apiGroup: string;
  selector: string;
  requests: number;
  servedFrom: { etcd: number; cache: number; unknown: number; rejected?: number };
  objectsReadPerRequest: number | null;
  amplification: number | null;
  latencyMs: { p99: number } | null;
}

export interface FindingJson {
  kind: string;
  severity: string;
  summary: string;
  client?: string;
  username?: string;
  resource?: string;
  /** its group's selector shape; absent in reports of an audit-scan before it */
  selector?: string;
  apiserver?: string;
  input?: string;
  requests?: number;
  etcdRequests?: number;
  whatIf?: { etcdRequests: { before: number; after: number } } | null;
  /** a token-refresh-storm's waves and its jitter what-if */
  waves?: Array<{ peakPerSecond: number }>;
  jitter?: { proposedSeconds: number; predictedPeakWithProposed: number } | null;
  /** findings of a time (restarts, gaps, storms, waves): when; an audit-gap of several pauses lists them */
  start?: string;
  end?: string;
  gaps?: Array<{ start: string; end: string }>;
}

/** One side's figures of one group, per minute of that side's window. */
export interface GroupSide {
  requests: number;
  perMinute: number;
  etcdPerMinute: number;
  etcdShare: number | null;
  objectsReadPerRequest: number | null;
  amplification: number | null;
  p99Ms: number | null;
}

/** `not compared`: the group is on one side only, and the other side is a report saved with --top that left groups
 * out: it may be there, under the cut, so it is neither new nor gone (and never worse). */
export type Change = 'worse' | 'new' | 'better' | 'gone' | 'same' | 'not compared';

export interface GroupChange {
  client: string;
  username: string;
  verb: string;
  resource: string;
  selector: string;
  change: Change;
  before: GroupSide | null;
  after: GroupSide | null;
  /** etcd reads a minute, after − before */
  etcdPerMinuteDelta: number;
  /** what the before report's fix for this group said would happen to its etcd reads, against what did */
  whatIf: { predictedEtcdPerMinute: number; actualEtcdPerMinute: number } | null;
  /** why it is `not compared`: "not in the before report's top 20 get groups"; else null */
  note: string | null;
}

export interface FindingChange {
  kind: string;
  subject: string;
  /** a client finding's resource (with its API group) and selector shape: one client's findings on two resources,
   * or two selectors, are two findings; null when it has none */
  resource: string | null;
  selector: string | null;
  /** 'cut by the split': one log cut in two (--split-at) inside the finding's time (a restart's gap, a storm), so
   * each side holds a part of it and its before and after say nothing of a fix */
  change: 'appeared' | 'went away' | 'worse' | 'better' | 'still' | 'cut by the split';
  /** what its change is judged by: its etcd reads (client findings) or requests (storms) a minute of each side's
   * window (token storms: their peak a second); null for a finding with no such count (restarts, gaps, etcd's own slowness), whose change
   * on both sides is `still`. A side without a client finding counts its client's groups' etcd reads there (null
   * when that side's report was cut below them); without a storm, null */
  figure: 'etcd reads' | 'requests' | 'peak TokenRequests/s' | null;
  /** per minute of each side's window; for 'peak TokenRequests/s' (a token-refresh-storm) the highest TokenRequests a
   * second of its waves, a peak not a rate over the window: a side without the finding, its TokenRequests series' */
  perMinuteBefore: number | null;
  perMinuteAfter: number | null;
  /** a token-refresh-storm before: the peak its jitter what-if predicted (min(10% TTL, 5 min) of kubelet jitter)
   * against the after side's peak; else null */
  whatIf: { proposedJitterSeconds: number; predictedPeakPerSecond: number; actualPeakPerSecond: number | null } | null;
  /** this finding got worse: its figure grew by CHANGE_FRACTION and by MIN_ETCD_PER_MINUTE a minute (a client
   * finding that appeared: against its groups on the before side); a finding with no figure, or a storm, that
   * appeared at medium severity or above. The exit status is then 1 */
  worse: boolean;
  severityBefore: string | null;
  severityAfter: string | null;
  summaryBefore: string | null;
  summaryAfter: string | null;
}

export interface SideSummary {
  label: string;
  source: string;
  start: string | null;
  end: string | null;
  minutes: number;
  requests: number;
  requestsPerMinute: number;
  etcdPerMinute: number;
  nodes: number;
  groupsCompared: number;
  groupsTotal: number;
  /** the clock minutes of its window that held a request (of `minutesTouched`); null without a timeline */
  activeMinutes: number | null;
  minutesTouched: number | null;
  /** the Kubernetes release its requests were read by (where each went: cache or etcd), or null */
  kubernetes: string | null;
}

export interface DiffReport {
  diffSchemaVersion: number;
  tool: { name: string; version: string };
  before: SideSummary;
  after: SideSummary;
  /** what makes the sides unlike, said before any "better" is believed */
  caveats: string[];
  groups: GroupChange[];
  findings: FindingChange[];
  /** true when a group or a finding got worse: the exit status is 1 */
  worse: boolean;
  /** requests per bucket over each side's window, from its start (seconds, count), for the chart; each side's
   * counts are per its own bucket width (bucketSecondsBefore, bucketSecondsAfter); bucketSeconds is the larger */
  series: { bucketSeconds: number; bucketSecondsBefore: number; bucketSecondsAfter: number; before: Array<[number, number]>; after: Array<[number, number]> };
}

/** A group's etcd reads must grow by this fraction, and by at least MIN_ETCD_PER_MINUTE, to be worse (or shrink
 * by it to be better). */
export const CHANGE_FRACTION = 0.2;
export const MIN_ETCD_PER_MINUTE = 1;
/** Sides whose traffic or nodes differ by more than this factor are said to differ. */
export const UNLIKE_FACTOR = 1.5;

const SEVERITY = ['info', 'low', 'medium', 'high', 'critical'];
const rank = (s: string | null): number => (s === null ? -1 : SEVERITY.indexOf(s));
const r2 = (x: number): number => Math.round(x * 100) / 100;

/** Refuses what is not a report the diff can read, with why (exit 2). */
export function checkSide(v: unknown, label: string): SideReport {
  const r = v as Partial<SideReport> | null;
  if (r === null || typeof r !== 'object' || r.tool?.name !== 'audit-scan' || !Array.isArray(r.listGroups) || r.totals === undefined) {
    throw new Error(`${label}: not an audit-scan JSON report (save one with: audit-scan -o json LOGS > report.json)`);
  }
  if (r.schemaVersion !== 1) throw new Error(`${label}: a report of schemaVersion ${String(r.schemaVersion)}; this audit-scan reads schemaVersion 1: make it again with this version`);
  if (r.totals.requests === 0) throw new Error(`${label}: holds no requests (an empty side: nothing to compare)`);
  const seconds = secondsOf(r as SideReport);
  if (!(seconds >= MIN_SIDE_SECONDS)) {
    const w = r.summary?.window;
    const span = w?.start != null && w.end != null ? ` (${w.start} – ${w.end})` : '';
    throw new Error(`${label}: its requests cover ${Number.isFinite(seconds) ? `${r2(seconds)} s` : 'no known time'}${span}: a side under ${MIN_SIDE_SECONDS} s is too short to judge per-minute rates; give a side of a minute or more`);
  }
  return r as SideReport;
}

/** A side under this many seconds is refused (exit 2): its per-minute rates would be a few seconds' counts. */
export const MIN_SIDE_SECONDS = 60;

/** The side's window in seconds: the report's summary window (first to last request, whole buckets, so at least one
 * bucket), else the span of its first and last request. */
function secondsOf(r: SideReport): number {
  const w = r.summary?.window;
  if (typeof w?.seconds === 'number') return w.seconds;
  return r.totals.firstSeen !== null && r.totals.lastSeen !== null ? (Date.parse(r.totals.lastSeen) - Date.parse(r.totals.firstSeen)) / 1000 : NaN;
}

/** The window in minutes, as it is: checkSide refused sides under MIN_SIDE_SECONDS. */
const minutesOf = (r: SideReport): number => secondsOf(r) / 60;

/** The whole minutes (clock minutes, or buckets when they are longer) of the window that held a request, and how
 * many the window touches: the window runs from the first request to the last, so quiet stretches lower its
 * rates. Null without a timeline. */
function activeOf(r: SideReport): { active: number; touched: number; unitSeconds: number } | null {
  const s = r.timeline?.series.find((x) => x.key === 'all requests');
  const w = r.summary?.window;
  if (s === undefined || w === null || w === undefined || w.start === null || w.end === null) return null;
  const unit = Math.max(60, r.timeline!.bucketSeconds) * 1000;
  const start = Date.parse(w.start);
  const end = Date.parse(w.end);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return null;
  const active = new Set(s.points.filter(([, n]) => n > 0).map(([t]) => Math.floor(Date.parse(t) / unit))).size;
  return { active, touched: Math.floor((end - 1) / unit) - Math.floor(start / unit) + 1, unitSeconds: unit / 1000 };
}

const keyOf = (g: GroupJson): string => [g.verb, clientName(g.userAgent, g.username), g.username, g.apiGroup, g.resource, g.selector].join('\u0000');

function sideOf(g: GroupJson, minutes: number): GroupSide {
  const mix = servingMix(g.servedFrom);
  return {
    requests: g.requests,
    perMinute: r2(g.requests / minutes),
    etcdPerMinute: r2(g.servedFrom.etcd / minutes),
    etcdShare: mix === null ? null : r2(mix.etcd),
    objectsReadPerRequest: g.objectsReadPerRequest,
    amplification: g.amplification,
    p99Ms: g.latencyMs?.p99 ?? null,
  };
}

/** A rate a minute, before → after: up or down by CHANGE_FRACTION and by MIN_ETCD_PER_MINUTE, else same. */
function rateChange(b: number, a: number): 'worse' | 'better' | 'same' {
  const d = a - b;
  if (d >= MIN_ETCD_PER_MINUTE && a > b * (1 + CHANGE_FRACTION)) return 'worse';
  if (-d >= MIN_ETCD_PER_MINUTE && a < b * (1 - CHANGE_FRACTION)) return 'better';
  return 'same';
}

function changeOf(b: GroupSide | null, a: GroupSide | null): Change {
  if (b === null) return a !== null && a.etcdPerMinute >= MIN_ETCD_PER_MINUTE ? 'new' : 'same';
  if (a === null) return b.etcdPerMinute >= MIN_ETCD_PER_MINUTE ? 'gone' : 'same';
  return rateChange(b.etcdPerMinute, a.etcdPerMinute);
}

/** A finding's count its change is judged by, and what it counts: etcd reads (client findings), the waves' peak
 * (token-refresh-storm: the peak is what loads the apiserver, and what a jitter flattens), else requests.
 * `perMinute`: divided by the side's minutes (a peak is not). */
function figureOf(f: FindingJson): { n: number; figure: NonNullable<FindingChange['figure']>; perMinute: boolean } | null {
  if (f.kind === 'token-refresh-storm' && Array.isArray(f.waves) && f.waves.length > 0) return { n: Math.max(...f.waves.map((w) => w.peakPerSecond)), figure: 'peak TokenRequests/s', perMinute: false };
  if (typeof f.etcdRequests === 'number') return { n: f.etcdRequests, figure: 'etcd reads', perMinute: true };
  if (typeof f.requests === 'number') return { n: f.requests, figure: 'requests', perMinute: true };
  return null;
}

/** A report's highest TokenRequests a second (its timeline's TokenRequests series), 0 when it has none, null
 * without a timeline. */
function tokenPeakOf(r: SideReport): number | null {
  if (r.timeline === undefined) return null;
  const s = r.timeline.series.find((x) => x.key === 'TokenRequests');
  let peak = 0;
  for (const [, n] of s?.points ?? []) if (n > peak) peak = n;
  return r2(peak / r.timeline.bucketSeconds);
}

/** The subject a finding is about, in a word: its client, resource, apiserver or input. */
function subjectOf(f: FindingJson): string {
  return f.client ?? f.resource ?? f.apiserver ?? f.input ?? '';
}

/** What a finding is about, to match it across the sides: its kind and, where it has them, its client and user,
 * resource (with API group), apiserver and input; the selector pairs findings within that (pairsOf). */
const findingKey = (f: FindingJson): string => [f.kind, f.client ?? '', f.username ?? '', f.resource ?? '', f.apiserver ?? '', f.input ?? ''].join('\u0000');

/** The findings of one key on each side, paired: by selector shape; a finding without one (a report of an older
 * audit-scan) pairs with the first left. Each finding is in one pair. */
function pairsOf(bs: FindingJson[], as: FindingJson[]): Array<[FindingJson | null, FindingJson | null]> {
  const rest = [...as];
  const out: Array<[FindingJson | null, FindingJson | null]> = [];
  for (const b of bs) {
    let i = rest.findIndex((a) => a.selector === b.selector);
    if (i < 0) i = rest.findIndex((a) => a.selector === undefined || b.selector === undefined);
    out.push([b, i < 0 ? null : rest.splice(i, 1)[0]!]);
  }
  for (const a of rest) out.push([null, a]);
  return out;
}

/** The verb of a client finding's group. */
const verbOfFinding = (f: FindingJson): 'list' | 'get' => (f.kind === 'get-from-etcd' ? 'get' : 'list');
const groupKey = (verb: string, client: string, username: string, resource: string, selector: string): string => [verb, client, username, resource, selector].join('\u0000');

function seriesOf(r: SideReport): { width: number; points: Array<[number, number]> } {
  const s = r.timeline?.series.find((x) => x.key === 'all requests');
  const width = r.timeline?.bucketSeconds ?? 1;
  const start = r.summary?.window?.start ?? r.totals.firstSeen;
  if (s === undefined || start === null) return { width, points: [] };
  const t0 = Date.parse(start);
  return { width, points: s.points.map(([t, n]): [number, number] => [Math.round((Date.parse(t) - t0) / 1000), n]) };
}

/** The --top the default scan saves with: a report of an older audit-scan has no getGroupsTotal, and its gets are
 * taken as cut when it holds this many (or as many as its cut lists). */
const DEFAULT_TOP = 20;

/** Where a saved report cut its groups (--top): per kind, the number it kept when it left some out, else null;
 * `presumed` when the report does not say (no getGroupsTotal) and the count is taken as its top. */
interface Cut {
  list: number | null;
  get: number | null;
  presumed: boolean;
}

function cutOf(r: SideReport): Cut {
  const gets = r.getGroups ?? [];
  const list = r.listGroupsTotal !== undefined && r.listGroupsTotal > r.listGroups.length ? r.listGroups.length : null;
  if (r.getGroupsTotal !== undefined) return { list, get: r.getGroupsTotal > gets.length ? gets.length : null, presumed: false };
  const top = list ?? DEFAULT_TOP;
  return { list, get: gets.length > 0 && gets.length >= top ? gets.length : null, presumed: gets.length > 0 && gets.length >= top };
}

const kindOfVerb = (verb: string): 'list' | 'get' => (verb === 'get' ? 'get' : 'list');

/** The etcd reads of a client finding's groups in a report: its verb, client, user, resource (with API group; a
 * get's without, as older reports wrote it) and selector (where the finding has one). 0 when the report holds none
 * of them; null when it holds none and was cut (--top) for that verb: they may be under the cut. */
function groupEtcdOf(r: SideReport, f: FindingJson, cut: Cut): number | null {
  const verb = verbOfFinding(f);
  const gs = [...r.listGroups, ...(r.getGroups ?? [])].filter((g) => {
    if (kindOfVerb(g.verb) !== verb || clientName(g.userAgent, g.username) !== f.client) return false;
    if (f.username !== undefined && g.username !== f.username) return false;
    if (f.selector !== undefined && g.selector !== f.selector) return false;
    const res = g.apiGroup.length > 0 ? `${g.resource}.${g.apiGroup}` : g.resource;
    return res === f.resource || (verb === 'get' && f.selector === undefined && g.resource === f.resource);
  });
  if (gs.length === 0) return cut[verb] !== null ? null : 0;
  return gs.reduce((n, g) => n + g.servedFrom.etcd, 0);
}

/** Before → after, per group and per finding, with the caveats of unlike sides. */
/** The time a finding covers (ms), or null when it has none: from its start to its end, its pauses' included. */
function spanOf(f: FindingJson): [number, number] | null {
  const times = [f.start, f.end, ...(f.gaps ?? []).flatMap((g) => [g.start, g.end])].filter((t): t is string => typeof t === 'string').map(Date.parse).filter(Number.isFinite);
  return times.length === 0 ? null : [Math.min(...times), Math.max(...times)];
}

/** One log cut at `splitAtMs`: the two sides' findings of a time as the cut leaves them. A side's restart rules
 * read every line, so each side may hold the other's restarts and gaps: each such finding goes to the side its time
 * is in, and one whose time holds the split (a pause the split falls in, a restart at it) is cut by it. */
function splitFindings(before: FindingJson[], after: FindingJson[], splitAtMs: number): { before: FindingJson[]; after: FindingJson[]; cut: Array<{ b: FindingJson | null; a: FindingJson | null }> } {
  const out = { before: [] as FindingJson[], after: [] as FindingJson[], cut: [] as Array<{ b: FindingJson | null; a: FindingJson | null }> };
  const timed = new Map<string, { b: FindingJson | null; a: FindingJson | null; span: [number, number] }>();
  const add = (f: FindingJson, side: 'b' | 'a'): void => {
    const span = spanOf(f);
    if (span === null) return void (side === 'b' ? out.before : out.after).push(f);
    const k = `${findingKey(f)}\u0000${span[0]}\u0000${span[1]}`;
    const t = timed.get(k) ?? timed.set(k, { b: null, a: null, span }).get(k)!;
    t[side] ??= f;
  };
  for (const f of before) add(f, 'b');
  for (const f of after) add(f, 'a');
  for (const { b, a, span } of timed.values()) {
    if (span[1] < splitAtMs) out.before.push((b ?? a)!);
    else if (span[0] > splitAtMs) out.after.push((a ?? b)!);
    else out.cut.push({ b, a });
  }
  return out;
}

export function diffReports(before: SideReport, after: SideReport, labels: { before: string; after: string }, sources: { before: string; after: string }, version: string, opts: { splitAtMs?: number } = {}): DiffReport {
  const mb = minutesOf(before);
  const ma = minutesOf(after);
  const groupsB = [...before.listGroups, ...(before.getGroups ?? [])];
  const groupsA = [...after.listGroups, ...(after.getGroups ?? [])];
  // the same client after an upgrade (vector/0.34 → vector/0.35) is the same group: keyed by client name
  const byKey = new Map<string, { b: GroupJson[]; a: GroupJson[] }>();
  for (const g of groupsB) (byKey.get(keyOf(g)) ?? byKey.set(keyOf(g), { b: [], a: [] }).get(keyOf(g))!).b.push(g);
  for (const g of groupsA) (byKey.get(keyOf(g)) ?? byKey.set(keyOf(g), { b: [], a: [] }).get(keyOf(g))!).a.push(g);
  const sum = (gs: GroupJson[]): GroupJson | null =>
    gs.length === 0
      ? null
      : gs.reduce((x, y) => ({
          ...x,
          requests: x.requests + y.requests,
          servedFrom: { etcd: x.servedFrom.etcd + y.servedFrom.etcd, cache: x.servedFrom.cache + y.servedFrom.cache, unknown: x.servedFrom.unknown + y.servedFrom.unknown, rejected: (x.servedFrom.rejected ?? 0) + (y.servedFrom.rejected ?? 0) },
          objectsReadPerRequest: x.objectsReadPerRequest ?? y.objectsReadPerRequest,
          amplification: x.amplification === null || y.amplification === null ? (x.amplification ?? y.amplification) : Math.max(x.amplification, y.amplification),
          latencyMs: x.latencyMs === null || y.latencyMs === null ? (x.latencyMs ?? y.latencyMs) : { p99: Math.max(x.latencyMs.p99, y.latencyMs.p99) },
        }));
  // the what-if of each earlier fix: its finding's predicted etcd reads, for its group (verb, client, user,
  // resource, selector); a finding of an older report has no selector (and a get's resource no API group): keyed
  // without, for whichever of the client's groups of that verb and resource
  const predicted = new Map<string, number>();
  const predictedLegacy = new Map<string, number>();
  for (const f of before.findings) {
    if (f.whatIf == null || f.client === undefined || f.etcdRequests === undefined) continue;
    const saved = f.whatIf.etcdRequests.before - f.whatIf.etcdRequests.after;
    const p = Math.max(0, f.etcdRequests - saved);
    if (f.selector !== undefined) predicted.set(groupKey(verbOfFinding(f), f.client, f.username ?? '', f.resource ?? '', f.selector), p);
    else predictedLegacy.set(groupKey(verbOfFinding(f), f.client, f.username ?? '', f.resource ?? '', ''), p);
  }
  const predictionOf = (g: GroupJson, client: string, res: string): number | undefined => {
    const verb = kindOfVerb(g.verb);
    return predicted.get(groupKey(verb, client, g.username, res, g.selector)) ?? predictedLegacy.get(groupKey(verb, client, g.username, res, '')) ?? (verb === 'get' ? predictedLegacy.get(groupKey(verb, client, g.username, g.resource, '')) : undefined);
  };
  const cutB = cutOf(before);
  const cutA = cutOf(after);
  const groups: GroupChange[] = [];
  for (const { b, a } of byKey.values()) {
    const gb = sum(b);
    const ga = sum(a);
    const g = (gb ?? ga)!;
    const sb = gb === null ? null : sideOf(gb, mb);
    const sa = ga === null ? null : sideOf(ga, ma);
    const client = clientName(g.userAgent, g.username);
    const res = g.apiGroup.length > 0 ? `${g.resource}.${g.apiGroup}` : g.resource;
    const p = gb === null ? undefined : predictionOf(g, client, res);
    // on one side only, where the other side's report was cut below it: not new, not gone, just not there to see
    const kind = kindOfVerb(g.verb);
    const cutAt = sb === null ? cutB[kind] : sa === null ? cutA[kind] : null;
    const missing = sb === null ? 'before' : 'after';
    groups.push({
      client,
      username: g.username,
      verb: g.verb,
      resource: res,
      selector: g.selector,
      change: cutAt !== null ? 'not compared' : changeOf(sb, sa),
      note: cutAt !== null ? `not in the ${missing} report's top ${cutAt} ${kind} groups` : null,
      before: sb,
      after: sa,
      etcdPerMinuteDelta: r2((sa?.etcdPerMinute ?? 0) - (sb?.etcdPerMinute ?? 0)),
      whatIf: p === undefined ? null : { predictedEtcdPerMinute: r2(p / mb), actualEtcdPerMinute: sa?.etcdPerMinute ?? 0 },
    });
  }
  const order: Change[] = ['worse', 'new', 'better', 'gone', 'same', 'not compared'];
  groups.sort((x, y) => order.indexOf(x.change) - order.indexOf(y.change) || Math.abs(y.etcdPerMinuteDelta) - Math.abs(x.etcdPerMinuteDelta) || (x.client < y.client ? -1 : x.client > y.client ? 1 : x.resource < y.resource ? -1 : 1));

  const byFinding = new Map<string, { b: FindingJson[]; a: FindingJson[] }>();
  const slot = (f: FindingJson) => byFinding.get(findingKey(f)) ?? byFinding.set(findingKey(f), { b: [], a: [] }).get(findingKey(f))!;
  const split = opts.splitAtMs === undefined ? null : splitFindings(before.findings, after.findings, opts.splitAtMs);
  for (const f of split?.before ?? before.findings) slot(f).b.push(f);
  for (const f of split?.after ?? after.findings) slot(f).a.push(f);
  const findings: FindingChange[] = [];
  for (const { b, a } of split?.cut ?? []) {
    const f = (a ?? b)!;
    findings.push({
      kind: f.kind,
      subject: subjectOf(f),
      resource: f.client !== undefined ? (f.resource ?? null) : null,
      selector: f.client !== undefined ? (a?.selector ?? b?.selector ?? null) : null,
      change: 'cut by the split',
      figure: null,
      perMinuteBefore: null,
      perMinuteAfter: null,
      whatIf: null,
      worse: false,
      severityBefore: b?.severity ?? null,
      severityAfter: a?.severity ?? null,
      summaryBefore: b?.summary ?? null,
      summaryAfter: a?.summary ?? null,
    });
  }
  for (const { b: bs, a: as } of byFinding.values()) {
    for (const [b, a] of pairsOf(bs, as)) {
      const f = (b ?? a)!;
      // judged by its count a minute of each side's window, not its severity: severities are thresholds on counts,
      // so the longer side of the same rate would look worse (severityOf). A side without the finding: its
      // client's groups there (under the finding's threshold), if that side's report holds them.
      const fig = figureOf(f);
      const rateOf = (x: FindingJson | null, r: SideReport, cut: Cut, minutes: number): number | null => {
        if (x !== null) {
          const n = figureOf(x);
          return n === null || n.figure !== fig!.figure ? null : r2(n.perMinute ? n.n / minutes : n.n);
        }
        if (fig!.figure === 'peak TokenRequests/s') return tokenPeakOf(r);
        if (f.client === undefined || fig!.figure !== 'etcd reads') return null;
        const n = groupEtcdOf(r, f, cut);
        return n === null ? null : r2(n / minutes);
      };
      const rb = fig === null ? null : rateOf(b, before, cutB, mb);
      const ra = fig === null ? null : rateOf(a, after, cutA, ma);
      const byRate = rb !== null && ra !== null ? rateChange(rb, ra) : null;
      const change: FindingChange['change'] = b === null ? 'appeared' : a === null ? 'went away' : byRate === null || byRate === 'same' ? 'still' : byRate;
      // an event that appeared (a restart, a storm: no client's groups to count on the other side) by its severity
      const worse = byRate !== null ? byRate === 'worse' && a !== null : b === null && (fig === null || f.client === undefined) && rank(a!.severity) >= rank('medium');
      findings.push({
        kind: f.kind,
        subject: subjectOf(f),
        resource: f.client !== undefined ? (f.resource ?? null) : null,
        selector: f.client !== undefined ? (a?.selector ?? b?.selector ?? null) : null,
        change,
        figure: fig?.figure ?? null,
        perMinuteBefore: rb,
        perMinuteAfter: ra,
        whatIf: b?.jitter != null && fig?.figure === 'peak TokenRequests/s' ? { proposedJitterSeconds: b.jitter.proposedSeconds, predictedPeakPerSecond: b.jitter.predictedPeakWithProposed, actualPeakPerSecond: ra } : null,
        worse,
        severityBefore: b?.severity ?? null,
        severityAfter: a?.severity ?? null,
        summaryBefore: b?.summary ?? null,
        summaryAfter: a?.summary ?? null,
      });
    }
  }
  const fOrder: Array<FindingChange['change']> = ['worse', 'appeared', 'still', 'cut by the split', 'better', 'went away'];
  const about = (f: FindingChange): string => [f.kind, f.subject, f.resource ?? '', f.selector ?? ''].join('\u0000');
  findings.sort((x, y) => fOrder.indexOf(x.change) - fOrder.indexOf(y.change) || rank(y.severityAfter ?? y.severityBefore) - rank(x.severityAfter ?? x.severityBefore) || (about(x) < about(y) ? -1 : about(x) > about(y) ? 1 : 0));

  // a cut report's groups hold only part of its etcd reads; its totals hold them all
  const etcd = (r: SideReport, cut: Cut): number =>
    (cut.list !== null || cut.get !== null) && r.totals.listFromEtcd !== undefined && r.totals.getFromEtcd !== undefined
      ? r.totals.listFromEtcd + r.totals.getFromEtcd
      : [...r.listGroups, ...(r.getGroups ?? [])].reduce((n, g) => n + g.servedFrom.etcd, 0);
  const side = (r: SideReport, label: string, source: string, minutes: number, cut: Cut): SideSummary => {
    const act = activeOf(r);
    return {
    label,
    source,
    start: r.summary?.window?.start ?? r.totals.firstSeen,
    end: r.summary?.window?.end ?? r.totals.lastSeen,
    minutes: r2(minutes),
    requests: r.totals.requests,
    requestsPerMinute: r2(r.totals.requests / minutes),
    etcdPerMinute: r2(etcd(r, cut) / minutes),
    nodes: r.totals.clusterNodes,
    groupsCompared: r.listGroups.length + (r.getGroups ?? []).length,
    groupsTotal: (r.listGroupsTotal ?? r.listGroups.length) + (r.getGroupsTotal ?? (r.getGroups ?? []).length),
    activeMinutes: act === null ? null : r2((act.active * act.unitSeconds) / 60),
    minutesTouched: act === null ? null : r2((act.touched * act.unitSeconds) / 60),
    kubernetes: typeof r.kubernetes?.version === 'string' ? r.kubernetes.version : null,
    };
  };
  const sb = side(before, labels.before, sources.before, mb, cutB);
  const sa = side(after, labels.after, sources.after, ma, cutA);
  const caveats: string[] = [];
  const unlike = (x: number, y: number): boolean => Math.max(x, y) > UNLIKE_FACTOR * Math.max(1, Math.min(x, y));
  if (unlike(sb.requestsPerMinute, sa.requestsPerMinute)) caveats.push(`the sides' traffic differs: ${sb.requestsPerMinute} requests a minute before, ${sa.requestsPerMinute} after; a quieter hour is not a fix, so compare the clients' own rates below`);
  if (unlike(sb.nodes, sa.nodes)) caveats.push(`the sides saw different clusters' sizes: ${sb.nodes} nodes before, ${sa.nodes} after; per-node clients (DaemonSets, kubelets) scale with them`);
  // an upgrade between the sides changes where the same request is served (1.31 serves consistent lists from the
  // cache, 1.33 paginated ones): a group that moved off etcd with the release alone is not the fix's doing
  if (sb.kubernetes !== null && sa.kubernetes !== null && sb.kubernetes !== sa.kubernetes) caveats.push(`the sides were read by different Kubernetes releases, ${sb.kubernetes} before and ${sa.kubernetes} after: the watch cache serves more with each release, so a group can move off etcd with the upgrade alone (docs/how-it-decides.md)`);
  if (unlike(sb.minutes, sa.minutes)) caveats.push(`the sides cover ${sb.minutes} and ${sa.minutes} minutes: rates are per minute of each side's own window, but a restart or a storm may fall in one window only`);
  for (const s of [sb, sa]) {
    if (s.activeMinutes !== null && s.minutesTouched !== null && s.activeMinutes < s.minutesTouched) caveats.push(`the ${s.label} side had requests in ${s.activeMinutes} of the ${s.minutesTouched} minutes its window touches: its rates are per minute of the whole window, so its quiet minutes lower them`);
  }
  for (const [s, cut] of [[sb, cutB], [sa, cutA]] as const) {
    if (cut.list === null && cut.get === null) continue;
    const kept = [cut.list !== null ? `its top ${cut.list} list groups` : '', cut.get !== null ? `its top ${cut.get} get groups` : ''].filter((x) => x !== '').join(' and ');
    const held = cut.presumed ? ` (it does not say how many get groups it saw, an older audit-scan's report: ${cut.get} are taken as its top)` : ` (${s.groupsCompared} of its ${s.groupsTotal} groups)`;
    const unseen = groups.filter((g) => g.change === 'not compared' && (s === sb ? g.before === null : g.after === null)).length;
    caveats.push(`the ${s.label} report was saved with --top and holds ${kept}${held}: ${unseen} group${unseen === 1 ? '' : 's'} of the other side ${unseen === 1 ? 'is' : 'are'} not in it, so not compared (neither new nor gone); save reports with a larger --top, or diff the logs`);
  }
  const worse = groups.some((g) => g.change === 'worse' || g.change === 'new') || findings.some((f) => f.worse);
  const xb = seriesOf(before);
  const xa = seriesOf(after);
  return {
    diffSchemaVersion: DIFF_SCHEMA_VERSION,
    tool: { name: 'audit-scan', version },
    before: sb,
    after: sa,
    caveats,
    groups,
    findings,
    worse,
    series: { bucketSeconds: Math.max(xb.width, xa.width), bucketSecondsBefore: xb.width, bucketSecondsAfter: xa.width, before: xb.points, after: xa.points },
  };
}
