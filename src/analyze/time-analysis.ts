/*! Time (issue 5): apiserver restarts from gaps in each input, relist storms per resource, TokenRequest refresh
 * waves with their period and the next one predicted from the kubelet's rule (DOMAIN.md §5), and a timeline of
 * the top groups. Works on the bounded TimeSeries the scan kept; nothing here re-reads the log. */

import { namedApiservers, parseStreamKey, resourceKeyOf, type ScanState } from '../aggregate/scan-state.js';
import { TimeSeries, lowerBound, maxIn, medianWithZeros, sortedBuckets, squeezeSparse } from '../aggregate/time-series.js';
import { parseMarkKey, type ReadGroup } from '../aggregate/read-groups.js';
export type { RestartFinding, StormClient, StormFinding, TokenFinding, Wave } from './findings.js';
export { streamName } from './findings.js';
import { MixTally, servingMix, servingWords } from './serving.js';
import { clientName, streamName, type GapInference, type GroupReport, type RelistLanding, type RestartFinding, type StormClient, type StormFinding, type TokenFinding, type Wave } from './findings.js';
import { ADAPTIVE_GAP_FACTOR, gapThresholdMs, humanSeconds, medianSpacingMs, MIN_GAP_MS } from '../aggregate/gaps.js';

/** The defaults that define a storm and a wave; documented in the README. */
export const STORM_MIN_RATE = 10; // lists per second, at least
export const STORM_BASELINE_FACTOR = 5; // × the resource's median rate over the log
export const STORM_MIN_REQUESTS = 50;
export const STORM_JOIN_MS = 5000; // quiet spells this short do not end a storm
export const WAVE_JOIN_MS = 60_000; // TokenRequests closer than this belong to one wave
export const WAVE_MIN_REQUESTS = 5;
/** kubelet token_manager.go: refresh at 80% of the TTL minus 0–9 s of integer jitter. */
export const KUBELET_MAX_JITTER_S = 10;
/** WarnOnlyBoundTokenExpirationSeconds: 1 h + 7 s, the auto-injected kube-api-access token. */
export const DEFAULT_TOKEN_TTL_S = 3607;

const iso = (ms: number): string => new Date(ms).toISOString();
const round1 = (x: number): number => Math.round(x * 10) / 10;
const pct = (x: number): string => `${Math.round(x * 100)}%`;

export interface Timeline {
  bucketSeconds: number;
  series: Array<{ key: string; points: Array<[string, number]> }>;
}

/** The median of a non-empty list. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Downsamples counts to at most `n` values (max per slot), for a sparkline. */
export function squeeze(xs: number[], n: number): number[] {
  return squeezeSparse(
    xs.map((v, i) => [i, v] as [number, number]),
    0,
    xs.length,
    n,
  );
}

/** Runs of buckets (as [firstIndex, lastIndex]) where `hot(i)` holds, joined across gaps ≤ joinBuckets. */
function runs(indices: number[], joinBuckets: number): Array<[number, number]> {
  // Stryker disable next-line ArrayDeclaration: a stand-in string run covers no requests, so every caller drops it
  const out: Array<[number, number]> = [];
  for (const i of indices) {
    const last = out[out.length - 1];
    if (last !== undefined && i - last[1] <= joinBuckets + 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

/** Restarts: pauses in an input's stream (≥ its own gap threshold, gaps.ts), with the lists after, the watches
 * that ended before and the identity lease; and identity-lease takeovers with no pause around them. */
export function findRestarts(state: ScanState, ends?: Map<number, number[]>, infer?: (label: string, from: number, to: number) => GapInference | null): RestartFinding[] {
  const out: RestartFinding[] = [];
  const flag = state.timeOptions.gapMs;
  // An input whose wrapper names two apiservers or more (one CloudWatch export of several streams) is read per
  // apiserver named, as if each were an input of its own: its gaps are that apiserver's (apiservers.ts).
  const named = new Map([...namedApiservers(state.time)].filter(([, ks]) => ks.length >= 2));
  const views: RestartView[] = [...new Set([...state.time.inputGaps.keys(), ...state.time.inputSigns.keys()])]
    .filter((idx) => !named.has(idx))
    .map((idx) => ({ idx, name: state.inputs[idx]!.name, stream: false, lists: state.time.inputLists.get(idx), watches: state.time.inputWatchEnds.get(idx), spacing: state.time.inputSpacing.get(idx), signs: state.time.inputSigns.get(idx) ?? [], gaps: state.time.inputGaps.get(idx) ?? [] }));
  for (const [idx, ks] of named) {
    for (const k of ks) {
      const spacing = state.time.streamSpacing.get(k);
      if (spacing === undefined) continue;
      views.push({ idx, name: streamName(state.inputs[idx]!.name, parseStreamKey(k).apiserver!), stream: true, lists: state.time.streamLists.get(k), watches: state.time.streamWatchEnds.get(k), spacing, signs: [], gaps: state.time.streamGaps.get(k) ?? [] });
    }
  }
  // Watch-lists count as lists (client-go ≥ 0.35 relists with them); the text says so when the log has any.
  let lw = 'lists';
  // Stryker disable next-line OptionalChaining: hand-built states in unit tests have no groups
  for (const g of state.groups?.groups.values() ?? []) if (g.watchLists > 0) lw = 'lists and watch-lists';
  for (const view of views) {
    const { idx, name, lists, watches, spacing } = view;
    const threshold = gapThresholdMs(spacing, flag);
    // Stryker disable next-line ConditionalExpression: reconcile sets an input's spacing with its gaps and signs, so it is always there
    const median = spacing === undefined ? null : medianSpacingMs(spacing);
    const why =
      flag !== null
        ? `--gap ${round1(flag / 1000)} s`
        : median === null
          ? `${round1(threshold / 1000)} s`
          : `${round1(threshold / 1000)} s: ${ADAPTIVE_GAP_FACTOR}× this input's median spacing of ${Math.round(median)} ms, at least ${MIN_GAP_MS / 1000} s`;
    // the apiserver's own log (no audit event in it): its requests, not "audit events", and its own start line
    const inp = state.inputs[idx];
    const logOnly = inp !== undefined && inp.auditEvents === 0 && inp.apiserverLog !== undefined;
    const events = logOnly ? "requests in the apiserver's log" : 'audit events';
    const signs = view.signs;
    const used = new Set<number>();
    const quiet: Array<[number, number]> = [];
    // Stryker disable next-line ConditionalExpression: reconcile sets an input's spacing with its gaps and signs
    const spaced = spacing === undefined ? 0 : spacing.reduce((a, b) => a + b, 0);
    const push = (from: number, to: number, gap: boolean, alone = false): void => {
      const before = lists?.sumIn(from - 60_000, from) ?? 0;
      const after = lists?.sumIn(to, to + 60_000) ?? 0;
      // the 429s are kept per input: an apiserver named inside one has none of its own
      const rej = view.stream ? { total: 0, init: 0, clients: [], text: '' } : rejectedAfter(state, idx, to, to + 60_000);
      const closed = watches?.sumIn(from - 10_000, from + 1) ?? 0;
      const relist = after >= Math.max(10, 2 * before);
      const leaseSigns: string[] = [];
      signs.forEach(([t, what], i) => {
        if (t >= from - 10_000 && t <= to + 60_000) {
          used.add(i);
          if (!leaseSigns.includes(what)) leaseSigns.push(what);
        }
      });
      const found: string[] = [];
      if (relist) found.push('relist burst after');
      if (closed >= 5) found.push('watches ended before');
      found.push(...leaseSigns);
      // No sign of its own: the pause may still be a restart, told by its peers going on and its share after.
      const inferred = found.length === 0 && gap && infer !== undefined ? infer(name, from, to) : null;
      if (inferred !== null) found.push('inferred from gap');
      const gapS = round1((to - from) / 1000);
      const restart = found.length > 0;
      // A pause with no sign of a restart says only that the stream was quiet: an input too sparse to have a
      // spacing cannot have a gap, and an input's quiet spells are one finding with a list (below).
      if (!restart && gap && !alone) {
        if (spaced >= MIN_SPACED_EVENTS) quiet.push([from, to]);
        return;
      }
      // the identity lease's signs, and the apiserver's own log's start line, each in its words
      const leases = leaseSigns.filter((x) => x.startsWith('identity lease '));
      const others = leaseSigns.filter((x) => !x.startsWith('identity lease '));
      const lease = (leases.length > 0 ? `; the apiserver identity lease was ${leases.map((x) => x.replace('identity lease ', '')).join(' and ')}` : '') + (others.length > 0 ? `; ${others.join('; ')}` : '');
      // the verdicts' continue-page window rests on a restart the log shows, never on one inferred from a gap
      if (restart && inferred === null && ends !== undefined && !view.stream) ends.set(idx, [...(ends.get(idx) ?? []), to]);
      out.push({
        kind: restart ? 'apiserver-restart' : 'audit-gap',
        severity: relist ? 'medium' : 'info',
        summary: gap
          ? `${name}: no ${events} for ${humanSeconds(gapS)} (${iso(from)} – ${iso(to)}; a gap here is ≥ ${why})` +
            (relist ? `, then ${after} ${lw} in the next minute against ${before} in the minute before: clients relisting after an apiserver restart` : restart ? '' : '; no relist burst after it (log loss, or an idle apiserver)') +
            (closed > 0 ? `; ${closed} watches ended in the 10 s before` : '') +
            lease +
            (inferred === null
              ? ''
              : `, while the other apiservers kept their rate (${inferred.peersRateBefore}/s in the 10 minutes before, ${inferred.peersRateDuring}/s during it), and after it its share stayed at ${pct(inferred.shareAfter)} for ${humanSeconds(inferred.lowSeconds)}${inferred.endedAfterLog ? ', to the end of the log' : ''} (${pct(inferred.shareBefore)} before; an even share is ${pct(inferred.evenShare)}): an apiserver restart inferred from the gap, the log holding no sign of the restart itself (no identity lease, watches ending or relist burst; the audit policy may leave them out)`) +
            rej.text +
            '.'
          : `${name}: an apiserver started at ${iso(from)} (${leaseSigns.join(', ')})` +
            (logOnly ? '' : ` with no pause in this input's audit stream (shorter than its gap threshold of ${why})`) +
            (relist ? `; ${after} ${lw} in the next minute against ${before} in the minute before` : '') +
            rej.text +
            '.',
        fix: relist
          ? 'Relists after a restart are served from the watch cache only once it is ready and only with resourceVersion=0 (or NotOlderThan); clients that relist without resourceVersion hit etcd all at once. Stagger restarts across apiservers, and queue heavy listers with APF.'
          : inferred !== null
            ? 'Confirm the restart in the apiserver pod’s events and restart count (kubectl -n kube-system describe pod kube-apiserver-…), then check why (OOM kill, liveness probe, upgrade); to see restarts in the audit log itself, keep the coordination.k8s.io leases in the kube-system namespace at Metadata level in the audit policy.'
            : restart
              ? 'An apiserver restarted; check why (OOM kill, liveness probe, upgrade) in its pod events and logs.'
            : 'Check the audit backend for dropped events (apiserver_audit_error_total, log rotation) if the apiserver did not restart.',
        input: name,
        start: iso(from),
        end: iso(to),
        gapSeconds: gapS,
        gapThresholdSeconds: round1(threshold / 1000),
        listsInMinuteBefore: before,
        listsInMinuteAfter: after,
        watchesClosedBefore: closed,
        rejectedInMinuteAfter: rej.total,
        rejectedInitializing: rej.init,
        rejectedClients: rej.clients,
        signs: found,
        certainty: inferred !== null ? 'inferred from gap' : restart ? 'seen' : null,
        ...(inferred !== null ? { inferred } : {}),
      });
    };
    // Stryker disable next-line ArrayDeclaration: a stand-in string holds no gap ('S' − 't' is no length)
    for (const [from, to] of view.gaps) if (to - from >= threshold) push(from, to, true);
    if (quiet.length === 1) push(quiet[0]![0], quiet[0]![1], true, true);
    else if (quiet.length > 1) out.push(quietFinding(name, quiet, threshold, why));
    // Takeovers no pause explains: one finding per cluster of signs within a minute.
    let last = -Infinity;
    signs.forEach(([t], i) => {
      // Stryker disable next-line EqualityOperator: a sign 60 s after the last finding's start is inside that finding's window, so it is used
      if (used.has(i) || t - last < 60_000) return;
      last = t;
      push(t, t, false);
    });
  }
  return out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.input < b.input ? -1 : 1));
}

/** What findRestarts reads of an input, or of an apiserver named inside one (`stream`). */
interface RestartView {
  idx: number;
  name: string;
  stream: boolean;
  lists: TimeSeries | undefined;
  watches: TimeSeries | undefined;
  spacing: ReturnType<ScanState['time']['inputSpacing']['get']>;
  signs: Array<[number, string]>;
  gaps: Array<[number, number]>;
}

/** Fewer spaced events than this and an input has no spacing to measure a gap by. */
export const MIN_SPACED_EVENTS = 100;

/** An input's quiet spells with no sign of a restart, as one finding: one pause reads as before, several as a list. */
function quietFinding(name: string, gaps: Array<[number, number]>, threshold: number, why: string): RestartFinding {
  const sorted = [...gaps].sort((a, b) => a[0] - b[0]);
  const [from, to] = sorted[0]!;
  const total = sorted.reduce((n, [a, b]) => n + (b - a), 0);
  const listed = sorted.slice(0, 10).map(([a, b]) => `${iso(a)} – ${iso(b)} (${humanSeconds((b - a) / 1000)})`);
  const summary =
    sorted.length === 1
      ? `${name}: no audit events for ${humanSeconds((to - from) / 1000)} (${iso(from)} – ${iso(to)}; a gap here is ≥ ${why}); no relist burst after it (log loss, or an idle apiserver).`
      : `${name}: ${sorted.length} pauses in its audit events, ${humanSeconds(total / 1000)} in all, with no sign of an apiserver restart (a gap here is ≥ ${why}): ${listed.join('; ')}${sorted.length > 10 ? `; … ${sorted.length - 10} more` : ''}.`;
  return {
    kind: 'audit-gap',
    severity: 'info',
    summary,
    fix: 'Check the audit backend for dropped events (apiserver_audit_error_total, log rotation) if the apiserver did not restart.',
    input: name,
    start: iso(from),
    end: iso(to),
    gapSeconds: round1((to - from) / 1000),
    gapThresholdSeconds: round1(threshold / 1000),
    listsInMinuteBefore: 0,
    listsInMinuteAfter: 0,
    watchesClosedBefore: 0,
    rejectedInMinuteAfter: 0,
    rejectedInitializing: 0,
    rejectedClients: [],
    signs: [],
    certainty: null,
    ...(sorted.length > 1 ? { gaps: sorted.map(([a, b]) => ({ start: iso(a), end: iso(b), seconds: round1((b - a) / 1000) })) } : {}),
  };
}

/** The 429s input `idx` answered in [from, to), per client: the evidence of a watch cache (re)initialising. */
function rejectedAfter(state: ScanState, idx: number, from: number, to: number): { total: number; init: number; clients: Array<{ client: string; requests: number }>; text: string } {
  let total = 0;
  let init = 0;
  const by = new Map<string, number>();
  // Stryker disable next-line OptionalChaining: hand-built states in unit tests have no groups
  for (const g of state.groups?.groups.values() ?? []) {
    for (const [k, m] of g.marks) {
      const mk = parseMarkKey(k);
      if (mk.input !== idx || (mk.kind !== '429' && mk.kind !== 'init')) continue;
      const n = m.sumIn(from, to);
      if (n === 0) continue;
      if (mk.kind === 'init') {
        init += n;
        continue;
      }
      total += n;
      const c = clientName(g.userAgent, g.username);
      by.set(c, (by.get(c) ?? 0) + n);
    }
  }
  const clients = [...by.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5).map(([client, requests]) => ({ client, requests }));
  const text =
    total === 0
      ? ''
      : `; ${total} requests answered 429 in the minute after${init > 0 ? ` (${init} "storage is (re)initializing": its watch cache was not ready, so they read nothing)` : ''}, most by ${clients.map((c) => `${c.client} ${c.requests}`).join(', ')}`;
  return { total, init, clients, text };
}

/** etcd share of a group: its etcd-served requests over all (from the report's verdicts). */
type GroupIndex = Map<string, { report: GroupReport; raw: ReadGroup }>;

/** Relist storms: a resource listed far above its usual rate, with who did it and how much went to etcd. */
export function findStorms(state: ScanState, groups: GroupIndex): StormFinding[] {
  const out: StormFinding[] = [];
  const [logStart, logEnd] = spanOf(state.time.all);
  for (const [resource, s] of state.time.listsByResource) {
    // Stryker disable next-line ConditionalExpression: a resource has a series only once it was listed
    if (s.buckets.size === 0) continue;
    const w = s.widthMs;
    const perSec = 1000 / w;
    const pts = sortedBuckets(s);
    const firstIdx = pts[0]![0];
    const lastIdx = pts[pts.length - 1]![0];
    // The usual rate is the median over the whole log, quiet seconds included (counted, not materialised).
    const fromIdx = Math.min(Math.floor(logStart / w), firstIdx);
    // Stryker disable next-line ArithmeticOperator: the log's end is at or after its last list's bucket, so lastIdx ± 1 never wins
    const toIdx = Math.max(Math.ceil(logEnd / w), lastIdx + 1);
    const usual = medianWithZeros(pts, fromIdx, toIdx) * perSec;
    const threshold = Math.max(STORM_MIN_RATE, STORM_BASELINE_FACTOR * usual);
    const hot = pts.filter(([, n]) => n * perSec >= threshold).map(([k]) => k);
    for (const [a, b] of runs(hot, Math.max(0, Math.round(STORM_JOIN_MS / w) - 1))) {
      const fromMs = a * w;
      const toMs = (b + 1) * w;
      const requests = s.sumIn(fromMs, toMs);
      if (requests < STORM_MIN_REQUESTS) continue;
      const peak = round1(maxIn(pts, a, b + 1) * perSec);
      const clients: StormClient[] = [];
      const tally = new MixTally();
      let plain = false;
      let streamed = false;
      for (const { report: g, raw } of groups.values()) {
        if (g.verb !== 'list' || resourceKeyOf(g.apiGroup, g.resource) !== resource) continue;
        const n = raw.series.sumIn(fromMs, toMs);
        if (n === 0) continue;
        if (g.watchLists > 0) streamed = true;
        if (g.watchLists < g.requests) plain = true;
        // over the lists whose serving is known (GKE's logs drop the query, so theirs is not), refusals included
        const mix = servingMix(g.servedFrom);
        clients.push({ client: clientName(g.userAgent, g.username), userAgent: g.userAgent, username: g.username, requests: n, nodes: g.nodes, etcdShare: mix === null ? null : round1(mix.etcd * 100) / 100 });
        tally.add(mix, n);
      }
      clients.sort((x, y) => y.requests - x.requests || (x.userAgent < y.userAgent ? -1 : 1));
      const mix = tally.mix();
      const etcdShare = mix === null ? null : Math.round(mix.etcd * 100) / 100;
      const refusedShare = mix === null ? null : Math.round(mix.refused * 100) / 100;
      const toEtcd = etcdShare !== null && etcdShare >= 0.5;
      const refused = refusedShare !== null && refusedShare >= 0.5;
      const top = clients.slice(0, 3).map((c) => `${c.client}${c.nodes > 1 ? ` (${c.nodes} nodes)` : ''} ${c.requests}`).join(', ');
      const span = round1((toMs - fromMs) / 1000);
      out.push({
        kind: 'list-storm',
        severity: toEtcd ? (peak >= 100 || requests >= 1000 ? 'high' : 'medium') : 'low',
        summary:
          `${requests} ${resource} ${streamed ? (plain ? 'lists and watch-lists' : 'watch-lists') : 'lists'} in ${span} s (${iso(fromMs)} – ${iso(toMs)}), peak ${peak}/s against a usual ${round1(usual)}/s; ` +
          servingWords(mix) +
          (top ? `. Top: ${top}` : '') +
          (fromMs <= logStart ? '. The log begins inside this storm.' : '.'),
        fix: toEtcd
          ? 'The storm reaches etcd: make these clients list with resourceVersion=0 (watch cache) and spread their restarts; queue them with APF meanwhile.'
          : refused
            ? 'Refused before storage: these watch-lists read nothing (the server’s WatchList gate is off: client-go ≥ 0.35 against an older apiserver, as during an upgrade), and each client then sends a plain list, counted as a request of its own with its own verdict. That list is what reaches the cache or etcd. Finish the upgrade, or turn the clients’ watch-list off (KUBE_FEATURE_WatchListClient=false) to save the failed round trip.'
            : 'Served from the watch cache: costs apiserver CPU and memory, not etcd. Spread the clients’ restarts if apiserver CPU suffered.',
        resource,
        start: iso(fromMs),
        end: iso(toMs),
        requests,
        peakPerSecond: peak,
        clients: clients.slice(0, 10),
        etcdShare,
        refusedShare,
        beganBeforeLog: fromMs <= logStart,
        endedAfterLog: toMs >= logEnd,
        sparkline: squeezeSparse(pts, a - 10, b + 11, 60),
      });
    }
  }
  return out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.resource < b.resource ? -1 : 1));
}

/** [start, end) in ms of a series' non-empty buckets, or [0, 0] when empty; a loop, not Math.min(...keys). */
function spanOf(s: TimeSeries): [number, number] {
  // Stryker disable next-line ConditionalExpression,ArrayDeclaration: only findStorms reads it, and only when lists were counted, which the series of every request then holds
  if (s.buckets.size === 0) return [0, 0];
  let lo = Infinity;
  let hi = -Infinity;
  for (const k of s.buckets.keys()) {
    // Stryker disable next-line EqualityOperator: a Map's keys are distinct, so k = lo sets what lo is
    if (k < lo) lo = k;
    // Stryker disable next-line EqualityOperator: as above
    if (k > hi) hi = k;
  }
  return [lo * s.widthMs, (hi + 1) * s.widthMs];
}

/** Peak of the expected per-bucket rate when every request moves earlier by a uniform jitter of `jitterS`. */
export function peakWithJitter(counts: number[], widthMs: number, jitterS: number): number {
  return peakWithJitterSparse(
    // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator: empty buckets add nothing to a window, and a window that starts at one covers part of the window that starts at the next busy bucket
    counts.map((v, i) => [i, v] as [number, number]).filter(([, v]) => v > 0),
    widthMs,
    jitterS,
  );
}

/** peakWithJitter() over sorted non-empty buckets: the best window of k buckets starts at a non-empty one, so a
 * two-pointer sweep over the non-empty buckets finds it in O(n), whatever the span or the jitter. */
export function peakWithJitterSparse(pts: ReadonlyArray<readonly [number, number]>, widthMs: number, jitterS: number): number {
  // Each request spreads over jitterS seconds: as buckets, over k = jitterS·1000/width of them.
  const k = Math.max(1, Math.round((jitterS * 1000) / widthMs));
  let best = 0;
  let sum = 0;
  let j = 0;
  for (let i = 0; i < pts.length; i++) {
    while (j < pts.length && pts[j]![0] < pts[i]![0] + k) sum += pts[j++]![1];
    best = Math.max(best, sum / k);
    sum -= pts[i]![1];
  }
  return (best * 1000) / widthMs;
}

/** TokenRequest waves (kubelet refreshes of projected service-account tokens). */
export function findTokenWaves(state: ScanState): TokenFinding | null {
  const s = state.time.tokens;
  // Stryker disable next-line ConditionalExpression: a shortcut; no buckets make no runs, and no runs return null below
  if (s.buckets.size === 0) return null;
  const w = s.widthMs;
  const perSec = 1000 / w;
  const pts = sortedBuckets(s);
  const keys = pts.map(([k]) => k);
  const waveRuns = runs(keys, Math.max(0, Math.round(WAVE_JOIN_MS / w) - 1)).filter(([a, b]) => s.sumIn(a * w, (b + 1) * w) >= WAVE_MIN_REQUESTS);
  if (waveRuns.length === 0) return null;
  const waves: Wave[] = [];
  const centroids: number[] = [];
  // Stryker disable next-line ArrayDeclaration: set by the first wave, before any read
  let firstWave: Array<[number, number]> = [];
  for (const [a, b] of waveRuns) {
    const inWave = pts.slice(lowerBound(pts, a), lowerBound(pts, b + 1));
    if (waves.length === 0) firstWave = inWave;
    let n = 0;
    let c = 0;
    let peak = 0;
    for (const [k, v] of inWave) {
      n += v;
      c += v * ((k + 0.5) * w);
      // Stryker disable next-line EqualityOperator: an equal value changes nothing
      if (v > peak) peak = v;
    }
    centroids.push(c / n);
    waves.push({ start: iso(a * w), end: iso((b + 1) * w), requests: n, peakPerSecond: round1(peak * perSec) });
  }
  const diffs = centroids.slice(1).map((c, i) => (c - centroids[i]!) / 1000);
  const period = diffs.length > 0 ? round1(median(diffs)) : null;
  let worst = 0;
  for (const d of diffs) worst = Math.max(worst, Math.abs(d - period!));
  const spread = diffs.length > 0 ? round1(worst) : null;
  let ttl = DEFAULT_TOKEN_TTL_S;
  let ttlSource: TokenFinding['ttlSource'] = 'default';
  if (state.time.tokenTtls.size > 0) {
    ttl = [...state.time.tokenTtls.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
    ttlSource = 'requests';
  }
  // Refresh at 80% of the TTL minus 0–9 s of jitter (4.5 s on average).
  const expected = round1(0.8 * ttl - (KUBELET_MAX_JITTER_S - 1) / 2);
  const lastC = centroids[centroids.length - 1]!;
  const nextWaveAt = iso(lastC + expected * 1000);
  // What-if from the first wave, the closest to the pods' start times.
  const proposed = Math.min(0.1 * ttl, 300);
  const cur = peakWithJitterSparse(firstWave, w, KUBELET_MAX_JITTER_S);
  const prop = peakWithJitterSparse(firstWave, w, proposed);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the first wave holds requests, so its peak is above 0
  const reduction = prop > 0 ? round1(cur / prop) : 0;
  // Stryker disable next-line EqualityOperator: a Map's keys are distinct, so no two accounts tie on the name
  const accounts = [...state.time.tokenAccounts.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
  const namespaces = [...new Set(accounts.map(([k]) => k.split('/')[0]!))].sort();
  let biggest = 0;
  for (const wv of waves) biggest = Math.max(biggest, wv.peakPerSecond);
  const sev: TokenFinding['severity'] = waves.length >= 2 && biggest >= 50 ? 'high' : waves.length >= 2 && biggest >= 10 ? 'medium' : waves.length >= 2 ? 'low' : 'info';
  const periodText = period === null ? 'one wave only, so no period yet' : `every ${period} s (±${spread} s; the kubelet rule gives ${expected} s for a ${ttl} s token)`;
  // Stryker disable next-line EqualityOperator: 12 waves listed whole are the first 6 and the last 6
  const listed = waves.length <= 12 ? waves : [...waves.slice(0, 6), ...waves.slice(-6)];
  return {
    kind: 'token-refresh-storm',
    severity: sev,
    summary:
      `${waves.length} TokenRequest wave${waves.length === 1 ? '' : 's'} (${listed.map((x) => `${x.requests} at ${x.start.slice(11, 19)}, peak ${x.peakPerSecond}/s`).join('; ')}${listed.length < waves.length ? `; … ${waves.length - listed.length} more` : ''}), ${periodText}. ` +
      `Next wave expected about ${nextWaveAt}. With the kubelet's ${KUBELET_MAX_JITTER_S} s jitter the first wave's pods refresh at up to ${round1(cur)}/s; a jitter of min(10% TTL, 5 min) = ${round1(proposed)} s would cut that to ${round1(prop)}/s.`,
    fix: 'Spread pod starts (rollout maxSurge, staggered DaemonSet updates); a kubelet with a TTL-proportional refresh jitter would flatten the waves (kubernetes/kubernetes#124646). Longer token TTLs lengthen the period but not the peak.',
    waves,
    periodSeconds: period,
    periodSpreadSeconds: spread,
    ttlSeconds: ttl,
    ttlSource,
    expectedPeriodSeconds: expected,
    nextWaveAt,
    serviceAccounts: accounts.slice(0, 20).map(([serviceAccount, requests]) => ({ serviceAccount, requests })),
    namespaces: namespaces.slice(0, 50),
    jitter: { currentSeconds: KUBELET_MAX_JITTER_S, predictedPeakPerSecond: round1(cur), proposedSeconds: round1(proposed), predictedPeakWithProposed: round1(prop), peakReduction: reduction },
    sparkline: squeezeSparse(pts, keys[0]!, keys[keys.length - 1]! + 1, 60),
  };
}

/** The timeline: the whole control plane, TokenRequests, and the top list groups. */
export function buildTimeline(state: ScanState, top: Array<{ key: string; series: TimeSeries }>): Timeline {
  const widths = [state.time.all.widthMs, ...top.map((t) => t.series.widthMs)];
  const w = Math.max(...widths);
  const norm = (s: TimeSeries): Array<[string, number]> => {
    const c = new TimeSeries(s.widthMs, Number.MAX_SAFE_INTEGER);
    c.merge(s);
    c.coarsen(w);
    return c.points().map(([t, n]) => [iso(t), n]);
  };
  const series = [{ key: 'all requests', points: norm(state.time.all) }];
  if (state.time.tokens.buckets.size > 0) series.push({ key: 'TokenRequests', points: norm(state.time.tokens) });
  for (const t of top) series.push({ key: t.key, points: norm(t.series) });
  return { bucketSeconds: w / 1000, series };
}
