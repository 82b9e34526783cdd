// Each boundary of the served-from rules, on both sides (DOMAIN.md §1.2–1.8): the patch releases that sent
// watches without resourceVersion to etcd, the etcd releases with RequestWatchProgress, the 1.34 snapshot rules,
// the ConsistentListFromCache gate forced either way, and the scope an etcd read covers.
import { describe, expect, it } from 'vitest';
import { classifyRead, type ServingOptions } from '../../src/analyze/serving.js';
import { etcdSupportsProgressNotify } from '../../src/analyze/report.js';
import { parseRequestUri } from '../../src/decode/request-uri.js';
import { describeSelectors } from '../../src/model/selector.js';
import { parseKubeVersion } from '../../src/model/kube-version.js';

function classify(version: string, verb: string, uri: string, extra: Partial<ServingOptions> = {}) {
  const p = parseRequestUri(uri);
  const o: ServingOptions = { version: parseKubeVersion(version)!, etcdSupportsProgressNotify: null, consistentListFromCache: null, watchCacheDisabled: new Set(['events']), ...extra };
  return classifyRead(verb, p.path.resource, p.path.namespace, p.query, describeSelectors(p.query.fieldSelector, p.query.labelSelector), o);
}
const verdict = (version: string, verb: string, uri: string, extra: Partial<ServingOptions> = {}): string => {
  const v = classify(version, verb, uri, extra)!;
  return `${v.servedFrom}: ${v.reason}`;
};
const W = '/api/v1/pods?watch=true';

describe('watches without resourceVersion: the patch releases that read etcd', () => {
  it.each([
    ['1.26.15', 'cache'],
    ['1.27.0', 'etcd'],
    ['1.27.12', 'etcd'],
    ['1.27.13', 'cache'],
    ['1.28.0', 'etcd'],
    ['1.28.8', 'etcd'],
    ['1.28.9', 'cache'],
    ['1.29.0', 'etcd'],
    ['1.29.3', 'etcd'],
    ['1.29.4', 'cache'],
    ['1.30.0', 'cache'],
    // no patch given: assume the latest patch of the minor, which has the fix
    ['1.27', 'cache'],
    ['1.28', 'cache'],
    ['1.29', 'cache'],
  ])('%s → %s', (version, where) => {
    expect(classify(version, 'watch', W)!.servedFrom).toBe(where);
  });
});

describe('etcd releases with RequestWatchProgress (feature_support_checker.go: 3.4.31+, 3.5.13+)', () => {
  it.each([
    ['2.3.8', false],
    ['3.3.27', false],
    ['3.4.30', false],
    ['3.4.31', true],
    ['3.5.0', false],
    ['3.5.12', false],
    ['3.5.13', true],
    ['v3.5.13', true],
    ['3.6.0', true],
    ['4.0.0', true],
    ['3.5', null],
    ['latest', null],
    // two-digit parts, and a version that does not start the string
    ['3.10.0', true],
    ['10.0.0', true],
    ['3.4.100', true],
    ['etcd-3.5.13', null],
  ])('%s → %s', (v, want) => {
    expect(etcdSupportsProgressNotify(v)).toBe(want);
  });
});

describe('lists without resourceVersion and the ConsistentListFromCache gate', () => {
  const L = '/api/v1/pods';
  it.each([
    // 1.27 has no gate at all: a forced gate changes nothing
    ['1.27', {}, L, 'etcd: no resourceVersion'],
    ['1.27', { consistentListFromCache: true }, L, 'etcd: no resourceVersion'],
    // 1.28–1.30: alpha, off by default; forced on, unpaginated lists come from the cache, with no etcd check yet
    ['1.28', { consistentListFromCache: true }, L, 'cache: no resourceVersion, consistent read from cache (gate on)'],
    ['1.30', {}, L, 'etcd: no resourceVersion'],
    ['1.30', { consistentListFromCache: true, etcdSupportsProgressNotify: false }, L, 'cache: no resourceVersion, consistent read from cache (gate on)'],
    ['1.30', { consistentListFromCache: true }, `${L}?limit=500`, 'etcd: no resourceVersion (paginated)'],
    // 1.31+: beta on, but only with an etcd that has progress notify
    ['1.31', {}, L, 'cache: no resourceVersion, consistent read from cache (1.31+)'],
    ['1.31', { etcdSupportsProgressNotify: true }, L, 'cache: no resourceVersion, consistent read from cache (1.31+)'],
    ['1.31', { etcdSupportsProgressNotify: false }, L, 'etcd: no resourceVersion (etcd lacks progress notify)'],
    ['1.31', { etcdSupportsProgressNotify: false }, `${L}?limit=500`, 'etcd: no resourceVersion (etcd lacks progress notify)'],
    ['1.31', { consistentListFromCache: true, etcdSupportsProgressNotify: false }, L, 'etcd: no resourceVersion (etcd lacks progress notify)'],
    ['1.32', { consistentListFromCache: false }, L, 'etcd: no resourceVersion (ConsistentListFromCache off)'],
    ['1.34', { etcdSupportsProgressNotify: false }, L, 'etcd: no resourceVersion (etcd lacks progress notify)'],
  ] as Array<[string, Partial<ServingOptions>, string, string]>)('%s %j %s → %s', (version, extra, uri, want) => {
    expect(verdict(version, 'list', uri, extra)).toBe(want);
  });
});

describe('exact reads and continue pages: etcd up to 1.33, cache snapshots from 1.34', () => {
  const L = '/api/v1/pods';
  it.each([
    [`${L}?continue=abc&limit=500`, 'etcd: continue token', 'cache: continue token from cache snapshot (1.34+, if still in history)'],
    [`${L}?resourceVersion=9&resourceVersionMatch=Exact`, 'etcd: resourceVersionMatch=Exact', 'cache: resourceVersionMatch=Exact from cache snapshot (1.34+, if still in history)'],
    [`${L}?limit=500&resourceVersion=9`, 'etcd: limit with resourceVersion≠0 (exact page)', 'cache: limit with resourceVersion=N from cache snapshot (1.34+)'],
  ])('%s: 1.33 %s, 1.34 %s', (uri, at133, at134) => {
    expect(verdict('1.33', 'list', uri)).toBe(at133);
    expect(verdict('1.34', 'list', uri)).toBe(at134);
  });

  it.each([
    ['1.30', '/api/v1/pods?resourceVersionMatch=Foo', 'etcd: resourceVersionMatch=Foo'],
    ['1.31', '/api/v1/pods?resourceVersionMatch=Foo', 'etcd: unsupported resourceVersionMatch=Foo'],
    // NotOlderThan with a limit and rv=N: etcd up to 1.30 (hasLimit), cache from 1.31 (the limit is honoured)
    ['1.30', '/api/v1/pods?limit=500&resourceVersion=5&resourceVersionMatch=NotOlderThan', 'etcd: limit with resourceVersion≠0 (exact page)'],
    ['1.31', '/api/v1/pods?limit=500&resourceVersion=5&resourceVersionMatch=NotOlderThan', 'cache: resourceVersionMatch=NotOlderThan'],
    ['1.30', '/api/v1/pods?resourceVersion=5&resourceVersionMatch=NotOlderThan', 'cache: resourceVersionMatch=NotOlderThan'],
    ['1.30', '/api/v1/pods?limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan', 'cache: resourceVersion=0'],
    ['1.31', '/api/v1/pods?limit=500&resourceVersion=0', 'cache: resourceVersion=0'],
    ['1.31', '/api/v1/pods?resourceVersion=7', 'cache: resourceVersion=N'],
    // a continue page without a limit is still a continue page
    ['1.30', '/api/v1/pods?continue=abc', 'etcd: continue token'],
  ])('%s %s → %s', (version, uri, want) => {
    expect(verdict(version, 'list', uri)).toBe(want);
  });
});

describe('gets, watch-lists, disabled caches and other verbs', () => {
  it.each([
    ['1.34', 'get', '/api/v1/namespaces/a/pods/p', 'etcd: get without resourceVersion'],
    ['1.27', 'get', '/api/v1/namespaces/a/pods/p?resourceVersion=5', 'cache: get with resourceVersion'],
    ['1.34', 'get', '/api/v1/namespaces/a/events/e?resourceVersion=0', 'etcd: events: watch cache off by default'],
    ['1.27', 'watch', '/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan', 'none: watch-list refused (WatchList gate off in 1.27; the client falls back to a list)'],
    ['1.29.3', 'watch', '/api/v1/pods?watch=true&resourceVersion=0', 'cache: watch from resourceVersion'],
  ])('%s %s %s → %s', (version, verb, uri, want) => {
    expect(verdict(version, verb, uri)).toBe(want);
  });

  it('names a watch-cache-disabled resource other than events', () => {
    expect(verdict('1.31', 'get', '/api/v1/namespaces/a/secrets/s?resourceVersion=0', { watchCacheDisabled: new Set(['events', 'secrets']) })).toBe('etcd: watch cache disabled for resource');
  });

  it.each(['create', 'update', 'patch', 'delete', 'deletecollection'])('%s is not a read: no verdict', (verb) => {
    expect(classify('1.31', verb, '/api/v1/namespaces/a/pods/p')).toBeNull();
  });
});

describe('what an etcd read covers', () => {
  it.each([
    ['/api/v1/pods', 'all'],
    ['/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', 'all'],
    ['/api/v1/namespaces/a/pods', 'namespace'],
    ['/api/v1/pods?fieldSelector=metadata.namespace%3Da', 'namespace'],
    // a namespaced resource's one key needs its namespace: across namespaces the whole prefix is read
    ['/api/v1/pods?fieldSelector=metadata.name%3Dp', 'all'],
    ['/apis/apps/v1/deployments?fieldSelector=metadata.name%3Dd', 'all'],
    ['/api/v1/pods?fieldSelector=metadata.name%3Dp,metadata.namespace%3Da', 'single'],
    ['/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3Dp', 'single'],
    // a cluster-scoped resource's key has no namespace; a custom resource's scope is not known: one key
    ['/api/v1/nodes?fieldSelector=metadata.name%3Dn1', 'single'],
    ['/apis/cilium.io/v2/ciliumnodes?fieldSelector=metadata.name%3Dn1', 'single'],
  ])('a list of %s reads %s', (uri, scope) => {
    expect(classify('1.29', 'list', uri)!.etcdScope).toBe(scope);
  });

  // every namespaced built-in resource: a metadata.name list across namespaces reads the whole prefix
  it.each([
    'pods', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims', 'events', 'limitranges', 'resourcequotas',
    'podtemplates', 'deployments', 'replicasets', 'daemonsets', 'statefulsets', 'controllerrevisions', 'jobs', 'cronjobs',
    'horizontalpodautoscalers', 'leases', 'endpointslices', 'networkpolicies', 'poddisruptionbudgets', 'roles', 'rolebindings',
    'csistoragecapacities', 'resourceclaims', 'resourceclaimtemplates', 'leasecandidates', 'services', 'endpoints',
    'replicationcontrollers', 'ingresses',
  ])('%s named across namespaces: the whole prefix; in one namespace: one key', (r) => {
    const o: ServingOptions = { version: parseKubeVersion('1.29')!, etcdSupportsProgressNotify: null, consistentListFromCache: null, watchCacheDisabled: new Set() };
    const sel = describeSelectors('metadata.name=x', '');
    expect(classifyRead('list', r, '', { ...parseRequestUri('/x').query }, sel, o)!.etcdScope).toBe('all');
    expect(classifyRead('list', r, 'a', { ...parseRequestUri('/x').query }, sel, o)!.etcdScope).toBe('single');
  });

  it('a get of a resource whose watch cache is off reads one key', () => {
    expect(classify('1.31', 'get', '/api/v1/namespaces/a/secrets/s?resourceVersion=0', { watchCacheDisabled: new Set(['events', 'secrets']) })!.etcdScope).toBe('single');
    expect(classify('1.31', 'list', '/api/v1/namespaces/a/secrets?resourceVersion=0', { watchCacheDisabled: new Set(['events', 'secrets']) })!.etcdScope).toBe('namespace');
  });

  it('a get reads one key; a cache-served read covers nothing in etcd', () => {
    expect(classify('1.29', 'get', '/api/v1/namespaces/a/pods/p')!.etcdScope).toBe('single');
    expect(classify('1.29', 'list', '/api/v1/pods?resourceVersion=0')!.etcdScope).toBeNull();
    expect(classify('1.29', 'list', '/api/v1/namespaces/a/events?resourceVersion=0')!.etcdScope).toBe('namespace');
  });
});
