// ReadGroups directly: each field of a group, the status-code classes, signatures for every resourceVersion
// and match, merging two threads' groups, folding past the cap, and the shared series budget.
import { describe, expect, it } from 'vitest';
import { ReadGroups, signatureOf, querySignature, MAX_SET_PER_GROUP, UNKNOWN_SIGNATURE } from '../../src/aggregate/read-groups.js';
import type { AuditEvent } from '../../src/model/audit-event.js';
import type { ListQuery } from '../../src/decode/request-uri.js';
import { describeSelectors } from '../../src/model/selector.js';

const Q = (q: Partial<ListQuery> = {}): ListQuery => ({ fieldSelector: null, labelSelector: null, resourceVersion: null, resourceVersionMatch: null, limit: 0, continueToken: false, watch: false, sendInitialEvents: false, ...q });
const T = Date.UTC(2026, 10, 30, 12);
function ev(f: Partial<AuditEvent> = {}): AuditEvent {
  return { auditID: 'a', stage: 'ResponseComplete', level: 'Metadata', verb: 'list', requestURI: '/api/v1/pods', username: 'system:serviceaccount:v:v', userAgent: 'vector/1', nodeName: null, resource: 'pods', apiGroup: '', namespace: '', name: '', subresource: '', code: 200, receivedMs: T, stageMs: T + 5, returnedItems: null, remainingItems: null, tokenExpirationSeconds: null, leaseHolder: null, queryKnown: true, etcdLatencyMs: null, apfQueueWaitMs: null, ...f };
}
const add = (g: ReadGroups, f: Partial<AuditEvent> = {}, q: Partial<ListQuery> = {}, ns = '', node: string | null = null) => {
  const e = ev(f);
  const query = Q(q);
  g.add(e, e.resource, e.apiGroup, ns, query, describeSelectors(query.fieldSelector, query.labelSelector), node);
};

describe('signatures', () => {
  it.each<[Partial<ListQuery>, string]>([
    [{}, '||0|0|0'],
    [{ resourceVersion: '' }, '||0|0|0'],
    [{ resourceVersion: '0' }, '0||0|0|0'],
    [{ resourceVersion: '17' }, 'N||0|0|0'],
    [{ resourceVersionMatch: '' }, '||0|0|0'],
    [{ resourceVersionMatch: 'NotOlderThan' }, '|NotOlderThan|0|0|0'],
    [{ resourceVersionMatch: 'Exact', resourceVersion: '5' }, 'N|Exact|0|0|0'],
    [{ resourceVersionMatch: 'Newest' }, '|Newest|0|0|0'],
    [{ limit: 500 }, '||1|0|0'],
    [{ continueToken: true }, '||0|1|0'],
    [{ sendInitialEvents: true }, '||0|0|1'],
    [{ limit: 1, continueToken: true, sendInitialEvents: true, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }, '0|NotOlderThan|1|1|1'],
  ])('%j → %s, and back', (q, sig) => {
    expect(signatureOf(Q(q))).toBe(sig);
    expect(signatureOf(querySignature(sig))).toBe(sig);
  });
  it('the same signature is the same string instance (built once)', () => {
    expect(signatureOf(Q({ limit: 5 }))).toBe(signatureOf(Q({ limit: 9 })));
  });
});

describe('a group, field by field', () => {
  it('counts requests, signatures, nodes, namespaces, times, returned items and code classes', () => {
    const g = new ReadGroups();
    add(g, { receivedMs: T + 2000, code: 200 }, { resourceVersion: '0' }, 'a', 'n1');
    add(g, { receivedMs: T, code: 429, returnedItems: 10 }, {}, 'b', 'n2');
    add(g, { receivedMs: T + 1000, code: 404, returnedItems: 30 }, {}, 'a', 'n1');
    add(g, { receivedMs: null, code: 503 }, {}, 'a', null);
    add(g, { code: null }, {}, 'a', null);
    add(g, { code: 302 }, {}, 'a', null);
    add(g, { code: 199 }, {}, 'a', null);
    add(g, { code: 299 }, {}, 'a', null);
    add(g, { code: 300 }, {}, 'a', null);
    add(g, { code: 400 }, {}, 'a', null);
    add(g, { code: 499 }, {}, 'a', null);
    add(g, { code: 500 }, {}, 'a', null);
    expect(g.groups.size).toBe(1);
    const x = [...g.groups.values()][0]!;
    expect({ ...x, signatures: Object.fromEntries(x.signatures), nodes: [...x.nodes], namespaces: [...x.namespaces], codes: Object.fromEntries(x.codes), series: undefined, marks: undefined }).toEqual({
      key: 'list\u0000vector/1\u0000system:serviceaccount:v:v\u0000\u0000pods\u0000namespaced\u0000',
      verb: 'list',
      watchLists: 0,
      // the one 429 (at T, no message): rejected, not served; no watch cache said it was initialising
      rejected: new Map([['||0|0|0', 1]]),
      initRejected: 0,
      marks: undefined,
      userAgent: 'vector/1',
      username: 'system:serviceaccount:v:v',
      apiGroup: '',
      resource: 'pods',
      scope: 'namespaced',
      selector: '',
      singleName: false,
      singleNamespace: false,
      requests: 12,
      signatures: { '0||0|0|0': 1, '||0|0|0': 11 },
      nodes: ['n1', 'n2'],
      namespaces: ['a', 'b'],
      setOverflow: 0,
      firstMs: T,
      lastMs: T + 2000,
      returnedSum: 40,
      returnedN: 2,
      returnedMax: 30,
      codes: { '2xx': 2, '429': 1, '4xx': 3, '5xx': 2, none: 1, '302': 1, '199': 1, '300': 1 },
      series: undefined,
      // final stage 5 ms after T: the request received at T and the 8 with the default time take 5 ms (bucket 50);
      // the two received after their final stage (a clock step) count as 0; the one with no received time not at all
      latency: { buckets: new Map([[0, 2], [50, 9]]), n: 11, min: 0, max: 5 },
      etcdLatency: { buckets: new Map(), n: 0, min: Infinity, max: 0 },
      apfWait: { buckets: new Map(), n: 0, min: Infinity, max: 0 },
      sampleUri: '/api/v1/pods',
      sampleMs: T,
    });
    expect(x.series.total()).toBe(11);
  });

  it('a kubelet is one user; the scope, group and selector shape split groups; single-object selectors are flagged', () => {
    const g = new ReadGroups();
    add(g, { username: 'system:node:n1' }, { fieldSelector: 'spec.nodeName=n1' });
    add(g, { username: 'system:node:n2' }, { fieldSelector: 'spec.nodeName=n2' });
    add(g, {}, {}, 'ns');
    add(g, { apiGroup: 'metrics.k8s.io' });
    add(g, {}, { fieldSelector: 'metadata.name=x' });
    add(g, {}, { fieldSelector: 'metadata.namespace=y' });
    add(g, { verb: 'get' });
    add(g, {}, { labelSelector: 'app=x' });
    const rows = [...g.groups.values()].map((x) => [x.verb, x.username, x.apiGroup, x.scope, x.selector, x.requests, x.singleName, x.singleNamespace]);
    expect(rows).toEqual([
      ['list', 'system:node:<node>', '', 'cluster', 'spec.nodeName=<node>', 2, false, false],
      ['list', 'system:serviceaccount:v:v', '', 'namespaced', '', 1, false, false],
      ['list', 'system:serviceaccount:v:v', 'metrics.k8s.io', 'cluster', '', 1, false, false],
      ['list', 'system:serviceaccount:v:v', '', 'cluster', 'metadata.name=<name>', 1, true, false],
      ['list', 'system:serviceaccount:v:v', '', 'cluster', 'metadata.namespace=<namespace>', 1, false, true],
      ['get', 'system:serviceaccount:v:v', '', 'cluster', '', 1, false, false],
      ['list', 'system:serviceaccount:v:v', '', 'cluster', 'labels(app=x)', 1, false, false],
    ]);
  });

  it('reads without their query (GKE) get the unknown signature', () => {
    const g = new ReadGroups();
    add(g, { queryKnown: false }, { resourceVersion: '0' });
    expect(Object.fromEntries([...g.groups.values()][0]!.signatures)).toEqual({ [UNKNOWN_SIGNATURE]: 1 });
  });

  it('past the set cap only the overflow count grows', () => {
    const g = new ReadGroups();
    for (let i = 0; i < MAX_SET_PER_GROUP + 3; i++) add(g, { username: `system:node:n${i}` }, {}, `ns${i % 2}`, `n${i}`);
    const x = [...g.groups.values()][0]!;
    expect([x.nodes.size, x.namespaces.size, x.setOverflow, x.requests]).toEqual([MAX_SET_PER_GROUP, 2, 3, MAX_SET_PER_GROUP + 3]);
  });
});

describe('a group: the edges of each field', () => {
  it('the largest returned count whatever the order; the sample is the earliest request, ties to the smaller URI', () => {
    const g = new ReadGroups();
    add(g, { receivedMs: T + 5, returnedItems: 30, requestURI: '/api/v1/pods?b' });
    add(g, { receivedMs: T + 5, returnedItems: 10, requestURI: '/api/v1/pods?a' });
    add(g, { receivedMs: T + 9, requestURI: '/api/v1/pods?0' });
    add(g, { receivedMs: null, requestURI: '/' });
    const x = [...g.groups.values()][0]!;
    expect([x.returnedMax, x.sampleMs, x.sampleUri]).toEqual([30, T + 5, '/api/v1/pods?a']);
    const h = new ReadGroups();
    add(h, { receivedMs: T + 5, requestURI: '/api/v1/pods?a' });
    add(h, { receivedMs: T + 5, requestURI: '/api/v1/pods?b' });
    add(h, { receivedMs: T + 1, requestURI: '/api/v1/pods?z' });
    expect([...h.groups.values()][0]!.sampleUri).toBe('/api/v1/pods?z');
  });

  it('the etcd and APF-wait annotations, where the events carry them', () => {
    const g = new ReadGroups();
    add(g, { etcdLatencyMs: 512.3, apfQueueWaitMs: 2.5 });
    add(g, {});
    const x = [...g.groups.values()][0]!;
    expect([x.etcdLatency.n, x.etcdLatency.max, x.apfWait.n, x.apfWait.max, x.latency.n]).toEqual([1, 512.3, 1, 2.5, 2]);
  });

  it('a full set takes a value it holds again without counting an overflow', () => {
    const g = new ReadGroups();
    for (let i = 0; i < MAX_SET_PER_GROUP; i++) add(g, {}, {}, '', `n${i}`);
    add(g, {}, {}, '', 'n0');
    add(g, {}, {}, '', 'new');
    expect([...g.groups.values()][0]!.setOverflow).toBe(1);
  });

  it('the shared series budget is checked as requests come, every 65,536, not only at the end', () => {
    const g = new ReadGroups(50_000, 1000, 10_000);
    // 100 groups × 700 requests in distinct seconds: 70,000 buckets, past the budget of 10,000
    for (let i = 0; i < 70_000; i++) add(g, { userAgent: `ua${i % 100}`, receivedMs: T + i * 1000 });
    expect([...g.groups.values()][0]!.series.widthMs).toBeGreaterThan(1000);
  });

  it('a budget met exactly is kept: no coarsening at 12 buckets of 12', () => {
    const g = new ReadGroups(50_000, 1000, 12);
    for (let i = 0; i < 6; i++) add(g, { userAgent: 'a', receivedMs: T + i * 1000 });
    for (let i = 0; i < 6; i++) add(g, { userAgent: 'b', receivedMs: T + i * 1000 });
    g.checkSeriesBudget();
    expect([...g.groups.values()].map((x) => x.series.widthMs)).toEqual([1000, 1000]);
  });
});

describe('merging two threads', () => {
  it('keeps the earlier first, the later last and the earlier sample, whichever side holds them', () => {
    /** one group's events on each side; the left side after merging the right into it */
    const merged = (left: Array<Partial<AuditEvent>>, right: Array<Partial<AuditEvent>>) => {
      const a = new ReadGroups();
      const b = new ReadGroups();
      for (const f of left) add(a, f);
      for (const f of right) add(b, f);
      a.merge(b.groups);
      return [...a.groups.values()][0]!;
    };
    const x = merged([{ receivedMs: T, requestURI: '/api/v1/pods?a' }, { receivedMs: T + 9000 }], [{ receivedMs: T + 5, requestURI: '/api/v1/pods?0' }, { receivedMs: T + 50 }]);
    expect([x.firstMs, x.lastMs, x.sampleMs, x.sampleUri]).toEqual([T, T + 9000, T, '/api/v1/pods?a']);
    // and the other way: the merged side holds the outer times and the sample
    const y = merged([{ receivedMs: T + 100, requestURI: '/api/v1/pods?c' }], [{ receivedMs: T, requestURI: '/api/v1/pods?d' }, { receivedMs: T + 200 }]);
    expect([y.firstMs, y.lastMs, y.sampleMs, y.sampleUri]).toEqual([T, T + 200, T, '/api/v1/pods?d']);
    // a tie in time: the smaller URI, from either side
    expect(merged([{ receivedMs: T, requestURI: '/api/v1/pods?b' }], [{ receivedMs: T, requestURI: '/api/v1/pods?a' }]).sampleUri).toBe('/api/v1/pods?a');
    expect(merged([{ receivedMs: T, requestURI: '/api/v1/pods?a' }, { receivedMs: T, requestURI: '/api/v1/pods?c' }], [{ receivedMs: T, requestURI: '/api/v1/pods?b' }]).sampleUri).toBe('/api/v1/pods?a');
  });

  it('set overflows of both sides add up', () => {
    const a = new ReadGroups();
    const b = new ReadGroups();
    for (let i = 0; i < MAX_SET_PER_GROUP + 1; i++) add(a, {}, {}, '', `a${i}`);
    for (let i = 0; i < MAX_SET_PER_GROUP + 2; i++) add(b, {}, {}, '', `b${i}`);
    a.merge(b.groups);
    // 1 + 2 overflowed, then b's 100,000 kept names find a full set
    expect([...a.groups.values()][0]!.setOverflow).toBe(3 + MAX_SET_PER_GROUP);
  });

  it('adds counts and keeps the outer times, the largest returned, every node and namespace', () => {
    const a = new ReadGroups();
    const b = new ReadGroups();
    add(a, { receivedMs: T + 1000, returnedItems: 5, code: 200 }, {}, 'x', 'n1');
    add(b, { receivedMs: T, returnedItems: 9, code: 500 }, { limit: 5 }, 'y', 'n2');
    add(b, { receivedMs: T + 3000, code: 200 }, {}, 'x', 'n1');
    add(b, { resource: 'secrets' });
    a.merge(b.groups, { groups: 2, requests: new Map([['list', 7]]), maxFolded: 4 });
    const pods = [...a.groups.values()].find((x) => x.resource === 'pods')!;
    expect([pods.requests, Object.fromEntries(pods.signatures), [...pods.nodes].sort(), [...pods.namespaces].sort(), pods.firstMs, pods.lastMs, pods.returnedSum, pods.returnedN, pods.returnedMax, Object.fromEntries(pods.codes), pods.series.total()]).toEqual([
      3,
      { '||0|0|0': 2, '||1|0|0': 1 },
      ['n1', 'n2'],
      ['x', 'y'],
      T,
      T + 3000,
      14,
      2,
      9,
      { '2xx': 2, '5xx': 1 },
      3,
    ]);
    expect(a.groups.size).toBe(2);
    expect([a.overflow.groups, Object.fromEntries(a.overflow.requests), a.overflow.maxFolded]).toEqual([2, { list: 7 }, 4]);
    a.merge(new Map(), { groups: 1, requests: new Map([['list', 1], ['get', 2]]), maxFolded: 2 });
    expect([a.overflow.groups, Object.fromEntries(a.overflow.requests), a.overflow.maxFolded]).toEqual([3, { list: 8, get: 2 }, 4]);
  });
  it('a side without times leaves the other side\'s', () => {
    const a = new ReadGroups();
    const b = new ReadGroups();
    add(a, { receivedMs: null });
    add(b, { receivedMs: T });
    a.merge(b.groups);
    const x = [...a.groups.values()][0]!;
    expect([x.firstMs, x.lastMs]).toEqual([T, T]);
    const c = new ReadGroups();
    add(c, { receivedMs: null });
    b.merge(c.groups);
    expect([[...b.groups.values()][0]!.firstMs, [...b.groups.values()][0]!.lastMs]).toEqual([T, T]);
  });
  it('set overflows add up, and merged sets keep the cap', () => {
    const a = new ReadGroups();
    const b = new ReadGroups();
    for (let i = 0; i < MAX_SET_PER_GROUP + 1; i++) add(a, {}, {}, '', `a${i}`);
    for (let i = 0; i < 5; i++) add(b, {}, {}, '', `b${i}`);
    a.merge(b.groups);
    const x = [...a.groups.values()][0]!;
    expect([x.nodes.size, x.setOverflow]).toEqual([MAX_SET_PER_GROUP, 6]);
  });
});

describe('the group cap', () => {
  it('folds the smaller half into overflow, by requests then key, whatever the order groups came in', () => {
    const g = new ReadGroups(4);
    // in: ua-c 2, ua-d 5, ua-b 2, ua-a 2 requests; the two smallest are the ties ua-a and ua-b (by key)
    for (const [ua, n] of [['ua-c', 2], ['ua-d', 5], ['ua-b', 2], ['ua-a', 2]] as const) for (let k = 0; k < n; k++) add(g, { userAgent: ua });
    add(g, { userAgent: 'ua-z', verb: 'get' }); // a fifth group: the cap folds first
    expect([...g.groups.values()].map((x) => [x.userAgent, x.requests]).sort()).toEqual([['ua-c', 2], ['ua-d', 5], ['ua-z', 1]]);
    expect([g.overflow.groups, Object.fromEntries(g.overflow.requests), g.overflow.maxFolded]).toEqual([2, { list: 4 }, 2]);
  });
  it('merging past the cap folds too', () => {
    const a = new ReadGroups(2);
    const b = new ReadGroups(2);
    add(a, { userAgent: 'x' });
    add(a, { userAgent: 'x' });
    add(b, { userAgent: 'y' });
    add(b, { userAgent: 'z' });
    a.merge(b.groups);
    expect(a.groups.size).toBe(2);
    expect(a.overflow.groups).toBe(1);
  });
});

describe('the shared series budget', () => {
  it('coarsens every group together when their buckets together pass it', () => {
    const g = new ReadGroups(50_000, 1000, 10);
    for (let i = 0; i < 6; i++) add(g, { userAgent: 'a', receivedMs: T + i * 1000 });
    for (let i = 0; i < 6; i++) add(g, { userAgent: 'b', receivedMs: T + i * 1000 });
    g.checkSeriesBudget();
    const widths = [...g.groups.values()].map((x) => x.series.widthMs);
    expect(widths).toEqual([2000, 2000]);
    expect([...g.groups.values()].map((x) => x.series.total())).toEqual([6, 6]);
    // a new group starts at the coarser width
    add(g, { userAgent: 'c', receivedMs: T });
    expect([...g.groups.values()].find((x) => x.userAgent === 'c')!.series.widthMs).toBe(2000);
  });
});
