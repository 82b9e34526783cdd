import { describe, expect, it } from 'vitest';
import { parseRequestQuery, parseRequestUri } from '../../src/decode/request-uri.js';

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

describe('boolean parameters, as apimachinery decodes them (false only for 0 or false)', () => {
  it.each([
    ['watch=true', true],
    ['watch=1', true],
    ['watch=True', true],
    ['watch=yes', true],
    ['watch=', true],
    ['watch', true],
    ['watch=false', false],
    ['watch=FALSE', false],
    ['watch=0', false],
    ['watch=false&watch=true', false],
    ['watch=true&watch=false', true],
    ['resourceVersion=1', false],
  ])('?%s → watch %s', (qs, want) => {
    expect(parseRequestUri(`/api/v1/pods?${qs}`).query.watch).toBe(want);
  });

  it.each([
    ['sendInitialEvents=true', true],
    ['sendInitialEvents=True', true],
    ['sendInitialEvents=1', true],
    ['sendInitialEvents=', true],
    ['sendInitialEvents=false', false],
    ['sendInitialEvents=0', false],
    ['sendInitialEvents=0&sendInitialEvents=1', false],
    ['watch=true', false],
  ])('?%s → sendInitialEvents %s', (qs, want) => {
    expect(parseRequestUri(`/api/v1/pods?${qs}`).query.sendInitialEvents).toBe(want);
  });
});

describe('the rest of the query and path', () => {
  it.each([
    ['limit=-5', 0],
    ['limit=abc', 0],
    ['limit=12abc', 12],
    ['limit=0&limit=7', 7],
    ['limit=7&limit=9', 7],
  ])('?%s → limit %d', (qs, want) => {
    expect(parseRequestUri(`/api/v1/pods?${qs}`).query.limit).toBe(want);
  });

  it('a continue parameter with no value is no continue token', () => {
    expect(parseRequestUri('/api/v1/pods?continue=&limit=5').query.continueToken).toBe(false);
  });

  it('the first occurrence of each selector and resourceVersionMatch wins, and + is a space', () => {
    expect(parseRequestUri('/api/v1/pods?labelSelector=a%3Db&labelSelector=c%3Dd&fieldSelector=x%3Dy&fieldSelector=z&resourceVersionMatch=Exact&resourceVersionMatch=NotOlderThan').query).toMatchObject({ labelSelector: 'a=b', fieldSelector: 'x=y', resourceVersionMatch: 'Exact' });
    expect(parseRequestUri('/api/v1/pods?labelSelector=app+in+(a,b)').query.labelSelector).toBe('app in (a,b)');
  });

  it('an escaped key is decoded too: field%53elector', () => {
    expect(parseRequestUri('/api/v1/pods?field%53elector=spec.nodeName%3Dn1').query.fieldSelector).toBe('spec.nodeName=n1');
  });

  it('drops a #fragment from the query', () => {
    expect(parseRequestUri('/api/v1/pods?limit=5#frag').query.limit).toBe(5);
    expect(parseRequestUri('/api/v1/pods?resourceVersion=5#x').query.resourceVersion).toBe('5');
  });

  it.each([
    ['/api/v1/namespaces/a%2Fb/pods', { namespace: 'a/b', resource: 'pods' }],
    ['/api/v1/namespaces/ns/pods/p%zz', { name: 'p%zz' }],
    ['/api', { isResourceRequest: false }],
    ['/api/v1', { isResourceRequest: false }],
    ['/apis/apps', { isResourceRequest: false }],
    ['/apis/apps/v1', { isResourceRequest: false }],
    ['/api/v1/watch', { isResourceRequest: false }],
    ['/api/v1/proxy/nodes/n1', { resource: 'nodes', name: 'n1', isLegacyWatch: false }],
    ['/api/v1/namespaces/ns/pods/p/exec/extra', { subresource: 'exec/extra' }],
    ['/api/v1/namespaces/ns/status', { resource: 'namespaces', name: 'ns', subresource: 'status' }],
    ['/core/v1/pods', { resource: 'pods', apiVersion: 'v1' }],
  ])('%s', (uri, want) => {
    expect(parseRequestUri(uri).path).toMatchObject(want);
  });

  it('the query-only path (objectRef known) gives the same query as the full parse, for every shape', () => {
    for (const uri of [
      '/api/v1/pods?limit=500&resourceVersion=0',
      '/api/v1/watch/pods?resourceVersion=5',
      '/api/v1/namespaces/a%2Fb/pods?watch=1',
      'core/v1/namespaces/default/services/s?resourceVersion=0',
      '/api/v1/pods',
      '/api/v1/pods?fieldSelector=spec.nodeName%3Dn#x',
      '/apis/apps/v1/watch/namespaces/a/deployments',
    ]) {
      expect(parseRequestQuery(uri)).toEqual(parseRequestUri(uri).query);
    }
    expect(parseRequestQuery('/api/v1/watch/pods').watch).toBe(true);
  });
});
