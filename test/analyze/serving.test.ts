// The served-from classifier per version band, from DOMAIN.md §1 (cacher.go / delegator.go).
import { describe, expect, it } from 'vitest';
import { classifyRead, etcdShareOf, MixTally, mixOfShares, servingMix, servingWords, type ServingOptions } from '../../src/analyze/serving.js';
import { parseRequestUri } from '../../src/decode/request-uri.js';
import { describeSelectors } from '../../src/model/selector.js';
import { parseKubeVersion } from '../../src/model/kube-version.js';

function verdict(version: string, verb: string, uri: string, extra: Partial<ServingOptions> = {}): string {
  const p = parseRequestUri(uri);
  const o: ServingOptions = { version: parseKubeVersion(version)!, etcdSupportsProgressNotify: null, consistentListFromCache: null, watchCacheDisabled: new Set(['events']), ...extra };
  const v = classifyRead(verb, p.path.resource, p.path.namespace, p.query, describeSelectors(p.query.fieldSelector, p.query.labelSelector), o);
  return `${v!.servedFrom}: ${v!.reason}`;
}

describe('classifyRead', () => {
  const L = '/api/v1/pods';
  const cases: Array<[string, string, string, string]> = [
    // 1.27 – 1.30
    ['1.27', 'list', `${L}`, 'etcd: no resourceVersion'],
    ['1.29', 'list', `${L}?fieldSelector=spec.nodeName%3Dn1`, 'etcd: no resourceVersion'],
    ['1.29', 'list', `${L}?limit=500`, 'etcd: no resourceVersion (paginated)'],
    ['1.29', 'list', `${L}?limit=500&resourceVersion=0`, 'cache: resourceVersion=0'],
    ['1.29', 'list', `${L}?resourceVersion=0&resourceVersionMatch=NotOlderThan`, 'cache: resourceVersion=0'],
    ['1.29', 'list', `${L}?resourceVersion=123`, 'cache: resourceVersion=N, no limit'],
    ['1.29', 'list', `${L}?limit=500&resourceVersion=123`, 'etcd: limit with resourceVersion≠0 (exact page)'],
    ['1.29', 'list', `${L}?continue=abc&limit=500`, 'etcd: continue token'],
    ['1.29', 'list', `${L}?resourceVersion=123&resourceVersionMatch=Exact`, 'etcd: resourceVersionMatch=Exact'],
    ['1.30', 'list', `/api/v1/namespaces/ns/events?resourceVersion=0`, 'etcd: events: watch cache off by default'],
    // 1.31 – 1.33
    ['1.31', 'list', `${L}`, 'cache: no resourceVersion, consistent read from cache (1.31+)'],
    ['1.31', 'list', `${L}?limit=500`, 'cache: no resourceVersion, consistent read from cache (1.31+)'],
    ['1.32', 'list', `${L}?continue=abc&limit=500`, 'etcd: continue token'],
    ['1.33', 'list', `${L}?limit=500&resourceVersion=123`, 'etcd: limit with resourceVersion≠0 (exact page)'],
    ['1.33', 'list', `${L}?resourceVersion=123&resourceVersionMatch=Exact`, 'etcd: resourceVersionMatch=Exact'],
    ['1.31', 'list', `${L}?limit=500&resourceVersion=5&resourceVersionMatch=NotOlderThan`, 'cache: resourceVersionMatch=NotOlderThan'],
    // 1.34+
    ['1.34', 'list', `${L}?continue=abc&limit=500`, 'cache: continue token from cache snapshot (1.34+, if still in history)'],
    ['1.35', 'list', `${L}?resourceVersion=9&resourceVersionMatch=Exact`, 'cache: resourceVersionMatch=Exact from cache snapshot (1.34+, if still in history)'],
    // gets
    ['1.29', 'get', '/api/v1/namespaces/ns/pods/p', 'etcd: get without resourceVersion'],
    ['1.34', 'get', '/api/v1/namespaces/ns/pods/p?resourceVersion=0', 'cache: get with resourceVersion'],
    // watches
    ['1.27.12', 'watch', `${L}?watch=true`, 'etcd: watch without resourceVersion (this patch release reads etcd)'],
    ['1.27.13', 'watch', `${L}?watch=true`, 'cache: watch without resourceVersion, from cache'],
    ['1.29.3', 'watch', `${L}?watch=true`, 'etcd: watch without resourceVersion (this patch release reads etcd)'],
    ['1.29', 'watch', `${L}?watch=true&resourceVersion=10`, 'cache: watch from resourceVersion'],
    // watch-lists (sendInitialEvents=true), the way client-go ≥ 0.35 lists: by the server's WatchList gate
    ['1.34', 'watch', `${L}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, 'cache: watch-list from the watch cache (+1 etcd limit:1 range for the current revision)'],
    ['1.32', 'watch', `${L}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0`, 'cache: watch-list from the watch cache (resourceVersion=0)'],
    ['1.35', 'list', `${L}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=7`, 'cache: watch-list from the watch cache (resourceVersion=N)'],
    ['1.33', 'watch', `${L}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, 'none: watch-list refused (WatchList gate off in 1.33; the client falls back to a list)'],
    ['1.31', 'list', `${L}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, 'none: watch-list refused (WatchList gate off in 1.31; the client falls back to a list)'],
  ];
  it.each(cases)('%s %s %s → %s', (version, verb, uri, want) => {
    expect(verdict(version, verb, uri)).toBe(want);
  });

  it('sendInitialEvents on a get is no watch-list: a get is judged as a get', () => {
    expect(verdict('1.34', 'get', '/api/v1/namespaces/a/pods/p?sendInitialEvents=true&resourceVersionMatch=NotOlderThan')).toBe('etcd: get without resourceVersion');
  });

  it('a watch-list without resourceVersion fails when etcd lacks progress notify; with one it does not need it', () => {
    const wl = `${L}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`;
    expect(verdict('1.34', 'list', wl, { etcdSupportsProgressNotify: false })).toBe('none: watch-list without resourceVersion fails (etcd lacks progress notify; the client falls back to a list)');
    expect(verdict('1.34', 'list', `${wl}&resourceVersion=0`, { etcdSupportsProgressNotify: false })).toBe('cache: watch-list from the watch cache (resourceVersion=0)');
  });

  it('sends rv="" lists to etcd on 1.31+ when etcd lacks progress notify (3.5.0–3.5.12)', () => {
    expect(verdict('1.31', 'list', L, { etcdSupportsProgressNotify: false })).toBe('etcd: no resourceVersion (etcd lacks progress notify)');
  });

  it('serves rv="" unpaginated lists from cache on 1.28–1.30 only with the gate turned on', () => {
    expect(verdict('1.29', 'list', L, { consistentListFromCache: true })).toBe('cache: no resourceVersion, consistent read from cache (gate on)');
    expect(verdict('1.29', 'list', `${L}?limit=500`, { consistentListFromCache: true })).toBe('etcd: no resourceVersion (paginated)');
  });

  it('treats a resource with its watch cache disabled as etcd', () => {
    expect(verdict('1.34', 'list', '/api/v1/secrets?resourceVersion=0', { watchCacheDisabled: new Set(['events', 'secrets']) })).toBe('etcd: watch cache disabled for resource');
  });
});

// The one rule for "how much went to etcd" (issue 46 #2): refused reads are known, read nothing, never etcd's.
describe('servingMix and its words', () => {
  const c = (etcd: number, cache: number, rejected: number, unknown = 0) => ({ etcd, cache, rejected, unknown });
  const cases: Array<[string, ReturnType<typeof c>, number | null, string, string]> = [
    ['all etcd', c(10, 0, 0), 1, '100% went to etcd', '100% from etcd'],
    ['mostly cache', c(3, 7, 0), 0.3, '70% served from the watch cache (harmless for etcd)', 'from the watch cache'],
    ['all refused', c(0, 0, 200), 0, '100% refused before storage (read nothing)', '100% refused'],
    ['refused and etcd, even', c(80, 0, 80), 0.5, '50% went to etcd, 50% refused before storage (read nothing)', '50% from etcd, 50% refused'],
    ['refused, cache and etcd', c(1, 6, 3), 0.1, '60% served from the watch cache (harmless for etcd), 30% refused before storage (read nothing), 10% went to etcd', '60% from the watch cache, 30% refused, 10% from etcd'],
    ['unknown stays out', c(5, 5, 0, 90), 0.5, '50% went to etcd', '50% from etcd'],
    ['nothing known', c(0, 0, 0, 7), null, 'served from an unknown mix of cache and etcd', 'served from an unknown mix'],
  ];
  it.each(cases)('%s', (_name, counts, share, words, short) => {
    expect(etcdShareOf(counts)).toBe(share);
    expect(servingWords(servingMix(counts))).toBe(words);
    expect(servingWords(servingMix(counts), true)).toBe(short);
  });

  it('weights groups by their requests; a group with nothing known adds nothing', () => {
    const t = new MixTally();
    t.add(servingMix(c(10, 0, 0)), 30); // 30 requests, all etcd
    t.add(servingMix(c(0, 0, 5)), 10); // 10 refused
    t.add(servingMix(c(0, 0, 0, 4)), 1000); // unknown: left out
    expect(t.mix()).toEqual({ etcd: 0.75, cache: 0, refused: 0.25 });
    expect(t.etcdRequests).toBe(30);
    expect(new MixTally().mix()).toBeNull();
  });

  it('reads a storm back from its rounded shares, an older report with no refusedShare as nothing refused', () => {
    expect(mixOfShares({ etcdShare: 0.5, refusedShare: 0.5 })).toEqual({ etcd: 0.5, cache: 0, refused: 0.5 });
    expect(mixOfShares({ etcdShare: 0.25 })).toEqual({ etcd: 0.25, cache: 0.75, refused: 0 });
    expect(mixOfShares({ etcdShare: null, refusedShare: null })).toBeNull();
  });
});
