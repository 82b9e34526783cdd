/*! Where the apiserver serves a read from: the watch cache or etcd. Encodes DOMAIN.md §1
 * (cacher.go shouldDelegateList ≤1.32, delegator.go ≥1.33, get and watch paths) per version band. */

import type { KubeVersion } from '../model/kube-version.js';
import type { ListQuery } from '../decode/request-uri.js';
import type { SelectorInfo } from '../model/selector.js';
import { NAMESPACED } from '../model/etcd-key.js';

/** 'none': refused before storage (a watch-list while the server's WatchList gate is off): read nothing. */
export type ServedFrom = 'etcd' | 'cache' | 'none';

/** The verdict for one read, with the reason a reader can check against the source. */
export interface ServingVerdict {
  servedFrom: ServedFrom;
  reason: string;
  /** What part of the resource's etcd keyspace an etcd-served read covers. */
  etcdScope: 'all' | 'namespace' | 'single' | null;
}

/** Cluster facts the classifier needs; resolved once in cli/config.ts. */
export interface ServingOptions {
  version: KubeVersion;
  /** etcd ≥3.4.31 / ≥3.5.13 supports RequestWatchProgress; null = unknown (assumed yes on 1.31+). */
  etcdSupportsProgressNotify: boolean | null;
  /** ConsistentListFromCache forced on or off; null = the release default. */
  consistentListFromCache: boolean | null;
  /** Resources whose watch cache is disabled (always includes events). */
  watchCacheDisabled: ReadonlySet<string>;
}

function consistentListFromCacheOn(o: ServingOptions): boolean {
  if (o.consistentListFromCache !== null) return o.consistentListFromCache;
  // alpha (off) 1.28–1.30, beta (on) 1.31–1.33, GA 1.34+ (kube_features.go)
  return o.version.minor >= 31;
}

/** The server's WatchList gate by release (kube_features.go): alpha off 1.27–1.31, beta on 1.32, off again in 1.33
 * ("the json and proto streaming encoders appear to work better"), beta on from 1.34. */
export function watchListGateOn(v: KubeVersion): boolean {
  return v.minor === 32 || v.minor >= 34;
}

/** A watch-list (sendInitialEvents=true), whether the group holds it as a watch or, as the scan does, as a list. */
function classifyWatchList(rv: string, o: ServingOptions, consistentFromCache: boolean): ServingVerdict {
  if (!watchListGateOn(o.version)) {
    // ValidateListOptions: sendInitialEvents is forbidden unless the gate is on → 422; client-go's reflector then
    // falls back to a plain list, which the log shows as its own request.
    return { servedFrom: 'none', reason: `watch-list refused (WatchList gate off in 1.${o.version.minor}; the client falls back to a list)`, etcdScope: null };
  }
  if (rv !== '') return cache(rv === '0' ? 'watch-list from the watch cache (resourceVersion=0)' : 'watch-list from the watch cache (resourceVersion=N)');
  // rv "": the cacher asks etcd for the current revision (a limit:1 range) and waits until the cache has it;
  // that wait needs etcd's progress notifications, as a consistent list does.
  if (consistentFromCache) return cache('watch-list from the watch cache (+1 etcd limit:1 range for the current revision)');
  // the cacher cannot wait for a fresh revision: the stream ends with an error and client-go falls back to a list
  return { servedFrom: 'none', reason: 'watch-list without resourceVersion fails (etcd lacks progress notify; the client falls back to a list)', etcdScope: null };
}

// 1.27.0–1.27.12, 1.28.0–1.28.8, 1.29.0–1.29.3 delegate watches without resourceVersion to etcd.
function watchWithoutRvGoesToEtcd(v: KubeVersion): boolean {
  const p = v.patch ?? 9999;
  if (v.minor === 27) return p <= 12;
  if (v.minor === 28) return p <= 8;
  if (v.minor === 29) return p <= 3;
  return false;
}

/** What part of a resource's keys an etcd read of this scope and selector covers. */
export function etcdScopeOf(resource: string, namespace: string, sel: Pick<SelectorInfo, 'singleName' | 'singleNamespace'>): ServingVerdict['etcdScope'] {
  const inNamespace = namespace.length > 0 || sel.singleNamespace !== null;
  // ListPredicate reads one key for metadata.name= only when KeyFunc can build the key: a namespaced resource's
  // needs the namespace (the URL's or metadata.namespace=). Without it "the optimization is skipped" and the whole
  // prefix is read (registry/store.go). A custom resource's scope is not known here: one key, as for nodes.
  if (sel.singleName !== null && (inNamespace || !NAMESPACED.has(resource))) return 'single';
  return inNamespace ? 'namespace' : 'all';
}

const etcd = (reason: string, scope: ServingVerdict['etcdScope']): ServingVerdict => ({ servedFrom: 'etcd', reason, etcdScope: scope });
const cache = (reason: string): ServingVerdict => ({ servedFrom: 'cache', reason, etcdScope: null });

/** Classifies a get, list or watch. Returns null for other verbs. */
export function classifyRead(
  verb: string,
  resource: string,
  namespace: string,
  query: ListQuery,
  sel: SelectorInfo,
  o: ServingOptions,
): ServingVerdict | null {
  if (verb !== 'list' && verb !== 'get' && verb !== 'watch') return null;
  const rv = query.resourceVersion ?? '';
  const rvm = query.resourceVersionMatch ?? '';
  const scope = verb === 'get' ? 'single' : etcdScopeOf(resource, namespace, sel);
  if (o.watchCacheDisabled.has(resource)) {
    return etcd(resource === 'events' ? 'events: watch cache off by default' : 'watch cache disabled for resource', scope);
  }
  if (verb === 'get') {
    // Cacher.Get: "If resourceVersion is not specified, serve it from underlying storage".
    return rv === '' ? etcd('get without resourceVersion', 'single') : cache('get with resourceVersion');
  }
  const consistentFromCache =
    consistentListFromCacheOn(o) && (o.version.minor <= 30 || o.etcdSupportsProgressNotify !== false);
  if (query.sendInitialEvents && (verb === 'watch' || verb === 'list')) return classifyWatchList(rv, o, consistentFromCache);
  if (verb === 'watch') {
    if (rv === '' && watchWithoutRvGoesToEtcd(o.version)) return etcd('watch without resourceVersion (this patch release reads etcd)', scope);
    return cache(rv === '' ? 'watch without resourceVersion, from cache' : 'watch from resourceVersion');
  }
  const minor = o.version.minor;
  if (minor <= 30) {
    // cacher.go shouldDelegateList, 1.27–1.30
    if (query.continueToken) return etcd('continue token', scope);
    if (rvm !== '' && rvm !== 'NotOlderThan') return etcd(`resourceVersionMatch=${rvm}`, scope);
    if (query.limit > 0 && rv !== '0' && rv !== '') return etcd('limit with resourceVersion≠0 (exact page)', scope);
    if (rv === '') {
      if (minor >= 28 && consistentFromCache && query.limit === 0) return cache('no resourceVersion, consistent read from cache (gate on)');
      return etcd(query.limit > 0 ? 'no resourceVersion (paginated)' : 'no resourceVersion', scope);
    }
    if (rv === '0') return cache('resourceVersion=0');
    return cache(rvm === 'NotOlderThan' ? 'resourceVersionMatch=NotOlderThan' : 'resourceVersion=N, no limit');
  }
  // 1.31–1.32 cacher.go; 1.33+ delegator.go (same result by default); 1.34+ snapshots.
  const snapshots = minor >= 34;
  if (rvm === 'Exact') {
    return snapshots ? cache('resourceVersionMatch=Exact from cache snapshot (1.34+, if still in history)') : etcd('resourceVersionMatch=Exact', scope);
  }
  if (rvm !== '' && rvm !== 'NotOlderThan') return etcd(`unsupported resourceVersionMatch=${rvm}`, scope);
  if (rvm === 'NotOlderThan') return cache('resourceVersionMatch=NotOlderThan');
  if (query.continueToken) {
    return snapshots ? cache('continue token from cache snapshot (1.34+, if still in history)') : etcd('continue token', scope);
  }
  if (query.limit > 0 && rv !== '' && rv !== '0') {
    return snapshots ? cache('limit with resourceVersion=N from cache snapshot (1.34+)') : etcd('limit with resourceVersion≠0 (exact page)', scope);
  }
  if (rv === '') {
    if (consistentFromCache) return cache('no resourceVersion, consistent read from cache (1.31+)');
    return etcd(
      o.etcdSupportsProgressNotify === false ? 'no resourceVersion (etcd lacks progress notify)' : 'no resourceVersion (ConsistentListFromCache off)',
      scope,
    );
  }
  return cache(rv === '0' ? 'resourceVersion=0' : 'resourceVersion=N');
}

/** A group's requests by where they were served (GroupReport.servedFrom). */
export interface ServedCounts {
  etcd: number;
  cache: number;
  /** refused before storage: a watch-list while the WatchList gate is off, a 429 while the cache initialised
   * (absent in a report saved before it was counted: none) */
  rejected?: number;
  /** the query string was not in the log */
  unknown: number;
}

/** How a set of reads was served, as shares of the reads whose serving is known. */
export interface ServingMix {
  etcd: number;
  cache: number;
  refused: number;
}

/**
 * The one rule for "how much went to etcd" (issue 46 #2), used by every finding, the live view and the
 * postmortem: the share of the reads whose serving is known that etcd served. A read refused before storage is
 * known (it read nothing) and is never an etcd read; the list a client sends after its watch-list was refused is
 * a request of its own, with its own verdict, and that is what reaches etcd or the cache. Reads whose query the
 * log dropped are not known and stay out. null when none is known.
 */
export function servingMix(s: ServedCounts): ServingMix | null {
  const rejected = s.rejected ?? 0;
  const known = s.etcd + s.cache + rejected;
  if (known === 0) return null;
  return { etcd: s.etcd / known, cache: s.cache / known, refused: rejected / known };
}

/** The etcd share of servingMix, or null. */
export function etcdShareOf(s: ServedCounts): number | null {
  return servingMix(s)?.etcd ?? null;
}

/** Adds `n` requests of a group with the mix `m` to a running weighted mix (a storm, a window). */
export class MixTally {
  private etcd = 0;
  private cache = 0;
  private refused = 0;
  private weight = 0;
  add(m: ServingMix | null, n: number): void {
    if (m === null) return;
    this.etcd += n * m.etcd;
    this.cache += n * m.cache;
    this.refused += n * m.refused;
    this.weight += n;
  }
  /** the weighted requests etcd served */
  get etcdRequests(): number {
    return this.etcd;
  }
  mix(): ServingMix | null {
    if (this.weight === 0) return null;
    return { etcd: this.etcd / this.weight, cache: this.cache / this.weight, refused: this.refused / this.weight };
  }
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** The words for a mix, the same in the storm finding, the postmortem's incident line and the live view:
 * "80% went to etcd, 20% refused before storage (read nothing)". With nothing refused, the larger of etcd and the
 * cache alone, as before refusals were counted. */
export function servingWords(m: ServingMix | null, short = false): string {
  if (m === null) return short ? 'served from an unknown mix' : 'served from an unknown mix of cache and etcd';
  const etcd = short ? `${pct(m.etcd)} from etcd` : `${pct(m.etcd)} went to etcd`;
  const cache = short ? (m.refused === 0 ? 'from the watch cache' : `${pct(m.cache)} from the watch cache`) : `${pct(m.cache)} served from the watch cache (harmless for etcd)`;
  const refused = short ? `${pct(m.refused)} refused` : `${pct(m.refused)} refused before storage (read nothing)`;
  if (m.refused === 0) return m.etcd >= 0.5 ? etcd : cache;
  // largest first; a part that rounds to 0% is left out
  const parts: Array<[number, string]> = [[m.etcd, etcd], [m.cache, cache], [m.refused, refused]];
  return parts.filter(([x]) => Math.round(x * 100) > 0).sort((a, b) => b[0] - a[0]).map(([, w]) => w).join(', ');
}

/** A storm's mix back from its rounded shares (a saved report's too: one written before refusals were counted has no refusedShare). */
export function mixOfShares(s: { etcdShare: number | null; refusedShare?: number | null }): ServingMix | null {
  if (s.etcdShare === null) return null;
  const refused = s.refusedShare ?? 0;
  return { etcd: s.etcdShare, refused, cache: Math.max(0, 1 - s.etcdShare - refused) };
}
