import { describe, expect, it } from 'vitest';
import { builtinKeyPrefix, describeEtcdKey, inferPrefix, prefixRangeEnd } from '../../src/model/etcd-key.js';

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

describe('describeEtcdKey: each rule on both sides', () => {
  it.each<[string, string | null, string | null, Record<string, unknown>]>([
    // "\0" as range_end reads every key from the key on: the keyspace only from the empty key
    ['/registry/pods/', '\u0000', '/registry', { resource: 'pods', scope: 'all' }],
    ['', null, '/registry', { scope: 'outside' }],
    ['x', '\u0000', '/registry', { scope: 'outside' }],
    // the prefix itself, as a range: the whole keyspace under it
    ['/registry', '/registry0', '/registry', { scope: 'keyspace', prefix: '/registry' }],
    ['/registry//', '/registry/0', '/registry', { scope: 'keyspace' }],
    // an empty range_end is a single key
    ['/registry/pods/', '', '/registry', { resource: 'pods', scope: 'single' }],
    // a prefix range without the trailing slash below the resource: the namespace it starts
    ['/registry/pods/ns1', '/registry/pods/ns2', '/registry', { resource: 'pods', scope: 'namespace', namespace: 'ns1' }],
    // a range from a namespace's prefix that ends inside it stays in the namespace
    ['/registry/pods/ns1/', '/registry/pods/ns1/p5', '/registry', { scope: 'namespace', namespace: 'ns1' }],
    // a special prefix matches whole segments only
    ['/registry/minionsfoo/a', null, '/registry', { resource: 'minionsfoo', resourceKey: 'minionsfoo' }],
    // one dotted segment alone is a resource, not a group
    ['/registry/example.com', null, '/registry', { resource: 'example.com', apiGroup: null, scope: 'single' }],
    // empty segments are not names
    ['/registry/pods//x', null, '/registry', { scope: 'single', namespace: null, name: 'x' }],
    // a custom resource named like a cluster-scoped built-in is namespaced by its own layout
    ['/registry/example.com/nodes/a/b', null, '/registry', { resourceKey: 'example.com/nodes', namespace: 'a', name: 'b' }],
    // cluster-scoped objects have no namespace segment; namespaced ones keep the rest of the key as the name
    ['/registry/namespaces/a/b', null, '/registry', { scope: 'single', namespace: null, name: 'a/b' }],
    ['/registry/pods/ns/a/b', null, '/registry', { scope: 'single', namespace: 'ns', name: 'a/b' }],
    // a continue page of a namespace of custom resources, and of all of them
    ['/registry/cilium.io/ciliumendpoints/ns/ep\u0000', '/registry/cilium.io/ciliumendpoints/ns0', '/registry', { resourceKey: 'cilium.io/ciliumendpoints', scope: 'namespace', namespace: 'ns' }],
    ['/registry/cilium.io/ciliumendpoints/ns/ep\u0000', '/registry/cilium.io/ciliumendpoints0', '/registry', { resourceKey: 'cilium.io/ciliumendpoints', scope: 'all', namespace: null }],
    ['/registry/services/specs/ns/s\u0000', '/registry/services/specs/ns0', '/registry', { resource: 'services', scope: 'namespace', namespace: 'ns' }],
    // no --etcd-prefix: inferred per key
    ['/registry/pods/', '/registry/pods0', null, { resource: 'pods', scope: 'all', prefix: '/registry' }],
    ['/kubernetes.io/pods/ns/p', null, null, { resource: 'pods', namespace: 'ns', name: 'p', prefix: '/kubernetes.io' }],
    ['/kubernetes.io/config.openshift.io/clusteroperators/dns', null, null, { resourceKey: 'config.openshift.io/clusteroperators', name: 'dns', prefix: '/kubernetes.io' }],
    ['/openshift.io/routes/', '/openshift.io/routes0', null, { resource: 'routes', scope: 'all', prefix: '/openshift.io' }],
    ['/custom/pods/', '/custom/pods0', null, { resource: 'pods', scope: 'all', prefix: '/custom' }],
    ['/a/b/minions/n1', null, null, { resource: 'nodes', name: 'n1', prefix: '/a/b' }],
    ['/cs/leader', '/cs/leades', null, { scope: 'outside', prefix: null }],
    ['compact_rev_key', null, null, { scope: 'outside', prefix: null }],
    // a key that does not start with '/' sits under no prefix, even one that reads "null/"
    ['null/pods/x', null, null, { scope: 'outside', prefix: null }],
    ['/kubernetes.io/', '/kubernetes.io0', null, { scope: 'keyspace', prefix: '/kubernetes.io' }],
    ['\u0000', '\u0000', null, { scope: 'keyspace', prefix: null }],
  ])('%j .. %j (prefix %j)', (key, end, prefix, want) => {
    expect(describeEtcdKey(key, end, prefix)).toMatchObject(want);
  });

  it('knows the built-in resources whose storage prefix differs from their name', () => {
    expect(['nodes', 'services', 'endpoints', 'replicationcontrollers', 'ingresses', 'pods', 'leases'].map(builtinKeyPrefix)).toEqual(['minions', 'services/specs', 'services/endpoints', 'controllers', 'ingress', 'pods', 'leases']);
  });

  // Written out, not imported: a name dropped from the code's list must fail here.
  const CLUSTER = [
    'nodes', 'namespaces', 'persistentvolumes', 'clusterroles', 'clusterrolebindings', 'storageclasses', 'csidrivers', 'csinodes',
    'volumeattachments', 'priorityclasses', 'runtimeclasses', 'mutatingwebhookconfigurations', 'validatingwebhookconfigurations',
    'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings',
    'flowschemas', 'prioritylevelconfigurations', 'certificatesigningrequests', 'ingressclasses', 'apiservices',
    'customresourcedefinitions', 'ipaddresses', 'servicecidrs', 'deviceclasses', 'resourceslices', 'clustertrustbundles',
    'componentstatuses', 'storageversions', 'masterleases', 'ranges',
  ];
  it.each(CLUSTER)('%s is cluster-scoped: a prefix range below it is the whole resource', (r) => {
    const key = `/registry/${builtinKeyPrefix(r)}/x/`;
    expect(describeEtcdKey(key, prefixRangeEnd(key))).toMatchObject({ resource: r, scope: 'all', namespace: null });
  });
  it('a namespaced resource: the same range is one namespace', () => {
    expect(describeEtcdKey('/registry/pods/x/', '/registry/pods/x0')).toMatchObject({ scope: 'namespace', namespace: 'x' });
  });

  const STORAGE = [
    ...CLUSTER.map(builtinKeyPrefix).map((p) => p.split('/')[0]!),
    'services', 'pods', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims', 'events', 'limitranges', 'resourcequotas',
    'podtemplates', 'deployments', 'replicasets', 'daemonsets', 'statefulsets', 'controllerrevisions', 'jobs', 'cronjobs',
    'horizontalpodautoscalers', 'leases', 'endpointslices', 'networkpolicies', 'poddisruptionbudgets', 'roles', 'rolebindings',
    'csistoragecapacities', 'volumeattributesclasses', 'resourceclaims', 'resourceclaimtemplates', 'leasecandidates',
    'apiextensions.k8s.io', 'apiregistration.k8s.io', 'controllers', 'ingress',
  ];
  it.each(STORAGE)('a key under an unknown prefix is inferred from the built-in segment %s', (seg) => {
    expect(inferPrefix(`/custom/${seg}/x/y`)).toBe('/custom');
    expect(inferPrefix(`/a/b/${seg}/x`)).toBe('/a/b');
  });
  it.each<[string, string | null]>([
    ['/registry/anything', '/registry'],
    ['/kubernetes.io/anything', '/kubernetes.io'],
    ['/openshift.io/anything', '/openshift.io'],
    ['/registry', '/registry'],
    // at most two segments before the resource: deeper keys belong to other etcd clients
    ['/calico/resources/v3/projectcalico.org/nodes/n1', null],
    ['/a/b/c/pods/x', null],
    // the first segment alone is never the resource
    ['/pods/x', null],
    ['/cs/leader', null],
    ['registry/pods/x', null],
    ['', null],
  ])('inferPrefix(%j) = %j', (key, want) => {
    expect(inferPrefix(key)).toBe(want);
  });
});
