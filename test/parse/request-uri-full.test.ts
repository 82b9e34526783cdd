// requestURI parsing with every field asserted (toEqual, not toMatchObject): the path as RequestInfo reads it,
// the query as url.Values and apimachinery read it, and the query-only shortcut against the full parse.
import { describe, expect, it } from 'vitest';
import { decodeQueryComponent, parseListQuery, parseRequestQuery, parseRequestUri, type ApiPath, type ListQuery } from '../../src/decode/request-uri.js';

const Q = (q: Partial<ListQuery> = {}): ListQuery => ({ fieldSelector: null, labelSelector: null, resourceVersion: null, resourceVersionMatch: null, limit: 0, continueToken: false, watch: false, sendInitialEvents: false, ...q });
const P = (p: Partial<ApiPath>): ApiPath => ({ isResourceRequest: true, apiGroup: '', apiVersion: 'v1', resource: '', namespace: '', name: '', subresource: '', isLegacyWatch: false, ...p });
const NONE: ApiPath = { isResourceRequest: false, apiGroup: '', apiVersion: '', resource: '', namespace: '', name: '', subresource: '', isLegacyWatch: false };

describe('parseRequestUri: every field', () => {
  it.each<[string, ApiPath, ListQuery]>([
    ['/api/v1/pods', P({ resource: 'pods' }), Q()],
    ['/api/v1/namespaces/ns/pods/p1', P({ resource: 'pods', namespace: 'ns', name: 'p1' }), Q()],
    ['/api/v1/namespaces/ns/pods/p1/log', P({ resource: 'pods', namespace: 'ns', name: 'p1', subresource: 'log' }), Q()],
    ['/api/v1/namespaces/ns/pods/p1/proxy/a/b', P({ resource: 'pods', namespace: 'ns', name: 'p1', subresource: 'proxy/a/b' }), Q()],
    ['/apis/apps/v1/deployments', P({ apiGroup: 'apps', resource: 'deployments' }), Q()],
    ['/apis/apps/v1beta2/namespaces/x/replicasets/r/scale', P({ apiGroup: 'apps', apiVersion: 'v1beta2', resource: 'replicasets', namespace: 'x', name: 'r', subresource: 'scale' }), Q()],
    // the namespace object itself
    ['/api/v1/namespaces', P({ resource: 'namespaces' }), Q()],
    ['/api/v1/namespaces/kube-system', P({ resource: 'namespaces', name: 'kube-system' }), Q()],
    ['/api/v1/namespaces/kube-system/status', P({ resource: 'namespaces', name: 'kube-system', subresource: 'status' }), Q()],
    ['/api/v1/namespaces/kube-system/finalize', P({ resource: 'namespaces', name: 'kube-system', subresource: 'finalize' }), Q()],
    // a resource called status under a namespace is a resource, not the namespace's subresource
    ['/api/v1/namespaces/kube-system/status/x', P({ resource: 'status', namespace: 'kube-system', name: 'x' }), Q()],
    ['/api/v1/namespaces/kube-system/pods', P({ resource: 'pods', namespace: 'kube-system' }), Q()],
    // legacy prefixes
    ['/api/v1/watch/pods', P({ resource: 'pods', isLegacyWatch: true }), Q({ watch: true })],
    ['/api/v1/watch/namespaces/ns/pods/p1', P({ resource: 'pods', namespace: 'ns', name: 'p1', isLegacyWatch: true }), Q({ watch: true })],
    ['/api/v1/proxy/namespaces/ns/services/s', P({ resource: 'services', namespace: 'ns', name: 's' }), Q()],
    ['/api/v1/watch', NONE, Q()],
    ['/api/v1/proxy', NONE, Q()],
    // not resources
    ['/', NONE, Q()],
    ['', NONE, Q()],
    ['/api', NONE, Q()],
    ['/api/v1', NONE, Q()],
    ['/apis/apps/v1', NONE, Q()],
    ['/apis/apps', NONE, Q()],
    ['/healthz', NONE, Q()],
    ['/openapi/v2?timeout=32s', NONE, Q()],
    // converters that drop the leading slash, or write core/
    ['api/v1/pods', P({ resource: 'pods' }), Q()],
    ['core/v1/namespaces/ns/pods', P({ resource: 'pods', namespace: 'ns' }), Q()],
    ['/core/v1/pods', P({ resource: 'pods' }), Q()],
    ['core', NONE, Q()],
    // repeated slashes are one
    ['/api//v1/pods', P({ resource: 'pods' }), Q()],
    // %-escaped path segments are decoded, a bad one kept as it is
    ['/api/v1/namespaces/a%2Fb/pods/p%20q', P({ resource: 'pods', namespace: 'a/b', name: 'p q' }), Q()],
    ['/api/v1/namespaces/ns/pods/p%zz', P({ resource: 'pods', namespace: 'ns', name: 'p%zz' }), Q()],
    // the query
    ['/api/v1/pods?limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan', P({ resource: 'pods' }), Q({ limit: 500, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' })],
    ['/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&labelSelector=app%3Dx', P({ resource: 'pods' }), Q({ fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=x' })],
    ['/api/v1/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true', P({ resource: 'pods' }), Q({ watch: true, sendInitialEvents: true })],
    ['/api/v1/pods?continue=tok&limit=5', P({ resource: 'pods' }), Q({ continueToken: true, limit: 5 })],
    ['/api/v1/pods?&&limit=5&', P({ resource: 'pods' }), Q({ limit: 5 })],
    ['/api/v1/pods?=x&limit', P({ resource: 'pods' }), Q()],
    ['/api/v1/pods?', P({ resource: 'pods' }), Q()],
    ['/api/v1/pods?limit=5#frag', P({ resource: 'pods' }), Q({ limit: 5 })],
    ['/api/v1/pods?#limit=5', P({ resource: 'pods' }), Q()],
    ['/api/v1/watch/pods?watch=false', P({ resource: 'pods', isLegacyWatch: true }), Q({ watch: true })],
  ])('%s', (uri, path, query) => {
    const r = parseRequestUri(uri);
    expect(r.path).toEqual(path);
    expect(r.query).toEqual(query);
    expect(r.badEscape).toBe(false);
  });
});

describe('parseListQuery', () => {
  it.each<[string, ListQuery, boolean]>([
    ['', Q(), false],
    ['limit=5', Q({ limit: 5 }), false],
    // a '%' anywhere makes components with '%' or '+' decode; the others stay as they are
    ['labelSelector=a+b&fieldSelector=c%3Dd', Q({ labelSelector: 'a b', fieldSelector: 'c=d' }), false],
    ['labelSelector=a+b', Q({ labelSelector: 'a b' }), false],
    ['labelSelector=a%2Bb', Q({ labelSelector: 'a+b' }), false],
    ['fieldSelector=%zz&labelSelector=x', Q({ fieldSelector: '%zz', labelSelector: 'x' }), true],
    ['fieldSelector=a%zz%3Db', Q({ fieldSelector: 'a%zz=b' }), true],
    ['fieldSelector=%C3%28', Q({ fieldSelector: '\u00c3(' }), true],
    ['field%53elector=x', Q({ fieldSelector: 'x' }), false],
    ['field%zzSelector=x', Q(), true],
    ['label+Selector=x', Q(), false],
    ['resourceVersion=%35', Q({ resourceVersion: '5' }), false],
    ['resourceVersion=', Q({ resourceVersion: '' }), false],
    ['resourceVersion', Q({ resourceVersion: '' }), false],
    ['resourceVersionMatch=Exact&resourceVersionMatch=NotOlderThan', Q({ resourceVersionMatch: 'Exact' }), false],
    ['resourceVersionMatch=', Q({ resourceVersionMatch: '' }), false],
    ['limit=0&limit=-1&limit=x&limit=4&limit=9', Q({ limit: 4 }), false],
    ['limit=007', Q({ limit: 7 }), false],
    ['limit=5.9', Q({ limit: 5 }), false],
    ['limit=%205', Q({ limit: 5 }), false],
    ['limit=1e3', Q({ limit: 1 }), false],
    ['continue=', Q(), false],
    ['continue', Q(), false],
    ['continue=%00', Q({ continueToken: true }), false],
    ['continue=&continue=x', Q({ continueToken: true }), false],
    ['watch=TRUE', Q({ watch: true }), false],
    ['watch=fAlSe', Q(), false],
    ['watch=00', Q({ watch: true }), false],
    ['watch=f', Q({ watch: true }), false],
    ['watch=0&watch=1&sendInitialEvents=0&sendInitialEvents=1', Q(), false],
    ['sendInitialEvents', Q({ sendInitialEvents: true }), false],
    ['WATCH=true&Limit=5', Q(), false],
  ])('?%s', (qs, query, bad) => {
    expect(parseListQuery(qs)).toEqual({ query, badEscape: bad });
  });
});

describe('decodeQueryComponent', () => {
  it.each<[string, string, boolean]>([
    ['plain', 'plain', true],
    ['a+b', 'a b', true],
    ['a%20b', 'a b', true],
    ['a%2bb', 'a+b', true],
    ['%E2%82%AC', '€', true],
    ['%', '%', false],
    ['%4', '%4', false],
    ['%zz+x', '%zz x', false],
    ['%41%zz', 'A%zz', false],
    ['%FF', '\u00ff', false],
    ['', '', true],
    ['+a', ' a', true], // a '+' at the start is a space too
    ['%41', 'A', true], // and an escape at the start is decoded
  ])('%j → %j', (s, value, ok) => {
    expect(decodeQueryComponent(s)).toEqual({ value, ok });
  });
});

describe('edges of the path and the query', () => {
  it('an escaped legacy /watch/ prefix is a watch, through the shortcut too', () => {
    expect(parseRequestQuery('/api/v1/%77atch/pods').watch).toBe(true);
    expect(parseRequestUri('/api/v1/%77atch/pods').path).toMatchObject({ resource: 'pods', isLegacyWatch: true });
  });
  it('a segment that starts with an escape is decoded', () => {
    expect(parseRequestUri('/api/v1/namespaces/%6bube-system/pods').path).toMatchObject({ namespace: 'kube-system', resource: 'pods' });
  });
  it('a query at the very start of the URI is still the query', () => {
    expect(parseRequestUri('?limit=5').query.limit).toBe(5);
    expect(parseRequestUri('?limit=5').path.isResourceRequest).toBe(false);
  });
  it('a query that starts with an escape, and a value that starts with +, are decoded', () => {
    expect(parseListQuery('%6Cimit=5').query.limit).toBe(5);
    expect(parseListQuery('labelSelector=+a&limit=1').query.labelSelector).toBe(' a');
  });
  it.each(['/foo/v1/pods', '/healthz/etcd/x', '/core', '/api', '/apis/apps', '/apis/apps/v1', '/api/v1/watch'])('%s is no resource request', (uri) => {
    expect(parseRequestUri(uri).path.isResourceRequest).toBe(false);
  });
  it('/core/v1/… (no /api) is the core group, as the Stackdriver bridge writes it', () => {
    expect(parseRequestUri('/core/v1/namespaces/a/pods').path).toMatchObject({ isResourceRequest: true, apiGroup: '', apiVersion: 'v1', namespace: 'a', resource: 'pods' });
  });
  it('the namespaces list, one namespace, its status, and a resource in it', () => {
    expect(parseRequestUri('/api/v1/namespaces').path).toMatchObject({ resource: 'namespaces', namespace: '', name: '', subresource: '' });
    expect(parseRequestUri('/api/v1/namespaces/a').path).toMatchObject({ resource: 'namespaces', namespace: '', name: 'a', subresource: '' });
    expect(parseRequestUri('/api/v1/namespaces/a/finalize').path).toMatchObject({ resource: 'namespaces', namespace: '', name: 'a', subresource: 'finalize' });
    expect(parseRequestUri('/api/v1/namespaces/a/pods/p/log').path).toMatchObject({ resource: 'pods', namespace: 'a', name: 'p', subresource: 'log' });
    expect(parseRequestUri('/api/v1/namespaces/a/pods/p').path).toMatchObject({ name: 'p', subresource: '' });
  });
});

describe('parseRequestQuery: the shortcut for a known objectRef equals the full parse', () => {
  it.each([
    '/api/v1/pods?limit=500&resourceVersion=0',
    '/api/v1/pods',
    '/api/v1/watch/pods?resourceVersion=5',
    '/apis/apps/v1/watch/namespaces/a/deployments?watch=false',
    '/api/v1/namespaces/a%2Fb/pods?watch=1',
    '/api/v1/namespaces/a/pods?x=%2Fwatch',
    '/api/v1/namespaces/a/pods?x=/watch',
    'core/v1/pods?limit=5',
    'api/v1/watch/pods',
    '?limit=5',
    '/api/v1/pods?fieldSelector=spec.nodeName%3Dn#x',
    '/api/v1/namespaces/watchers/pods?limit=5',
    '/api/v1/%77atch/pods',
  ])('%s', (uri) => {
    expect(parseRequestQuery(uri)).toEqual(parseRequestUri(uri).query);
  });
});
