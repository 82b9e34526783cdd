import { describe, expect, it } from 'vitest';
import { describeEtcdKey, prefixRangeEnd } from '../../src/model/etcd-key.js';

describe('describeEtcdKey', () => {
  const cases: Array<[string, string | null, string, Partial<ReturnType<typeof describeEtcdKey>>]> = [
    ['/registry/pods/', '/registry/pods0', '/registry', { resourceKey: 'pods', resource: 'pods', scope: 'all' }],
    ['/registry/pods/ns1/', '/registry/pods/ns10', '/registry', { resource: 'pods', scope: 'namespace', namespace: 'ns1' }],
    ['/registry/pods/ns1/p1', null, '/registry', { resource: 'pods', scope: 'single', namespace: 'ns1', name: 'p1' }],
    ['/registry/minions/', '/registry/minions0', '/registry', { resource: 'nodes', scope: 'all' }],
    ['/registry/minions/node-1', null, '/registry', { resource: 'nodes', scope: 'single', name: 'node-1' }],
    ['/registry/services/specs/', '/registry/services/specs0', '/registry', { resource: 'services', scope: 'all' }],
    ['/registry/services/specs', '/registry/services/spect', '/registry', { resource: 'services', scope: 'all' }],
    ['/registry/services/endpoints/default/kubernetes', null, '/registry', { resource: 'endpoints', namespace: 'default', name: 'kubernetes' }],
    ['/registry/controllers/', '/registry/controllers0', '/registry', { resource: 'replicationcontrollers' }],
    ['/registry/ingress/ns/i', null, '/registry', { resource: 'ingresses', scope: 'single' }],
    ['/registry/cilium.io/ciliumendpoints/', '/registry/cilium.io/ciliumendpoints0', '/registry', { resourceKey: 'cilium.io/ciliumendpoints', apiGroup: 'cilium.io', scope: 'all' }],
    ['/registry/apiextensions.k8s.io/customresourcedefinitions/', '/registry/apiextensions.k8s.io/customresourcedefinitions0', '/registry', { resource: 'customresourcedefinitions', scope: 'all' }],
    ['/registry/pods/ns/p-7\u0000', '/registry/pods0', '/registry', { resource: 'pods', scope: 'all' }],
    ['/registry/pods/ns/p-7\u0000', '/registry/pods/ns0', '/registry', { resource: 'pods', scope: 'namespace', namespace: 'ns' }],
    ['/k8s/pods/', '/k8s/pods0', '/k8s', { resource: 'pods', scope: 'all' }],
    ['/registry/pods/', '/registry/pods0', '/k8s', { scope: 'outside' }],
    ['compact_rev_key', null, '/registry', { scope: 'outside' }],
    ['\u0000', '\u0000', '/registry', { scope: 'keyspace' }],
    // DOMAIN.md §2: every row of the key layout, and the edges of each rule
    ['/registry/leases/kube-node-lease/n1', null, '/registry', { resourceKey: 'leases', resource: 'leases', scope: 'single', namespace: 'kube-node-lease', name: 'n1' }],
    ['/registry/clusterroles/admin', null, '/registry', { resource: 'clusterroles', scope: 'single', namespace: null, name: 'admin' }],
    ['/registry/namespaces/default', null, '/registry', { resource: 'namespaces', scope: 'single', name: 'default' }],
    ['/registry/persistentvolumes/', '/registry/persistentvolumes0', '/registry', { resource: 'persistentvolumes', scope: 'all' }],
    // a prefix range under a cluster-scoped resource is not a namespace: the whole resource
    ['/registry/minions/x/', '/registry/minions/x0', '/registry', { resource: 'nodes', scope: 'all', namespace: null }],
    ['/registry/services/specs/default/', '/registry/services/specs/default0', '/registry', { resource: 'services', scope: 'namespace', namespace: 'default' }],
    ['/registry/services/endpoints/', '/registry/services/endpoints0', '/registry', { resourceKey: 'endpoints', scope: 'all' }],
    // a continue page of a cluster-scoped list starts at an object key; range_end says it is the whole resource
    ['/registry/minions/node-5\u0000', '/registry/minions0', '/registry', { resource: 'nodes', scope: 'all' }],
    // a continue page whose range_end is not a prefix end still reads across the resource
    ['/registry/pods/ns/p\u0000', '/registry/zzz', '/registry', { resource: 'pods', scope: 'all', namespace: null }],
    // custom resources: <group>/<plural>/[ns/]name
    ['/registry/cilium.io/ciliumnodes/node-1', null, '/registry', { resourceKey: 'cilium.io/ciliumnodes', resource: 'ciliumnodes', apiGroup: 'cilium.io', scope: 'single', name: 'node-1', namespace: null }],
    ['/registry/cilium.io/ciliumendpoints/ns/ep', null, '/registry', { resourceKey: 'cilium.io/ciliumendpoints', scope: 'single', namespace: 'ns', name: 'ep' }],
    ['/registry/cilium.io/ciliumendpoints/ns/', '/registry/cilium.io/ciliumendpoints/ns0', '/registry', { resourceKey: 'cilium.io/ciliumendpoints', scope: 'namespace', namespace: 'ns' }],
    ['/registry/apiregistration.k8s.io/apiservices/v1.apps', null, '/registry', { resourceKey: 'apiregistration.k8s.io/apiservices', resource: 'apiservices', scope: 'single', name: 'v1.apps' }],
    // the old count ranges lacked the trailing slash: /registry/pods .. /registry/podt
    ['/registry/pods', '/registry/podt', '/registry', { resource: 'pods', scope: 'all' }],
    ['/registry/masterleases/', '/registry/masterleases0', '/registry', { resource: 'masterleases', scope: 'all' }],
    ['/registry/health', null, '/registry', { resource: 'health', scope: 'single' }],
    // the prefix itself
    ['/registry/', '/registry0', '/registry', { scope: 'keyspace', resourceKey: '' }],
    ['/registry', null, '/registry', { scope: 'outside' }],
    ['', '\u0000', '/registry', { scope: 'keyspace' }],
    // --etcd-prefix with or without a trailing slash, and a key that only starts like it
    ['/registry/pods/', '/registry/pods0', '/registry/', { resource: 'pods', scope: 'all' }],
    ['/registryx/pods/', '/registryx/pods0', '/registry', { scope: 'outside' }],
    ['/kubernetes.io/pods/a/b', null, '/kubernetes.io', { resource: 'pods', scope: 'single', namespace: 'a', name: 'b' }],
  ];
  it.each(cases)('%s .. %s (prefix %s)', (key, end, prefix, want) => {
    expect(describeEtcdKey(key, end, prefix)).toMatchObject(want);
  });

  it('computes range_end like clientv3.GetPrefixRangeEnd: the last byte plus one', () => {
    expect(prefixRangeEnd('/registry/pods/')).toBe('/registry/pods0');
    expect(prefixRangeEnd('/registry/pods')).toBe('/registry/podt');
    expect(prefixRangeEnd('a')).toBe('b');
    expect(prefixRangeEnd('')).toBe('\u0000');
  });

  it('fills every field, null where the key does not say', () => {
    expect(describeEtcdKey('/registry/pods/ns1/', '/registry/pods/ns10')).toEqual({ resourceKey: 'pods', resource: 'pods', apiGroup: null, namespace: 'ns1', name: null, scope: 'namespace', prefix: '/registry' });
    expect(describeEtcdKey('/other/x', null)).toEqual({ resourceKey: '', resource: '', apiGroup: null, namespace: null, name: null, scope: 'outside', prefix: null });
  });
});
