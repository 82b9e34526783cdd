/*! Several apiservers (issue 23): which apiserver wrote each input (from its path), each one's share of the
 * requests over time, an apiserver left nearly idle after a restart while its clients stay on the others
 * (`apiserver-imbalance`), one that stopped for good, and where the relists after a restart landed. Reads only
 * the per-input series and the per (client, input) counts the scan kept: per group, never per request. */

import type { ScanState } from '../aggregate/scan-state.js';
import { namedApiservers, parseClientInputKey, parseStreamKey } from '../aggregate/scan-state.js';
import { TimeSeries } from '../aggregate/time-series.js';
import { gapThresholdMs, humanSeconds } from '../aggregate/gaps.js';
export type { ImbalanceFinding, RelistLanding } from './findings.js';
import { streamName, type GapInference, type ImbalanceFinding, type RelistLanding, type RestartFinding, type StormFinding } from './findings.js';

/** An apiserver's share counts as far below while it is under this fraction of an even share (1/N). */
export const IMBALANCE_LOW_FRACTION = 0.5;
/** A low share must last this long after the restart to be a finding: clients reconnect in seconds, so minutes
 * of it mean they stayed where they went. */
export const IMBALANCE_MIN_MS = 5 * 60_000;
/** The share is judged per step of this length (or the series' bucket, when coarser). */
export const SHARE_STEP_MS = 60_000;
/** The window before a restart whose share and clients it is compared with. */
export const BEFORE_WINDOW_MS = 10 * 60_000;
/** An apiserver whose events stop this long (at least) before the others' is taken to have stopped. */
export const STOPPED_MIN_MS = 5 * 60_000;

/** The JSON `apiservers`: who served what, or why the logs cannot say. */
export interface ApiserversReport {
  /** true when the inputs name two apiservers or more (of one kind) */
  identified: boolean;
  /** how inputs were mapped to apiservers, or why they could not be */
  reason: string;
  bucketSeconds: number;
  apiservers: Array<{
    name: string;
    inputs: string[];
    requests: number;
    /** of the requests of all apiservers of its kind */
    share: number;
    /** when it restarted (the end of each restart's gap) */
    restarts: string[];
    /** those of `restarts` inferred from a gap alone (its peers kept their rate, its share stayed low after),
     * with no restart sign of its own in the log */
    restartsInferred: string[];
    points: Array<[string, number]>;
  }>;
  /** requests of (client, input) pairs past the cap, not counted per client (where clients went is short by them) */
  clientsNotTracked: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const round2 = (x: number): number => Math.round(x * 100) / 100;
const pct = (x: number | null): string => (x === null ? '?' : `${Math.round(x * 100)}%`);

const COMPRESSED = /\.(gz|zst|bz2|xz)$/i;
const ROTATED = /\.\d+$/;
const EXTENSION = /\.(log|json|jsonl|ndjson|txt|csv)$/i;
// logrotate's and kube-apiserver's (--audit-log-maxbackup: audit-2026-11-30T12-00-00.000.log) date stamps
const STAMP = /[-_.]?\d{4}-?\d\d-?\d\d(?:[T_-]\d\d[-:]?\d\d(?:[-:]?\d\d(?:\.\d+)?)?Z?)?$/;
/** Names that say nothing of which apiserver: the file or directory name of every apiserver's log. */
const GENERIC = new Set(['', 'audit', 'audit-log', 'audit-logs', 'audit_logs', 'log', 'logs', 'kube-apiserver', 'apiserver', 'kubernetes', 'var', 'tmp', 'must-gather', '.', '..']);
/** Apiservers of another kind, whose shares are compared only among themselves (OpenShift's must-gather). */
const OTHER_KINDS = new Set(['openshift-apiserver', 'oauth-apiserver']);

/** A file or directory name without compression, rotation, extension, date stamp and the word "audit". */
function stem(base: string): string {
  let b = base;
  for (let i = 0; i < 5; i++) {
    const before = b;
    b = b.replace(COMPRESSED, '').replace(ROTATED, '').replace(EXTENSION, '').replace(STAMP, '');
    if (b === before) break;
  }
  return b
    .replace(/(^|[-_.])audit(?=$|[-_.])/gi, '$1')
    .replace(/[-_.]{2,}/g, '-')
    .replace(/^[-_.]+|[-_.]+$/g, '');
}

/** The apiserver an input's name says wrote it: a pod in a runtime's file name (/var/log/pods/<ns>_<pod>_<uid>/,
 * /var/log/containers/<pod>_<ns>_<container>-<id>.log), else the file's name without rotation, compression,
 * extension, date and "audit" (apiserver-a-audit-2026-….log.gz → apiserver-a), else its directory's
 * (m1/audit.log → m1). Apiservers of OpenShift's other kinds are prefixed with the kind. The input's name when
 * nothing else is left ((stdin), audit.log). */
export function apiserverOfInput(name: string): string {
  const parts = name.replace(/\\/g, '/').split('/').filter((p) => p.length > 0);
  for (const p of parts) {
    const pod = /^[^_]+_([^_]*apiserver[^_]*)_[0-9a-f-]{8,}$/i.exec(p);
    if (pod !== null) return pod[1]!;
  }
  const base = parts[parts.length - 1] ?? name;
  const container = /^([^_]*apiserver[^_]*)_[^_]+_.+-[0-9a-f]{64}\.log/i.exec(base);
  if (container !== null) return container[1]!;
  const kind = parts.slice(0, -1).find((p) => OTHER_KINDS.has(p));
  const prefix = kind === undefined ? '' : `${kind}/`;
  const own = stem(base);
  if (!GENERIC.has(own.toLowerCase()) && !/^\d+$/.test(own)) return prefix + own;
  for (let i = parts.length - 2; i >= 0; i--) {
    const dir = stem(parts[i]!);
    if (!GENERIC.has(dir.toLowerCase()) && !OTHER_KINDS.has(dir) && !/^\d+$/.test(dir)) return prefix + dir;
  }
  return prefix + name;
}

/** The kind part of an apiserver's name ('' for kube-apiserver). */
const kindOf = (apiserver: string): string => {
  const i = apiserver.indexOf('/');
  return i < 0 ? '' : apiserver.slice(0, i);
};

interface Server {
  name: string;
  inputs: number[];
  series: TimeSeries;
  parts: Part[];
}

/** What one input, or one apiserver a wrapper named inside an input, holds of an apiserver. */
interface Part {
  input: number;
  /** its name in restart findings: the input's, or streamName() */
  label: string;
  /** its keys in TimeState.clientInputs: the input index, streamKeys */
  sources: string[];
  lastMs: number | null;
  spacing: ReturnType<ScanState['time']['inputSpacing']['get']>;
  watchEnds: TimeSeries | undefined;
  lists: TimeSeries | undefined;
}

export interface ApiserverAnalysis {
  report: ApiserversReport;
  findings: Array<ImbalanceFinding | RestartFinding>;
  /** a sentence for the method */
  method: string;
}

/** The apiservers of a scan and what their analysis reads, built once from the scan's series: the restart rule
 * asks it whether a pause was a restart (inferRestart), and analyzeApiservers reads it after. */
export interface ApiserverPool {
  servers: Server[];
  /** apiservers of one kind, whose shares are compared among themselves */
  kinds: Map<string, Server[]>;
  /** the requests of each kind's apiservers together, per bucket */
  totals: Map<string, TimeSeries>;
  /** the server of each part's label (an input's name, or streamName()) */
  byLabel: Map<string, Server>;
  width: number;
  identified: boolean;
  clients: ClientIndex;
  split: number;
  unnamed: number;
  renamed: number;
}

/** Maps inputs (or the apiservers a wrapper names inside one) to apiservers, with their series on one width. */
export function apiserverPool(state: ScanState): ApiserverPool {
  const byName = new Map<string, Server>();
  const add = (name: string, s: TimeSeries, part: Part): void => {
    let srv = byName.get(name);
    if (srv === undefined) byName.set(name, (srv = { name, inputs: [], series: new TimeSeries(s.widthMs, Number.MAX_SAFE_INTEGER), parts: [] }));
    if (!srv.inputs.includes(part.input)) srv.inputs.push(part.input);
    srv.parts.push(part);
    srv.series.merge(s);
  };
  // A record's wrapper may name its apiserver (a CloudWatch log stream, a pod, a host): that name wins over the
  // input's path. An input naming two or more is split into them; its records that name none are left out.
  const t = state.time;
  const named = namedApiservers(t);
  const streamsOf = new Map<number, string[]>();
  for (const k of t.streamRequests?.keys() ?? []) {
    const i = parseStreamKey(k).input;
    streamsOf.set(i, [...(streamsOf.get(i) ?? []), k]);
  }
  let unnamed = 0;
  let split = 0;
  let renamed = 0;
  state.inputs.forEach((inp, idx) => {
    const s = t.inputRequests.get(idx);
    if (s === undefined || s.buckets.size === 0 || inp.duplicateOf !== null) return;
    const keys = named.get(idx) ?? [];
    if (keys.length >= 2) {
      split++;
      let inStreams = 0;
      for (const k of keys) {
        const ks = t.streamRequests.get(k);
        if (ks === undefined || ks.buckets.size === 0) continue;
        const apiserver = parseStreamKey(k).apiserver!;
        inStreams += ks.total();
        const span = t.streamSpan.get(k);
        add(apiserver, ks, { input: idx, label: streamName(inp.name, apiserver), sources: [k], lastMs: span === undefined ? null : span[1], spacing: t.streamSpacing.get(k), watchEnds: t.streamWatchEnds.get(k), lists: t.streamLists.get(k) });
      }
      unnamed += Math.max(0, s.total() - inStreams);
      return;
    }
    if (keys.length === 1) renamed++;
    const name = keys.length === 1 ? parseStreamKey(keys[0]!).apiserver! : apiserverOfInput(inp.name);
    add(name, s, { input: idx, label: inp.name, sources: [String(idx), ...(streamsOf.get(idx) ?? [])], lastMs: inp.lastMs, spacing: t.inputSpacing.get(idx), watchEnds: t.inputWatchEnds.get(idx), lists: t.inputLists.get(idx) });
  });
  const servers = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // One width for all, so that shares compare bucket for bucket.
  const width = Math.max(state.timeOptions.bucketMs, ...servers.map((s) => s.series.widthMs));
  for (const s of servers) s.series.coarsen(width);
  const kinds = new Map<string, Server[]>();
  for (const s of servers) kinds.set(kindOf(s.name), [...(kinds.get(kindOf(s.name)) ?? []), s]);
  const totals = new Map<string, TimeSeries>();
  for (const [k, group] of kinds) {
    const total = new TimeSeries(width, Number.MAX_SAFE_INTEGER);
    for (const s of group) total.merge(s.series);
    totals.set(k, total);
  }
  const byLabel = new Map<string, Server>();
  for (const s of servers) for (const p of s.parts) byLabel.set(p.label, s);
  const identified = [...kinds.values()].some((k) => k.length >= 2);
  return { servers, kinds, totals, byLabel, width, identified, clients: clientIndex(state), split, unnamed, renamed };
}

/** A pause counts as a restart with no sign of its own when the apiserver's peers kept at least this fraction of
 * their rate through it (the cluster did not go quiet, nor did every log lose events)… */
export const PEERS_KEPT_FRACTION = 0.5;

/** Whether the pause [g0, g1] of the part labelled `label` was its apiserver's restart, inferred from the gap: its
 * peers kept their rate meanwhile (PEERS_KEPT_FRACTION), it had its share before, and after the pause its share
 * stayed far below an even one for at least IMBALANCE_MIN_MS (clients that reconnected elsewhere and stayed).
 * A pause whose share comes back (an apiserver drained at its load balancer, then put back) is not one, nor a
 * stream that ends (no pause: nothing after it), nor a pause of every apiserver at once (log loss, a quiet cluster). */
export function inferRestart(pool: ApiserverPool, label: string, g0: number, g1: number): GapInference | null {
  const s = pool.byLabel.get(label);
  if (s === undefined || !pool.identified) return null;
  const group = pool.kinds.get(kindOf(s.name))!;
  if (group.length < 2) return null;
  const total = pool.totals.get(kindOf(s.name))!;
  const [poolStart, poolEnd] = spanOf(total);
  const w = pool.width;
  // requests per second of the others over whole buckets (sumIn counts every bucket the window touches)
  const rate = (a: number, b: number): number => {
    const span = (Math.ceil(b / w) - Math.floor(a / w)) * w;
    let n = 0;
    for (const o of group) if (o !== s) n += o.series.sumIn(a, b);
    return span <= 0 ? 0 : (n * 1000) / span;
  };
  const bFrom = Math.max(poolStart, g0 - BEFORE_WINDOW_MS);
  // the buckets wholly before the pause, so that its own last events do not count as the others'
  const bTo = Math.floor(g0 / w) * w;
  if (bTo <= bFrom) return null;
  const before = rate(bFrom, bTo);
  const during = rate(Math.ceil(g0 / w) * w, Math.floor(g1 / w) * w);
  if (before === 0 || during < PEERS_KEPT_FRACTION * before) return null;
  const allBefore = total.sumIn(bFrom, bTo);
  const shareBefore = allBefore === 0 ? 0 : s.series.sumIn(bFrom, bTo) / allBefore;
  const serving = group.filter((o) => o.series.sumIn(bFrom, bTo) > 0).length;
  if (shareBefore < IMBALANCE_LOW_FRACTION / Math.max(1, serving)) return null;
  const im = imbalanceAfter(s, group, total, g0, g1, poolEnd, poolStart, poolEnd, pool.clients, () => '');
  if (im === null) return null;
  return { peersRateBefore: round2(before), peersRateDuring: round2(during), shareBefore: round2(shareBefore), shareAfter: im.shareAfter, evenShare: im.evenShare, lowSeconds: im.seconds, endedAfterLog: im.endedAfterLog };
}

/** Finds imbalances and stops; adds where relists landed to `storms`. */
export function analyzeApiservers(state: ScanState, restarts: RestartFinding[], storms: StormFinding[], pool: ApiserverPool = apiserverPool(state)): ApiserverAnalysis {
  const { servers, kinds, width, identified, clients, split, unnamed, renamed } = pool;
  const inputName = (i: number): string => state.inputs[i]!.name;
  const serverOfInput = pool.byLabel;

  const findings: Array<ImbalanceFinding | RestartFinding> = [];
  const restartsOf = new Map<Server, Array<[number, number]>>();
  const inferredOf = new Map<Server, number[]>();
  for (const r of restarts) {
    const s = serverOfInput.get(r.input);
    if (r.kind !== 'apiserver-restart' || s === undefined) continue;
    restartsOf.set(s, [...(restartsOf.get(s) ?? []), [Date.parse(r.start), Date.parse(r.end)]]);
    if (r.certainty === 'inferred from gap') inferredOf.set(s, [...(inferredOf.get(s) ?? []), Date.parse(r.end)]);
  }
  if (identified) {
    for (const [kind, group] of kinds) {
      if (group.length < 2) continue;
      const total = pool.totals.get(kind)!;
      const [poolStart, poolEnd] = spanOf(total);
      for (const s of group) {
        const own = (restartsOf.get(s) ?? []).sort((a, b) => a[0] - b[0]);
        own.forEach(([g0, g1], i) => {
          const limit = Math.min(poolEnd, i + 1 < own.length ? own[i + 1]![0] : Infinity);
          const f = imbalanceAfter(s, group, total, g0, g1, limit, poolStart, poolEnd, clients, inputName);
          if (f !== null) findings.push(f);
          for (const st of storms) landRelists(st, s, group, g0, g1, clients);
        });
        const stop = stoppedFinding(state, s, group, total, poolEnd, clients);
        if (stop !== null) {
          findings.push(stop);
          for (const st of storms) landRelists(st, s, group, Date.parse(stop.start), Date.parse(stop.start), clients);
        }
      }
    }
  }
  for (const st of storms) st.afterRestart ??= null;

  const totals = new Map<string, number>();
  for (const [k, group] of kinds) totals.set(k, group.reduce((n, s) => n + s.series.total(), 0));
  const report: ApiserversReport = {
    identified,
    reason: '',
    bucketSeconds: width / 1000,
    apiservers: servers.map((s) => {
      const n = s.series.total();
      return {
        name: s.name,
        inputs: s.inputs.map(inputName),
        requests: n,
        share: round2(n / (totals.get(kindOf(s.name)) || 1)),
        restarts: (restartsOf.get(s) ?? []).map(([, g1]) => iso(g1)).sort(),
        restartsInferred: (inferredOf.get(s) ?? []).map(iso).sort(),
        // only where there is something to compare: a lone apiserver's rate is the timeline's
        points: identified ? s.series.points().map(([t, c]) => [iso(t), c] as [string, number]) : [],
      };
    }),
    clientsNotTracked: state.time.clientInputsOverflow,
  };
  const mapped = servers.map((s) => `${s.name} (${s.inputs.map(inputName).join(', ')})`);
  if (servers.length === 0) report.reason = 'no audit events';
  else if (!identified)
    report.reason = `one apiserver identity (${servers[0]!.name}${servers.length > 1 ? ', …' : ''}): the audit events came from ${servers[0]!.inputs.length === 1 && servers.length === 1 ? 'one input' : 'inputs of one apiserver'}, so the logs do not say which apiserver served which request (a merged log, or a single apiserver); apiserver shares and imbalance need one log per apiserver`;
  else report.reason = `inputs mapped to apiservers by ${split + renamed > 0 ? `the apiserver their records' wrapper names (a CloudWatch log stream, a pod or host field)${split > 0 ? `, ${split} input${split > 1 ? 's' : ''} holding several` : ''}, else ` : ''}their path (a pod's log directory or file, else the file name without rotation, date and "audit", else its directory): ${mapped.join('; ')}${unnamed > 0 ? `; ${unnamed} requests whose record names no apiserver, in inputs whose others do, are left out of the shares` : ''}`;
  const method = servers.length === 0 ? '' : `Apiservers: ${report.reason}${report.clientsNotTracked > 0 ? `; ${report.clientsNotTracked} requests past the cap of (client, apiserver) pairs are not counted per client` : ''}`;
  return { report, findings, method };
}

/** [start, end) in ms of a series' non-empty buckets. */
function spanOf(s: TimeSeries): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const k of s.buckets.keys()) {
    if (k < lo) lo = k;
    if (k > hi) hi = k;
  }
  return Number.isFinite(lo) ? [lo * s.widthMs, (hi + 1) * s.widthMs] : [0, 0];
}

/** client (user agent \0 user) → source (an input index, or a streamKey) → its counts. */
type ClientIndex = Map<string, Map<string, { all: Pick<TimeSeries, 'sumIn'>; lists: Pick<TimeSeries, 'sumIn'> | null }>>;

function clientIndex(state: ScanState): ClientIndex {
  const out: ClientIndex = new Map();
  for (const [k, c] of state.time.clientInputs) {
    const { source, userAgent, username } = parseClientInputKey(k);
    const id = `${userAgent}\u0000${username}`;
    let m = out.get(id);
    if (m === undefined) out.set(id, (m = new Map()));
    m.set(source, c);
  }
  return out;
}

const sumOn = (per: Map<string, { all: Pick<TimeSeries, 'sumIn'>; lists: Pick<TimeSeries, 'sumIn'> | null }>, s: Server, from: number, to: number, lists = false): number => {
  let n = 0;
  for (const p of s.parts) {
    for (const k of p.sources) {
      const c = per.get(k);
      const series = lists ? c?.lists : c?.all;
      if (series) n += series.sumIn(from, to);
    }
  }
  return n;
};

/** The clients `s` served in [from, to). */
function clientsOf(clients: ClientIndex, s: Server, from: number, to: number): string[] {
  const out: string[] = [];
  for (const [id, per] of clients) if (sumOn(per, s, from, to) > 0) out.push(id);
  return out.sort();
}

/** Where `s`'s clients of [g0 − 10 min, g0) sent their requests in [from, to): those that sent most elsewhere. */
function moves(clients: ClientIndex, s: Server, group: Server[], g0: number, from: number, to: number): { before: number; moved: number; movedTo: ImbalanceFinding['movedTo'] } {
  const before = clientsOf(clients, s, g0 - BEFORE_WINDOW_MS, g0);
  const to_ = new Map<string, { clients: number; requests: number }>();
  let moved = 0;
  for (const id of before) {
    const per = clients.get(id)!;
    const mine = sumOn(per, s, from, to);
    let elsewhere = 0;
    const on: Array<[Server, number]> = [];
    for (const o of group) {
      if (o === s) continue;
      const n = sumOn(per, o, from, to);
      if (n > 0) on.push([o, n]);
      elsewhere += n;
    }
    if (elsewhere <= mine) continue;
    moved++;
    for (const [o, n] of on) {
      const m = to_.get(o.name) ?? { clients: 0, requests: 0 };
      m.clients++;
      m.requests += n;
      to_.set(o.name, m);
    }
  }
  const movedTo = [...to_.entries()].map(([apiserver, m]) => ({ apiserver, ...m })).sort((a, b) => b.requests - a.requests || (a.apiserver < b.apiserver ? -1 : 1));
  return { before: before.length, moved, movedTo };
}

const GOAWAY_FIX =
  'Set kube-apiserver --goaway-chance on every apiserver (1.18+; default 0, off; allowed 0 to 0.02; 0.001 is the recommended start): on that fraction of HTTP/2 requests the apiserver sends GOAWAY, the requests in flight on the connection (watches included) finish, and the client opens a new connection through the load balancer, which spreads the clients again within minutes. ' +
  'Without it: a load balancer that balances per connection by least connections or that closes long-lived connections, or clients restarted (or given several connections) after the apiserver is back. Only behind a load balancer with several apiservers.';
const GOAWAY_RISK = 'Clients that do not retry a request on a GOAWAY (HTTP/2 clients other than Go’s net/http, old or custom ones) see it fail; HTTP/1.1 clients get no GOAWAY and are not rebalanced.';

/** A low share of `s` after its restart [g0, g1], lasting at least IMBALANCE_MIN_MS, as a finding. */
function imbalanceAfter(s: Server, group: Server[], total: TimeSeries, g0: number, g1: number, limit: number, poolStart: number, poolEnd: number, clients: ClientIndex, inputName: (i: number) => string): ImbalanceFinding | null {
  const w = total.widthMs;
  const step = Math.max(SHARE_STEP_MS, w);
  const from = Math.ceil(g1 / w) * w;
  const serving = group.filter((o) => o.series.sumIn(from, limit) > 0).length;
  if (serving < 2 || s.series.sumIn(from, limit) === 0) return null; // down, not pinned: the restart finding says it
  const even = 1 / serving;
  let end = from;
  for (let m = from; m + step <= limit; m += step) {
    const all = total.sumIn(m, m + step);
    if (all === 0) {
      end = m + step;
      continue;
    }
    if (s.series.sumIn(m, m + step) / all >= IMBALANCE_LOW_FRACTION * even) break;
    end = m + step;
  }
  // the last part of a step before the log's end is judged with it
  const endedAfterLog = end + step > limit && limit === poolEnd;
  if (endedAfterLog && limit > end && s.series.sumIn(end, limit) / Math.max(1, total.sumIn(end, limit)) < IMBALANCE_LOW_FRACTION * even) end = limit;
  if (end - g1 < IMBALANCE_MIN_MS || s.series.sumIn(from, end) === 0) return null;
  const bFrom = Math.max(poolStart, g0 - BEFORE_WINDOW_MS);
  const share = (x: Server, a: number, b: number): number | null => {
    const t = total.sumIn(a, b);
    return t === 0 ? null : round2(x.series.sumIn(a, b) / t);
  };
  const shareBefore = share(s, bFrom, g0);
  const shareAfter = share(s, from, end)!;
  const others = group.filter((o) => o !== s).map((o) => ({ apiserver: o.name, shareBefore: share(o, bFrom, g0), shareAfter: share(o, from, end)! }));
  const mv = moves(clients, s, group, g0, from, end);
  const seconds = Math.round((end - g1) / 1000);
  const whereTo = mv.movedTo.map((m) => `${m.apiserver} ${m.clients}`).join(', ');
  return {
    kind: 'apiserver-imbalance',
    severity: 'medium',
    summary:
      `${s.name} served ${pct(shareAfter)} of the requests for ${humanSeconds(seconds)} after it restarted at ${iso(g1)} (${pct(shareBefore)} in the 10 minutes before; an even share is ${pct(even)}): ` +
      `${others.map((o) => `${o.apiserver} ${pct(o.shareBefore)} → ${pct(o.shareAfter)}`).join(', ')}${endedAfterLog ? ', still so when the log ends' : ''}. ` +
      `${mv.moved} of the ${mv.before} clients it served before sent most of their requests elsewhere${whereTo ? ` (${whereTo})` : ''}: clients keep their HTTP/2 connection to the apiserver they reconnected to.`,
    fix: `${GOAWAY_FIX} Risk: ${GOAWAY_RISK}`,
    risk: GOAWAY_RISK,
    apiserver: s.name,
    inputs: s.inputs.map(inputName),
    restartAt: iso(g1),
    start: iso(g1),
    end: iso(end),
    seconds,
    endedAfterLog,
    evenShare: round2(even),
    shareBefore,
    shareAfter,
    others,
    clientsBefore: mv.before,
    clientsMoved: mv.moved,
    movedTo: mv.movedTo,
  };
}

/** An apiserver whose events stop at least STOPPED_MIN_MS (and its gap threshold) before the others' do, with
 * its watches ending just before: it stopped and did not come back within the log. A restart finding. */
function stoppedFinding(state: ScanState, s: Server, group: Server[], total: TimeSeries, poolEnd: number, clients: ClientIndex): RestartFinding | null {
  let last = -Infinity;
  let lastPart = s.parts[0]!;
  for (const p of s.parts) {
    const t = p.lastMs;
    if (t !== null && t > last) {
      last = t;
      lastPart = p;
    }
  }
  if (!Number.isFinite(last)) return null;
  const threshold = Math.max(STOPPED_MIN_MS, gapThresholdMs(lastPart.spacing, state.timeOptions.gapMs));
  if (poolEnd - last < threshold || total.sumIn(last + 1, poolEnd) === 0) return null;
  let closed = 0;
  for (const p of s.parts) closed += p.watchEnds?.sumIn(last - 10_000, last + 1) ?? 0;
  if (closed < 5) return null;
  const lists = new TimeSeries(state.timeOptions.bucketMs, Number.MAX_SAFE_INTEGER);
  for (const p of s.parts) if (p.lists !== undefined) lists.merge(p.lists);
  const mv = moves(clients, s, group, last + 1, last + 1, poolEnd);
  const gap = Math.round((poolEnd - last) / 100) / 10;
  const whereTo = mv.movedTo.map((m) => `${m.apiserver} ${m.clients}`).join(', ');
  return {
    kind: 'apiserver-restart',
    severity: 'medium',
    summary:
      `${s.name}: no audit events after ${iso(last)}, for the last ${humanSeconds(gap)} of the log, while the other apiservers went on; ${closed} watches ended in the 10 s before: it stopped (or its audit log did) and did not come back within the log.` +
      (mv.before > 0 ? ` ${mv.moved} of its ${mv.before} clients went on with other apiservers${whereTo ? ` (${whereTo})` : ''}.` : ''),
    fix: 'An apiserver stopped and stayed down: check its pod or node (OOM kill, failed liveness probe, node lost). The others carry its load meanwhile; when it is back, check that its share comes back too (--goaway-chance).',
    input: lastPart.label,
    start: iso(last),
    end: iso(poolEnd),
    gapSeconds: gap,
    gapThresholdSeconds: Math.round(threshold / 100) / 10,
    listsInMinuteBefore: lists.sumIn(last - 60_000, last),
    listsInMinuteAfter: 0,
    watchesClosedBefore: closed,
    rejectedInMinuteAfter: 0,
    rejectedInitializing: 0,
    rejectedClients: [],
    signs: ['watches ended before', 'no events until the log ends'],
    certainty: 'seen',
  };
}

/** On a storm that began while `s` was down or within a minute after ([g0, g1] its gap): the lists of the storm's
 * clients that `s` served in the 10 minutes before, per apiserver, in the storm's minutes. */
function landRelists(st: StormFinding, s: Server, group: Server[], g0: number, g1: number, clients: ClientIndex): void {
  const a = Date.parse(st.start);
  const b = Date.parse(st.end);
  if (a < g0 - 10_000 || a > g1 + 60_000 || st.afterRestart) return;
  // Only the storm's own clients (its top ones; kubelets are one client, system:node:<node>): another resource's
  // lists by the same apiserver's clients are not this storm's.
  const inStorm = new Set(st.clients.map((c) => `${c.userAgent}\u0000${c.username}`));
  const ids = clientsOf(clients, s, g0 - BEFORE_WINDOW_MS, g0).filter((id) => inStorm.has(id.replace(/\u0000system:node:.*$/, '\u0000system:node:<node>')));
  const landedOn: RelistLanding['landedOn'] = [];
  for (const o of group) {
    let lists = 0;
    let n = 0;
    for (const id of ids) {
      const k = sumOn(clients.get(id)!, o, a, b, true);
      lists += k;
      if (k > 0) n++;
    }
    if (lists > 0) landedOn.push({ apiserver: o.name, lists, clients: n });
  }
  if (landedOn.length === 0) return;
  landedOn.sort((x, y) => y.lists - x.lists || (x.apiserver < y.apiserver ? -1 : 1));
  st.afterRestart = { apiserver: s.name, restartStart: iso(g0), landedOn };
  const on = landedOn.filter((l) => l.apiserver !== s.name);
  st.summary += ` The relists of ${s.name}’s clients (it went down at ${iso(g0).slice(11, 19)}) landed on ${on.length > 0 ? on.map((l) => `${l.apiserver} (${l.lists} from ${l.clients} clients)`).join(', ') : 'none of the others'}${on.length < landedOn.length ? `; ${landedOn.find((l) => l.apiserver === s.name)!.lists} on ${s.name} itself` : ''}.`;
}
