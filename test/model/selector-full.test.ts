// Selector shapes with every field asserted: each placeholder key written out (a key dropped from the code's
// table fails here), the operators, the splitting, the node and single-object values, and the memo.
import { describe, expect, it } from 'vitest';
import { clearSelectorMemo, describeSelectors, parseTerm, selectorMemoSize, type SelectorInfo } from '../../src/model/selector.js';

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

describe('splitting terms at commas outside parentheses', () => {
  it.each<[string, string]>([
    ['a in (x,y),b', 'labels(a in (x,y),b)'],
    // nested parentheses: only the comma after the whole set splits
    ['z in ((x),a)', 'labels(z in ((x),a))'], // split inside, it would sort to "a),z in ((x)"
    ['k in (a,(b)),c', 'labels(c,k in (a,(b)))'],
    // a stray ")" does not make the depth negative: the next comma still splits
    ['a),b', 'labels(a),b)'],
    [',a,,b,', 'labels(a,b)'],
  ])('%j → %s', (label, shape) => {
    expect(describeSelectors(null, label).shape).toBe(shape);
  });
});

describe('the memo', () => {
  it('keys keep apart the pairs that would join if the key were written otherwise', () => {
    clearSelectorMemo();
    // a null field next to a one-character field: ( null, "n" ) and ( "l", null )
    expect(describeSelectors(null, 'n').shape).toBe('labels(n)');
    expect(describeSelectors('l', null).shape).toBe('l');
    // a label "n" next to no label
    expect(describeSelectors('a', null).shape).toBe('a');
    expect(describeSelectors('a', 'n').shape).toBe('a labels(n)');
  });

  it('holds two generations of 4,096: after 9,000 pairs it remembers 4,096 + 808', () => {
    clearSelectorMemo();
    for (let i = 0; i < 4095; i++) describeSelectors(`spec.nodeName=g${i}`, null);
    expect(selectorMemoSize()).toBe(4095);
    describeSelectors('spec.nodeName=g4095', null); // the 4,096th fills the young generation: it becomes the old
    expect(selectorMemoSize()).toBe(4096);
    for (let i = 4096; i < 9000; i++) describeSelectors(`spec.nodeName=g${i}`, null);
    // generations turned at 4,096 and 8,192: the old one holds 4,097–8,192, the young one the last 808
    expect(selectorMemoSize()).toBe(4096 + 808);
  });

  it('clearSelectorMemo forgets: the same pair is computed again, to an equal answer', () => {
    const a = describeSelectors('spec.nodeName=m1', null);
    clearSelectorMemo();
    const b = describeSelectors('spec.nodeName=m1', null);
    expect(b).not.toBe(a);
    expect(b).toEqual(a);
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
    // each side of every operator is trimmed
    [' a != b ', { key: 'a', op: '!=', value: 'b' }],
    [' a == b ', { key: 'a', op: '=', value: 'b' }],
    ['==b', { key: '==b', op: 'exists', value: '' }], // '==' at the start is no operator either
    ['a  in  ( x ,  y )', { key: 'a', op: 'in', value: '(x,y)' }],
    ['!a ', { key: 'a', op: '!exists', value: '' }],
    [' a in (x)', { key: 'a', op: 'in', value: '(x)' }],
    ['!ab', { key: 'ab', op: '!exists', value: '' }],
    ['a!b', { key: 'a!b', op: 'exists', value: '' }], // '!' inside a key is part of it
  ])('%j', (t, want) => {
    expect(parseTerm(t)).toEqual(want);
  });
});
