import { describe, expect, it } from 'vitest';
import { describeSelectors, parseTerm } from '../../src/model/selector.js';

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

describe('selector terms and placeholders, one case each', () => {
  it.each([
    ['a in (x, y)', { key: 'a', op: 'in', value: '(x,y)' }],
    ['a notin (x,y)', { key: 'a', op: 'notin', value: '(x,y)' }],
    ['a!=b', { key: 'a', op: '!=', value: 'b' }],
    ['a == b', { key: 'a', op: '=', value: 'b' }],
    ['a=b', { key: 'a', op: '=', value: 'b' }],
    ['a=', { key: 'a', op: '=', value: '' }],
    ['!a', { key: 'a', op: '!exists', value: '' }],
    ['! a', { key: 'a', op: '!exists', value: '' }],
    ['a', { key: 'a', op: 'exists', value: '' }],
    ['=b', { key: '=b', op: 'exists', value: '' }],
    ['a in x)', { key: 'a in x)', op: 'exists', value: '' }],
  ])('parseTerm(%j)', (t, want) => {
    expect(parseTerm(t)).toEqual(want);
  });

  it.each([
    ['spec.nodeName=n', 'spec.nodeName=<node>'],
    ['metadata.name=x', 'metadata.name=<name>'],
    ['metadata.namespace=x', 'metadata.namespace=<namespace>'],
    ['metadata.uid=x', 'metadata.uid=<uid>'],
    ['involvedObject.name=x', 'involvedObject.name=<name>'],
    ['involvedObject.namespace=x', 'involvedObject.namespace=<namespace>'],
    ['involvedObject.uid=x', 'involvedObject.uid=<uid>'],
    ['regarding.name=x', 'regarding.name=<name>'],
    ['regarding.uid=x', 'regarding.uid=<uid>'],
    ['status.podIP=10.0.0.1', 'status.podIP=<ip>'],
    ['spec.nominatedNodeName=n', 'spec.nominatedNodeName=<node>'],
    ['status.nominatedNodeName=n', 'status.nominatedNodeName=<node>'],
    ['spec.signerName=kubernetes.io/kubelet-serving', 'spec.signerName=<signer>'],
    ['status.phase=Running', 'status.phase=Running'],
    ['spec.nodeName!=n', 'spec.nodeName!=n'],
    ['x=0B7C3A9E-1111-4222-8333-444455556666', 'x=<uid>'],
    ['x!=0b7c3a9e-1111-4222-8333-444455556666', 'x!=<uid>'],
    ['x=0b7c3a9e-1111-4222-8333-44445555666', 'x=0b7c3a9e-1111-4222-8333-44445555666'],
  ])('field %s → %s', (f, shape) => {
    expect(describeSelectors(f, null).shape).toBe(shape);
  });

  it.each([
    ['kubernetes.io/hostname=n', 'labels(kubernetes.io/hostname=<node>)'],
    ['statefulset.kubernetes.io/pod-name=web-0', 'labels(statefulset.kubernetes.io/pod-name=<name>)'],
    ['apps.kubernetes.io/pod-index=3', 'labels(apps.kubernetes.io/pod-index=<index>)'],
    ['controller-uid=x', 'labels(controller-uid=<uid>)'],
    ['batch.kubernetes.io/controller-uid=x', 'labels(batch.kubernetes.io/controller-uid=<uid>)'],
    ['job-name=j', 'labels(job-name=<name>)'],
    ['batch.kubernetes.io/job-name=j', 'labels(batch.kubernetes.io/job-name=<name>)'],
    ['pod-template-hash=abc', 'labels(pod-template-hash=<hash>)'],
    ['controller-revision-hash=abc', 'labels(controller-revision-hash=<hash>)'],
    ['pod-template-generation=4', 'labels(pod-template-generation=<n>)'],
    ['app=web', 'labels(app=web)'],
    ['tier in (b,a),app', 'labels(app,tier in (b,a))'],
  ])('label %s → %s', (l, shape) => {
    expect(describeSelectors(null, l).shape).toBe(shape);
  });

  it('a hostname label names the node only when no field selector did', () => {
    expect(describeSelectors('spec.nodeName=a', 'kubernetes.io/hostname=b').node).toBe('a');
    expect(describeSelectors(null, 'kubernetes.io/hostname=b').node).toBe('b');
    expect(describeSelectors('spec.nodeName!=a', null).node).toBeNull();
  });

  it('a selector of spaces is no selector; terms split on commas outside parentheses only', () => {
    expect(describeSelectors('  ', ' ')).toMatchObject({ shape: '', hasFieldSelector: false, hasLabelSelector: false });
    expect(describeSelectors(null, 'a in (x,y),b,c notin (z)').shape).toBe('labels(a in (x,y),b,c notin (z))');
    // an unbalanced ) does not make the depth negative: the comma after it still splits
    expect(describeSelectors(null, 'a),b').shape).toBe('labels(a),b)');
  });
});
