import { describe, expect, it } from 'vitest';
import { parseRequestUri } from '../../src/model/request-uri.js';

describe('parseRequestUri', () => {
  const cases: Array<[string, Partial<ReturnType<typeof parseRequestUri>['path']>, Partial<ReturnType<typeof parseRequestUri>['query']>]> = [
    ['/api/v1/pods', { resource: 'pods', apiGroup: '', namespace: '', name: '' }, { resourceVersion: null, limit: 0 }],
    ['/api/v1/namespaces/kube-system/pods/etcd-0', { resource: 'pods', namespace: 'kube-system', name: 'etcd-0' }, {}],
    ['/api/v1/namespaces/ns/pods/p/log?container=c', { resource: 'pods', name: 'p', subresource: 'log' }, {}],
    ['/apis/apps/v1/namespaces/ns/deployments/d/scale', { apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', subresource: 'scale' }, {}],
    ['/apis/cilium.io/v2/ciliumendpoints?limit=500&resourceVersion=0', { apiGroup: 'cilium.io', resource: 'ciliumendpoints' }, { limit: 500, resourceVersion: '0' }],
    ['/api/v1/namespaces/default', { resource: 'namespaces', name: 'default', namespace: '' }, {}],
    ['/api/v1/namespaces/default/finalize', { resource: 'namespaces', name: 'default', subresource: 'finalize' }, {}],
    ['/api/v1/namespaces', { resource: 'namespaces', name: '' }, {}],
    ['/api/v1/nodes/node-1/status', { resource: 'nodes', name: 'node-1', subresource: 'status' }, {}],
    ['/api/v1/watch/namespaces/ns/pods?resourceVersion=5', { resource: 'pods', namespace: 'ns', isLegacyWatch: true }, { watch: true, resourceVersion: '5' }],
    ['/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&limit=500&resourceVersion=0', { resource: 'pods' }, { fieldSelector: 'spec.nodeName=node-1', limit: 500, resourceVersion: '0' }],
    ['/api/v1/pods?fieldSelector=spec.nodeName=node-1', { resource: 'pods' }, { fieldSelector: 'spec.nodeName=node-1' }],
    ['/api/v1/pods?labelSelector=app+in+%28a%2Cb%29', { resource: 'pods' }, { labelSelector: 'app in (a,b)' }],
    ['/api/v1/pods?allowWatchBookmarks=true&resourceVersion=123&timeout=7m32s&timeoutSeconds=452&watch=true', {}, { watch: true, resourceVersion: '123' }],
    ['/api/v1/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=1', {}, { watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }],
    ['/api/v1/pods?continue=abc%3D&limit=500', {}, { continueToken: true, limit: 500 }],
    ['/api/v1/pods?resourceVersion=&limit=0', {}, { resourceVersion: '', limit: 0 }],
    ['/api/v1/pods?resourceVersion=1&resourceVersion=2', {}, { resourceVersion: '1' }],
    ['core/v1/namespaces/default/services/s', { resource: 'services', namespace: 'default', name: 's' }, {}],
    ['/apis', { isResourceRequest: false }, {}],
    ['/healthz?verbose', { isResourceRequest: false }, {}],
  ];
  it.each(cases)('parses %s', (uri, path, query) => {
    const r = parseRequestUri(uri);
    expect(r.path).toMatchObject(path);
    expect(r.query).toMatchObject(query);
  });

  it('keeps going on a malformed %-escape and says so', () => {
    const r = parseRequestUri('/api/v1/pods?fieldSelector=spec.nodeName%3Dn%zz');
    expect(r.badEscape).toBe(true);
    expect(r.query.fieldSelector).toBe('spec.nodeName=n%zz');
  });
});
