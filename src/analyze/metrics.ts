/*! Metrics dumps → per-resource facts: object counts, and how many objects LISTs fetched from etcd and from the
 * watch cache against how many they returned, between two dumps of one apiserver. This is what stands in for the
 * etcd log on managed control planes. Dumps are small (hundreds of resources), so this works on whole samples. */

import type { MetricSample } from '../decode/metrics.js';
import { describeEtcdKey } from '../model/etcd-key.js';
import { resourceKeyOf } from '../aggregate/scan-state.js';

/** One metrics dump: a file, or one Prometheus API result. */
export interface MetricsDump {
  input: string;
  /** from an `instance` label; null means "the input's own apiserver" */
  apiserver: string | null;
  /** when the dump was taken; a sample's own timestamp wins over it */
  timeMs: number | null;
  samples: MetricSample[];
}

/** The latest object count of a resource. */
export interface ObjectCount {
  count: number;
  timeMs: number | null;
  /** the metric it came from: apiserver_resource_objects, apiserver_storage_objects or etcd_object_counts */
  metric: string;
  /** how many apiservers reported one (the count is the largest of their latest) */
  apiservers: number;
}

/** What LISTs of one resource cost between dumps, summed over apiservers and over index and other labels. */
export interface ListDelta {
  lists: number;
  fetched: number;
  /** null when no dump has the evaluated counter (the watch cache has none) */
  evaluated: number | null;
  returned: number;
  fromMs: number;
  toMs: number;
  /** apiservers with two or more dumps at different times, whose deltas are summed */
  apiservers: number;
  /** intervals in which some counter went down (an apiserver restart); their later value is taken as the delta */
  resets: number;
  fetchedPerList: number | null;
  returnedPerList: number | null;
  /** fetched / returned; null when nothing was returned */
  amplification: number | null;
}

/** Everything the dumps say about one resource. */
export interface ResourceMetrics {
  /** join key: resourceKeyOf(apiGroup, resource) */
  key: string;
  objects: ObjectCount | null;
  storageLists: ListDelta | null;
  /** why storageLists is null; null when it is not */
  storageListsReason: string | null;
  cacheLists: ListDelta | null;
  cacheListsReason: string | null;
  /** apiserver_resource_size_estimate_bytes (1.34+): latest, largest over apiservers */
  sizeEstimateBytes: number | null;
}

/** What a set of metrics dumps says. */
export interface MetricsFacts {
  resources: Map<string, ResourceMetrics>;
  /** git_version of kubernetes_build_info in the latest dump that has it */
  kubernetesVersion: string | null;
  /** every apiserver's latest gitVersion, sorted: more than one during an upgrade */
  kubernetesVersions: string[];
  /** kubernetes_feature_enabled by name, as the latest sample says */
  featureGates: Map<string, boolean>;
  /** apiserver_storage_size_bytes: the etcd database size (not per resource), summed over storage clusters */
  storageSizeBytes: number | null;
  /** the apiservers seen: instance labels, else dump.apiserver, else the input's name */
  apiservers: string[];
}

type ListKind = 'storage' | 'cache';
type Counter = 'lists' | 'fetched' | 'evaluated' | 'returned';

// counter metric → which list path and which counter it is
const COUNTERS: ReadonlyMap<string, { kind: ListKind; counter: Counter }> = new Map([
  ['apiserver_storage_list_total', { kind: 'storage', counter: 'lists' }],
  ['apiserver_storage_list_requests_total', { kind: 'storage', counter: 'lists' }],
  ['apiserver_storage_list_fetched_objects_total', { kind: 'storage', counter: 'fetched' }],
  ['apiserver_storage_list_evaluated_objects_total', { kind: 'storage', counter: 'evaluated' }],
  ['apiserver_storage_list_returned_objects_total', { kind: 'storage', counter: 'returned' }],
  ['apiserver_cache_list_total', { kind: 'cache', counter: 'lists' }],
  ['apiserver_cache_list_fetched_objects_total', { kind: 'cache', counter: 'fetched' }],
  ['apiserver_cache_list_returned_objects_total', { kind: 'cache', counter: 'returned' }],
] as const);

const LIST_METRICS: Record<ListKind, readonly string[]> = {
  storage: ['apiserver_storage_list_total', 'apiserver_storage_list_requests_total'],
  cache: ['apiserver_cache_list_total'],
};

const OBJECT_METRICS: readonly string[] = ['apiserver_resource_objects', 'apiserver_storage_objects', 'etcd_object_counts'];

/** Labels → the join key, in each form versions use; null when the sample names no resource.
 * - `group="apps",resource="deployments"` (1.34+)
 * - `resource="deployments.apps"`: GroupResource.String(), resource before the first dot (1.21–1.33)
 * - `resource_prefix="/deployments"`: the watch cache's storage prefix under --etcd-prefix (before 1.34), read
 *   with the etcd key table, so "/services/specs" is services and "/example.com/widgets" a custom resource. */
export function resourceKeyOfLabels(labels: Record<string, string>): string | null {
  const r = labels.resource;
  if (r !== undefined && r.length > 0) {
    if (labels.group !== undefined) return resourceKeyOf(labels.group, r);
    const dot = r.indexOf('.');
    return dot < 0 ? resourceKeyOf('', r) : resourceKeyOf(r.slice(dot + 1), r.slice(0, dot));
  }
  const p = labels.resource_prefix;
  if (p === undefined) return null;
  const k = describeEtcdKey(`/registry/${p.replace(/^\/+|\/+$/g, '')}`, null, '/registry');
  if (k.scope === 'outside' || k.resource.length === 0) return null;
  // describeEtcdKey keeps built-in groups stored as <group>/<plural> (CRDs, APIServices) in the key; the join key does not
  return k.apiGroup === null ? k.resourceKey : resourceKeyOf(k.apiGroup, k.resource);
}

/** A value at a time, with the order it was read in to break ties between equal or unknown times. */
interface Point {
  t: number | null;
  seq: number;
  v: number;
}

function later(a: Point, b: Point): boolean {
  const at = a.t ?? -Infinity;
  const bt = b.t ?? -Infinity;
  return at !== bt ? at > bt : a.seq > b.seq;
}

/** Counters of one apiserver: per metric the times it was reported at, and per series its values. */
interface SourceCounters {
  times: Map<string, Set<number>>;
  series: Map<string, { metric: string; kind: ListKind; viaStorageLabel: boolean; counter: Counter; key: string; values: Map<number, number> }>;
  /** list paths with samples whose time is unknown: they cannot be placed between two dumps */
  untimed: Set<ListKind>;
}

/** Per-source delta sums of one resource and list path. */
interface DeltaAcc {
  lists: number;
  fetched: number;
  evaluated: number;
  hasEvaluated: boolean;
  returned: number;
  resetsAt: Set<number>;
}

/** What the dumps say, per resource; see MetricsFacts. */
export function metricsFacts(dumps: MetricsDump[]): MetricsFacts {
  const sources = new Map<string, SourceCounters>();
  // gauges: source → key → metric → latest point
  const objects = new Map<string, Map<string, Map<string, Point>>>();
  const sizes = new Map<string, Map<string, Point>>();
  const dbSizes = new Map<string, Map<string, Point>>(); // source → storage_cluster_id → point
  const versions = new Map<string, Point & { version: string }>();
  const gates = new Map<string, Point>();
  const keys = new Set<string>();
  let seq = 0;

  for (const d of dumps) {
    for (const s of d.samples) {
      seq++;
      const src = s.labels.instance ?? d.apiserver ?? d.input;
      const t = s.timestampMs ?? d.timeMs;
      const p: Point = { t, seq, v: s.value };
      const c = COUNTERS.get(s.name);
      if (c !== undefined) {
        if (!Number.isFinite(s.value)) continue;
        const key = resourceKeyOfLabels(s.labels);
        if (key === null) continue;
        keys.add(key);
        // The storage-label rework also counts watch-cache LISTs in apiserver_storage_list_* (storage="watchcache"),
        // next to apiserver_cache_list_*: only storage="etcd" (or no label) is etcd.
        const viaStorageLabel = c.kind === 'storage' && s.labels.storage === 'watchcache';
        const kind: ListKind = viaStorageLabel ? 'cache' : c.kind;
        const sc = sourceOf(sources, src);
        if (t === null) {
          sc.untimed.add(kind);
          continue;
        }
        let ts = sc.times.get(s.name);
        if (ts === undefined) sc.times.set(s.name, (ts = new Set()));
        ts.add(t);
        const id = `${s.name}\u0000${kind}\u0000${seriesId(s.labels)}`;
        let ser = sc.series.get(id);
        if (ser === undefined) sc.series.set(id, (ser = { metric: s.name, kind, viaStorageLabel, counter: c.counter, key, values: new Map() }));
        ser.values.set(t, s.value);
        continue;
      }
      // gauges: -1 means "unknown" (a failed count), and NaN says nothing either
      const known = Number.isFinite(s.value) && s.value >= 0;
      if (OBJECT_METRICS.includes(s.name) || s.name === 'apiserver_resource_size_estimate_bytes') {
        if (!known) continue;
        const key = resourceKeyOfLabels(s.labels);
        if (key === null) continue;
        keys.add(key);
        if (s.name === 'apiserver_resource_size_estimate_bytes') {
          keepLatest(inner(sizes, src), key, p);
        } else {
          keepLatest(inner(inner(objects, src), key), s.name, p);
        }
      } else if (s.name === 'apiserver_storage_size_bytes') {
        if (known) keepLatest(inner(dbSizes, src), s.labels.storage_cluster_id ?? s.labels.cluster ?? '', p);
      } else if (s.name === 'kubernetes_build_info') {
        // component-base version.go: labels major, minor, git_version, git_commit, … (gitVersion accepted too)
        const v = s.labels.git_version ?? s.labels.gitVersion;
        const prev = versions.get(src);
        if (v !== undefined && v.length > 0 && (prev === undefined || later(p, prev))) versions.set(src, { ...p, version: v });
      } else if (s.name === 'kubernetes_feature_enabled') {
        const n = s.labels.name;
        if (n !== undefined && Number.isFinite(s.value)) keepLatest(gates, n, p);
      }
    }
  }

  const resources = new Map<string, ResourceMetrics>();
  const storage = listDeltas(sources, 'storage');
  const cache = listDeltas(sources, 'cache');
  for (const key of [...keys].sort()) {
    const st = storage.byKey(key);
    const ca = cache.byKey(key);
    resources.set(key, {
      key,
      objects: objectCount(objects, key),
      storageLists: st,
      storageListsReason: st === null ? storage.reason : null,
      cacheLists: ca,
      cacheListsReason: ca === null ? cache.reason : null,
      sizeEstimateBytes: maxLatest(sizes, key),
    });
  }

  let latestVersion: (Point & { version: string }) | null = null;
  for (const v of versions.values()) if (latestVersion === null || later(v, latestVersion)) latestVersion = v;
  let storageSizeBytes: number | null = null;
  const clusters = new Set<string>();
  for (const m of dbSizes.values()) for (const id of m.keys()) clusters.add(id);
  for (const id of clusters) {
    // every apiserver measures the same etcd: the largest latest value, then the sum over storage clusters
    const v = maxLatest(dbSizes, id);
    if (v !== null) storageSizeBytes = (storageSizeBytes ?? 0) + v;
  }
  const featureGates = new Map<string, boolean>();
  for (const [n, p] of [...gates].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) featureGates.set(n, p.v > 0);
  const apiservers = new Set<string>([...sources.keys(), ...objects.keys(), ...sizes.keys(), ...dbSizes.keys(), ...versions.keys()]);
  return {
    resources,
    kubernetesVersion: latestVersion?.version ?? null,
    kubernetesVersions: [...new Set([...versions.values()].map((v) => v.version))].sort(),
    featureGates,
    storageSizeBytes,
    apiservers: [...apiservers].sort(),
  };
}

/** Label set without `instance` (the apiserver, kept apart as the source), in a stable order. */
function seriesId(labels: Record<string, string>): string {
  return Object.keys(labels)
    .filter((k) => k !== 'instance')
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join('\u0001');
}

function sourceOf(m: Map<string, SourceCounters>, src: string): SourceCounters {
  let s = m.get(src);
  if (s === undefined) m.set(src, (s = { times: new Map(), series: new Map(), untimed: new Set() }));
  return s;
}

function inner<V>(m: Map<string, Map<string, V>>, k: string): Map<string, V> {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = new Map()));
  return v;
}

function keepLatest(m: Map<string, Point>, k: string, p: Point): void {
  const prev = m.get(k);
  if (prev === undefined || later(p, prev)) m.set(k, p);
}

/** The largest of each source's latest value for `k`. */
function maxLatest(bySource: Map<string, Map<string, Point>>, k: string): number | null {
  let best: number | null = null;
  for (const m of bySource.values()) {
    const p = m.get(k);
    if (p !== undefined && (best === null || p.v > best)) best = p.v;
  }
  return best;
}

/** Per source, the best object metric it reported (1.34's resource_objects first); then the largest. */
function objectCount(bySource: Map<string, Map<string, Map<string, Point>>>, key: string): ObjectCount | null {
  let best: ObjectCount | null = null;
  let n = 0;
  for (const m of bySource.values()) {
    const byMetric = m.get(key);
    if (byMetric === undefined) continue;
    const metric = OBJECT_METRICS.find((x) => byMetric.has(x))!;
    const p = byMetric.get(metric)!;
    n++;
    if (best === null || p.v > best.count) best = { count: p.v, timeMs: p.t, metric, apiservers: 0 };
  }
  if (best !== null) best.apiservers = n;
  return best;
}

/** Sums counter deltas of one list path: per apiserver between its first and last dump, then over apiservers. */
function listDeltas(sources: Map<string, SourceCounters>, kind: ListKind): { byKey: (key: string) => ListDelta | null; reason: string } {
  // An apiserver counts when its LIST counter was reported at two or more times. Counters appear at their first
  // increment, so within those times a series missing from a dump was 0 then (not created yet, or gone after a restart).
  const eligible: { src: SourceCounters; times: Map<string, number[]>; viaStorageLabel: boolean; fromMs: number; toMs: number }[] = [];
  let seen = false;
  let untimed = false;
  for (const sc of sources.values()) {
    const own = [...sc.series.values()].filter((s) => s.kind === kind);
    seen ||= own.length > 0;
    untimed ||= sc.untimed.has(kind);
    let listTimes = longestTimes(sc, LIST_METRICS[kind]);
    // Watch-cache LISTs counted only under apiserver_storage_list_*{storage="watchcache"} (no cache metrics kept).
    const viaStorageLabel = kind === 'cache' && own.length > 0 && own.every((s) => s.viaStorageLabel);
    if (viaStorageLabel) listTimes = longestTimes(sc, LIST_METRICS.storage);
    if (listTimes.length < 2) continue;
    const times = new Map<string, number[]>();
    for (const [m, ts] of sc.times) times.set(m, [...ts].sort((a, b) => a - b));
    eligible.push({ src: sc, times, viaStorageLabel, fromMs: listTimes[0]!, toMs: listTimes[listTimes.length - 1]! });
  }
  const family = kind === 'storage' ? 'apiserver_storage_list_*' : 'apiserver_cache_list_*';
  const reason =
    eligible.length > 0
      ? ''
      : seen
        ? 'no apiserver has two dumps at different times: counters give a rate only between two'
        : untimed
          ? `the dumps with ${family} samples have no time`
          : `no ${family} samples${kind === 'cache' ? ' (watch cache off, or not scraped)' : ''}`;

  // per key, per eligible source: the summed deltas
  const acc = new Map<string, Map<number, DeltaAcc>>();
  eligible.forEach((e, i) => {
    for (const ser of e.src.series.values()) {
      // the storage-label rework counts watch-cache LISTs twice: keep one copy
      if (ser.kind !== kind || ser.viaStorageLabel !== e.viaStorageLabel) continue;
      // the cacher records evaluated as a constant 0 there: no evaluation was counted
      if (ser.viaStorageLabel && ser.counter === 'evaluated') continue;
      const ts = e.times.get(ser.metric)!;
      if (ts.length < 2) continue;
      let a = acc.get(ser.key)?.get(i);
      if (a === undefined) {
        a = { lists: 0, fetched: 0, evaluated: 0, hasEvaluated: false, returned: 0, resetsAt: new Set() };
        let m = acc.get(ser.key);
        if (m === undefined) acc.set(ser.key, (m = new Map()));
        m.set(i, a);
      }
      let prev = ser.values.get(ts[0]!) ?? 0;
      let delta = 0;
      for (let j = 1; j < ts.length; j++) {
        const v = ser.values.get(ts[j]!) ?? 0;
        if (v >= prev) {
          delta += v - prev;
        } else {
          // a counter that went down restarted from 0: all of its later value is new
          delta += v;
          a.resetsAt.add(ts[j]!);
        }
        prev = v;
      }
      a[ser.counter] += delta;
      if (ser.counter === 'evaluated') a.hasEvaluated = true;
    }
  });

  const byKey = (key: string): ListDelta | null => {
    if (eligible.length === 0) return null;
    const perSource = acc.get(key);
    const d = { lists: 0, fetched: 0, evaluated: 0, hasEvaluated: false, returned: 0, resets: 0, fromMs: Infinity, toMs: -Infinity };
    eligible.forEach((e, i) => {
      // an eligible apiserver with no series for this resource served none of its LISTs this way: zeros
      const a = perSource?.get(i);
      if (a !== undefined) {
        d.lists += a.lists;
        d.fetched += a.fetched;
        d.evaluated += a.evaluated;
        d.hasEvaluated ||= a.hasEvaluated;
        d.returned += a.returned;
        d.resets += a.resetsAt.size;
      }
      d.fromMs = Math.min(d.fromMs, e.fromMs);
      d.toMs = Math.max(d.toMs, e.toMs);
    });
    return {
      lists: d.lists,
      fetched: d.fetched,
      evaluated: d.hasEvaluated ? d.evaluated : null,
      returned: d.returned,
      fromMs: d.fromMs,
      toMs: d.toMs,
      apiservers: eligible.length,
      resets: d.resets,
      fetchedPerList: d.lists > 0 ? d.fetched / d.lists : null,
      returnedPerList: d.lists > 0 ? d.returned / d.lists : null,
      amplification: d.returned > 0 ? d.fetched / d.returned : null,
    };
  };
  return { byKey, reason };
}

/** The sorted times of whichever of `metrics` was reported most often. */
function longestTimes(sc: SourceCounters, metrics: readonly string[]): number[] {
  let best: number[] = [];
  for (const m of metrics) {
    const ts = sc.times.get(m);
    if (ts !== undefined && ts.size > best.length) best = [...ts].sort((a, b) => a - b);
  }
  return best;
}
