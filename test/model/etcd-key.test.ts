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
  ];
  it.each(cases)('%s .. %s (prefix %s)', (key, end, prefix, want) => {
    expect(describeEtcdKey(key, end, prefix)).toMatchObject(want);
  });

  it('computes range_end like clientv3.GetPrefixRangeEnd', () => {
    expect(prefixRangeEnd('/registry/pods/')).toBe('/registry/pods0');
  });
});
