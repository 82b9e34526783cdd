import { describe, expect, it } from 'vitest';
import { describeSelectors } from '../../src/model/selector.js';

describe('describeSelectors', () => {
  const cases: Array<[string | null, string | null, string, Partial<ReturnType<typeof describeSelectors>>]> = [
    [null, null, '', { node: null }],
    ['spec.nodeName=node-1', null, 'spec.nodeName=<node>', { node: 'node-1' }],
    ['spec.nodeName==node-1', null, 'spec.nodeName=<node>', { node: 'node-1' }],
    ['spec.nodeName=', null, 'spec.nodeName=', { node: null }],
    ['metadata.name=cm-1', null, 'metadata.name=<name>', { singleName: 'cm-1' }],
    ['metadata.namespace=ns1', null, 'metadata.namespace=<namespace>', { singleNamespace: 'ns1' }],
    ['metadata.namespace!=kube-system', null, 'metadata.namespace!=kube-system', { singleNamespace: null }],
    ['status.phase!=Succeeded,spec.nodeName=n', null, 'spec.nodeName=<node>,status.phase!=Succeeded', { node: 'n' }],
    ['spec.nodeName=n,status.phase!=Succeeded', null, 'spec.nodeName=<node>,status.phase!=Succeeded', { node: 'n' }],
    ['involvedObject.uid=0b7c3a9e-1111-4222-8333-444455556666', null, 'involvedObject.uid=<uid>', {}],
    [null, 'app=nginx', 'labels(app=nginx)', {}],
    [null, 'app in (b,a), tier', 'labels(app in (b,a),tier)', {}],
    [null, '!canary,controller-uid=0b7c3a9e-1111-4222-8333-444455556666', 'labels(!canary,controller-uid=<uid>)', {}],
    [null, 'kubernetes.io/hostname=node-9', 'labels(kubernetes.io/hostname=<node>)', { node: 'node-9' }],
    ['spec.nodeName=n', 'app=x', 'spec.nodeName=<node> labels(app=x)', { node: 'n', hasFieldSelector: true, hasLabelSelector: true }],
  ];
  it.each(cases)('field %s label %s → %s', (f, l, shape, extra) => {
    const r = describeSelectors(f, l);
    expect(r.shape).toBe(shape);
    expect(r).toMatchObject(extra);
  });

  it('gives one shape to every node of a DaemonSet', () => {
    const shapes = new Set(Array.from({ length: 64 }, (_, i) => describeSelectors(`spec.nodeName=ip-10-0-${i}-1`, null).shape));
    expect([...shapes]).toEqual(['spec.nodeName=<node>']);
  });

  it('gives the same answers from its memo, also after 10,000 distinct selectors pushed old ones out', () => {
    const first = describeSelectors('spec.nodeName=n0', 'app in (a, b)');
    for (let i = 0; i < 10_000; i++) {
      const s = describeSelectors(`spec.nodeName=n${i}`, null);
      expect(s.node).toBe(`n${i}`);
      expect(s.shape).toBe('spec.nodeName=<node>');
    }
    const again = describeSelectors('spec.nodeName=n0', 'app in (a, b)');
    expect(again).toEqual(first);
    expect(again).toMatchObject({ node: 'n0', shape: 'spec.nodeName=<node> labels(app in (a,b))', hasLabelSelector: true });
    // null and "" are different inputs: no selector, and an empty one
    expect(describeSelectors(null, '')).toEqual({ shape: '', node: null, singleName: null, singleNamespace: null, hasFieldSelector: false, hasLabelSelector: false });
    expect(describeSelectors('', null).hasFieldSelector).toBe(false);
    // Selectors may hold any character: these two pairs must not share a memo entry.
    expect(describeSelectors('spec.nodeName=a\u0000b', null).node).toBe('a\u0000b');
    expect(describeSelectors('spec.nodeName=a', 'b\u0000\u0001').node).toBe('a');
  });
});
