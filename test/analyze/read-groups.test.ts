// Read groups: what makes two reads one group, what a group counts, and the status-code classes.
import { describe, expect, it } from 'vitest';
import { querySignature, userPattern } from '../../src/aggregate/read-groups.js';
import { auditLine, runCli } from '../support.js';

const scan = async (lines: string[]) => JSON.parse((await runCli(['-o', 'json', '--kube-version', '1.30', '--top', '50', '-'], lines.join('\n') + '\n')).stdout);
const list = (id: string, f: Record<string, unknown>) => auditLine({ auditID: id, requestURI: '/api/v1/pods?resourceVersion=0', ...f });

describe('read groups', () => {
  it('every kubelet is one user; other usernames stay as they are', () => {
    expect(userPattern('system:node:ip-10-0-0-1')).toBe('system:node:<node>');
    expect(userPattern('system:nodes')).toBe('system:nodes');
    expect(userPattern('alice')).toBe('alice');
  });

  it('querySignature gives back a query that classifies the same: rv class, match, limit, continue, watch-list', () => {
    expect(querySignature('|NotOlderThan|1|0|0')).toEqual({ fieldSelector: null, labelSelector: null, resourceVersion: null, resourceVersionMatch: 'NotOlderThan', limit: 500, continueToken: false, watch: false, sendInitialEvents: false });
    expect(querySignature('0||0|1|1')).toMatchObject({ resourceVersion: '0', resourceVersionMatch: null, limit: 0, continueToken: true, sendInitialEvents: true });
    expect(querySignature('N|Exact|0|0|0')).toMatchObject({ resourceVersion: '1', resourceVersionMatch: 'Exact' });
  });

  it('one group per user agent, user, resource, group, scope and selector shape; namespaces and nodes are counted in it', async () => {
    const r = await scan([
      list('a1', { requestURI: '/api/v1/namespaces/x/pods?resourceVersion=0', objectRef: { resource: 'pods', namespace: 'x' }, user: { username: 'system:node:n1' } }),
      list('a2', { requestURI: '/api/v1/namespaces/y/pods?resourceVersion=0', objectRef: { resource: 'pods', namespace: 'y' }, user: { username: 'system:node:n2' } }),
      list('a3', { requestURI: '/api/v1/namespaces/y/pods?resourceVersion=0', objectRef: { resource: 'pods', namespace: 'y' }, user: { username: 'system:node:n2' } }),
      list('b1', { objectRef: { resource: 'pods' } }),
      list('c1', { objectRef: { resource: 'pods' }, userAgent: 'ua/2' }),
      list('d1', { objectRef: { resource: 'pods', apiGroup: 'metrics.k8s.io' }, requestURI: '/apis/metrics.k8s.io/v1beta1/pods' }),
      list('e1', { objectRef: { resource: 'pods' }, requestURI: '/api/v1/pods?resourceVersion=0&labelSelector=app%3Dx' }),
    ]);
    const rows = r.listGroups.map((g: any) => [g.userAgent, g.username, g.apiGroup, g.namespace, g.namespaces, g.nodes, g.selector, g.requests]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['ua/1', 'system:node:<node>', '', '*', 2, 2, '', 3],
        ['ua/1', 'u', '', null, 0, 0, '', 1],
        ['ua/2', 'u', '', null, 0, 0, '', 1],
        ['ua/1', 'u', 'metrics.k8s.io', null, 0, 0, '', 1],
        ['ua/1', 'u', '', null, 0, 0, 'labels(app=x)', 1],
      ]),
    );
    expect(rows).toHaveLength(5);
    expect(r.listGroups.find((g: any) => g.namespace === '*').firstSeen).toBe('2026-01-01T00:00:00.000Z');
  });

  it('a group in one namespace names it', async () => {
    const r = await scan([list('n1', { requestURI: '/api/v1/namespaces/shop/pods?resourceVersion=0', objectRef: { resource: 'pods', namespace: 'shop' } })]);
    expect(r.listGroups[0]).toMatchObject({ namespace: 'shop', namespaces: 1 });
  });

  it('status codes by class: 2xx, 429 on its own, 4xx, 5xx, none, and any other code as it is', async () => {
    const codes = [200, 201, 429, 404, 403, 500, 503, 301, null];
    const r = await scan(codes.map((c, i) => list(`s${i}`, { objectRef: { resource: 'pods' }, responseStatus: c === null ? undefined : { code: c } })));
    expect(r.listGroups[0].codes).toEqual({ '2xx': 2, '4xx': 2, '5xx': 2, '301': 1, '429': 1, none: 1 });
  });

  it('returned items: the mean over the responses that showed them', async () => {
    const withItems = (id: string, n: number) => list(id, { level: 'RequestResponse', objectRef: { resource: 'pods' }, responseObject: { kind: 'PodList', metadata: {}, items: Array.from({ length: n }, () => ({})) } });
    const r = await scan([withItems('i1', 3), withItems('i2', 4), list('i3', { objectRef: { resource: 'pods' } })]);
    expect(r.listGroups[0]).toMatchObject({ requests: 3, objectsReturnedPerRequest: 3.5, figureSources: { objectsReturned: 'audit-response' } });
  });
});
