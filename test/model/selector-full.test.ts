// Selector shapes with every field asserted: each placeholder key written out (a key dropped from the code's
// table fails here), the operators, the splitting, the node and single-object values, and the memo.
import { describe, expect, it } from 'vitest';
import { describeSelectors, parseTerm, type SelectorInfo } from '../../src/model/selector.js';

const S = (f: Partial<SelectorInfo>): SelectorInfo => ({ shape: '', node: null, singleName: null, singleNamespace: null, hasFieldSelector: false, hasLabelSelector: false, ...f });

describe('field selector placeholders', () => {
  it.each([
    ['spec.nodeName', '<node>'],
    ['metadata.name', '<name>'],
    ['metadata.namespace', '<namespace>'],
    ['metadata.uid', '<uid>'],
    ['involvedObject.name', '<name>'],
    ['involvedObject.namespace', '<namespace>'],
    ['involvedObject.uid', '<uid>'],
    ['regarding.name', '<name>'],
    ['regarding.uid', '<uid>'],
    ['status.podIP', '<ip>'],
    ['spec.nominatedNodeName', '<node>'],
    ['status.nominatedNodeName', '<node>'],
    ['spec.signerName', '<signer>'],
  ])('%s=x → %s=%s', (key, ph) => {
    expect(describeSelectors(`${key}=x`, null).shape).toBe(`${key}=${ph}`);
    // only for equality: != keeps the value
    expect(describeSelectors(`${key}!=x`, null).shape).toBe(`${key}!=x`);
  });
  it('other keys keep their value; a UUID value becomes <uid> for = and !=', () => {
    expect(describeSelectors('status.phase=Running', null).shape).toBe('status.phase=Running');
    expect(describeSelectors('spec.x=0b9e2f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b', null).shape).toBe('spec.x=<uid>');
    expect(describeSelectors('spec.x!=0B9E2F3A-1C2D-4E5F-8A9B-0C1D2E3F4A5B', null).shape).toBe('spec.x!=<uid>');
    expect(describeSelectors('spec.x=0b9e2f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5', null).shape).toBe('spec.x=0b9e2f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5');
    expect(describeSelectors('spec.x=a0b9e2f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b', null).shape).toBe('spec.x=a0b9e2f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b');
    // an empty value is kept: spec.nodeName= selects unscheduled pods
    expect(describeSelectors('spec.nodeName=', null)).toEqual(S({ shape: 'spec.nodeName=', hasFieldSelector: true }));
  });
});

describe('label selector placeholders', () => {
  it.each([
    ['kubernetes.io/hostname', '<node>'],
    ['statefulset.kubernetes.io/pod-name', '<name>'],
    ['apps.kubernetes.io/pod-index', '<index>'],
    ['controller-uid', '<uid>'],
    ['batch.kubernetes.io/controller-uid', '<uid>'],
    ['job-name', '<name>'],
    ['batch.kubernetes.io/job-name', '<name>'],
    ['pod-template-hash', '<hash>'],
    ['controller-revision-hash', '<hash>'],
    ['pod-template-generation', '<n>'],
  ])('%s=x → labels(%s=%s)', (key, ph) => {
    expect(describeSelectors(null, `${key}=x`).shape).toBe(`labels(${key}=${ph})`);
  });
  it('a field placeholder is not a label one and back', () => {
    expect(describeSelectors(null, 'spec.nodeName=x').shape).toBe('labels(spec.nodeName=x)');
    expect(describeSelectors('job-name=x', null).shape).toBe('job-name=x');
  });
});

describe('describeSelectors', () => {
  it.each<[string | null, string | null, SelectorInfo]>([
    [null, null, S({})],
    ['', null, S({})],
    ['  ', '', S({})],
    ['spec.nodeName=n1', null, S({ shape: 'spec.nodeName=<node>', node: 'n1', hasFieldSelector: true })],
    ['spec.nodeName==n1', null, S({ shape: 'spec.nodeName=<node>', node: 'n1', hasFieldSelector: true })],
    [' spec.nodeName = n1 , status.phase!=Succeeded ', null, S({ shape: 'spec.nodeName=<node>,status.phase!=Succeeded', node: 'n1', hasFieldSelector: true })],
    // sorted, so the client's order does not split a group
    ['status.phase!=Succeeded,spec.nodeName=n1', null, S({ shape: 'spec.nodeName=<node>,status.phase!=Succeeded', node: 'n1', hasFieldSelector: true })],
    ['spec.nodeName!=n1', null, S({ shape: 'spec.nodeName!=n1', hasFieldSelector: true })],
    ['metadata.name=cm1', null, S({ shape: 'metadata.name=<name>', singleName: 'cm1', hasFieldSelector: true })],
    ['metadata.namespace=ns1', null, S({ shape: 'metadata.namespace=<namespace>', singleNamespace: 'ns1', hasFieldSelector: true })],
    ['metadata.name=', null, S({ shape: 'metadata.name=', singleName: '', hasFieldSelector: true })],
    // the node: from the field selector, else the hostname label
    [null, 'kubernetes.io/hostname=n2', S({ shape: 'labels(kubernetes.io/hostname=<node>)', node: 'n2', hasLabelSelector: true })],
    ['spec.nodeName=n1', 'kubernetes.io/hostname=n2', S({ shape: 'spec.nodeName=<node> labels(kubernetes.io/hostname=<node>)', node: 'n1', hasFieldSelector: true, hasLabelSelector: true })],
    [null, 'kubernetes.io/hostname!=n2', S({ shape: 'labels(kubernetes.io/hostname!=n2)', hasLabelSelector: true })],
    // set-based label syntax, with commas inside the parentheses and spaces removed from the set
    [null, 'app in (a, b),tier notin (x),env', S({ shape: 'labels(app in (a,b),env,tier notin (x))', hasLabelSelector: true })],
    [null, '!canary,app', S({ shape: 'labels(!canary,app)', hasLabelSelector: true })],
    [null, 'a),b', S({ shape: 'labels(a),b)', hasLabelSelector: true })],
    [null, 'x in (a,(b,c)),y', S({ shape: 'labels(x in (a,(b,c)),y)', hasLabelSelector: true })],
    [null, ',,app,,', S({ shape: 'labels(app)', hasLabelSelector: true })],
  ])('%j %j', (f, l, want) => {
    expect(describeSelectors(f, l)).toEqual(want);
  });

  it('remembers: the same pair gives the same frozen object; pairs that concatenate alike stay apart', () => {
    const a = describeSelectors('a=b', 'c');
    expect(describeSelectors('a=b', 'c')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(describeSelectors('a', '=bc').shape).toBe('a labels(=bc)');
    expect(describeSelectors('a=b', 'c').shape).toBe('a=b labels(c)');
    expect(describeSelectors('x', null).shape).toBe('x');
    expect(describeSelectors(null, 'x').shape).toBe('labels(x)');
    expect(describeSelectors('', 'x').shape).toBe('labels(x)');
    // more pairs than one memo generation holds: still right
    for (let i = 0; i < 9000; i++) expect(describeSelectors(`spec.nodeName=n${i}`, null).node).toBe(`n${i}`);
    expect(describeSelectors('spec.nodeName=n5', null).node).toBe('n5');
  });
});

describe('parseTerm', () => {
  it.each<[string, ReturnType<typeof parseTerm>]>([
    ['a=b', { key: 'a', op: '=', value: 'b' }],
    ['a==b', { key: 'a', op: '=', value: 'b' }],
    ['a!=b', { key: 'a', op: '!=', value: 'b' }],
    [' a = b ', { key: 'a', op: '=', value: 'b' }],
    ['a=', { key: 'a', op: '=', value: '' }],
    ['=b', { key: '=b', op: 'exists', value: '' }],
    // '!=' at the start is no operator: the '=' after '!' is
    ['!=b', { key: '!', op: '=', value: 'b' }],
    ['a in (x, y)', { key: 'a', op: 'in', value: '(x,y)' }],
    ['a notin (x)', { key: 'a', op: 'notin', value: '(x)' }],
    ['a in x', { key: 'a in x', op: 'exists', value: '' }],
    ['a in (x', { key: 'a in (x', op: 'exists', value: '' }],
    ['!a', { key: 'a', op: '!exists', value: '' }],
    ['! a', { key: 'a', op: '!exists', value: '' }],
    ['!', { key: '!', op: 'exists', value: '' }],
    ['a', { key: 'a', op: 'exists', value: '' }],
    ['a=b=c', { key: 'a', op: '=', value: 'b=c' }],
    ['a!=b=c', { key: 'a', op: '!=', value: 'b=c' }],
  ])('%j', (t, want) => {
    expect(parseTerm(t)).toEqual(want);
  });
});
