// The changes a log shows that diff --split-at can cut at (issue 47 #1): table-driven.
import { describe, expect, it } from 'vitest';
import { changeLabel, changeMatches, changeOf, isChangeSpec } from '../../src/analyze/changes.js';
import { normalizeAuditEvent } from '../../src/decode/audit-event.js';
import { auditLine } from '../support.js';

const ev = (f: Record<string, unknown>) => normalizeAuditEvent(JSON.parse(auditLine(f)), () => 'x').value!;
const ds = (over: Record<string, unknown> = {}) => ({ verb: 'patch', requestURI: '/apis/apps/v1/namespaces/logging/daemonsets/vector', objectRef: { resource: 'daemonsets', apiGroup: 'apps', namespace: 'logging', name: 'vector' }, user: { username: 'alice' }, ...over });

describe('changeOf', () => {
  it.each([
    ['an operator patching a DaemonSet', ds(), 'daemonset/logging/vector'],
    ['a FlowSchema created', { verb: 'create', requestURI: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', objectRef: { resource: 'flowschemas', apiGroup: 'flowcontrol.apiserver.k8s.io', name: 'vector' }, user: { username: 'bob' } }, 'flowschema/vector'],
    ['a Deployment updated by CI', ds({ verb: 'update', objectRef: { resource: 'deployments', apiGroup: 'apps', namespace: 'shop', name: 'web' }, user: { username: 'system:serviceaccount:ci:deployer' } }), 'deployment/shop/web'],
    ['the controller writing status', ds({ objectRef: { resource: 'daemonsets', apiGroup: 'apps', namespace: 'logging', name: 'vector', subresource: 'status' } }), null],
    ['a kube-system controller writing the object', ds({ user: { username: 'system:serviceaccount:kube-system:daemon-set-controller' } }), null],
    ['a refused patch', ds({ responseStatus: { code: 422 } }), null],
    ['a read', ds({ verb: 'get' }), null],
    ['an earlier stage', ds({ stage: 'RequestReceived' }), null],
    ['a resource of that name in another group', ds({ objectRef: { resource: 'deployments', apiGroup: 'extensions.example.com', namespace: 'a', name: 'b' } }), null],
  ])('%s', (_name, f, label) => {
    const c = changeOf(ev(f));
    expect(c === null ? null : changeLabel(c)).toBe(label);
  });
});

describe('naming a change on the command line', () => {
  const c = changeOf(ev(ds()))!;
  it.each([
    ['daemonset/logging/vector', true, true],
    ['DaemonSets/logging/vector', true, true],
    // KIND/NAME: in any namespace
    ['daemonset/vector', true, true],
    ['deployment/logging/vector', true, false],
    ['2026-11-30T12:30:00Z', false, false],
    ['12:30', false, false],
  ])('%s', (spec, isSpec, matches) => {
    expect(isChangeSpec(spec)).toBe(isSpec);
    expect(isSpec && changeMatches(spec, c)).toBe(matches);
  });
});
