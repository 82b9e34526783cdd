// --redact: each pseudonym is HMAC-SHA256(key, kind NUL value), first 8 hex digits. The expected values were
// computed with openssl, not with this code: printf 'ns\0shop' | openssl dgst -sha256 -hmac k
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/analyze/redact.js';

const r = new Redactor('k');

describe('Redactor', () => {
  it.each([
    ['', ''],
    ['*', '*'],
    ['default', 'default'],
    ['kube-system', 'kube-system'],
    ['kube-public', 'kube-public'],
    ['kube-node-lease', 'kube-node-lease'],
    ['shop', 'ns-45a1813c'],
  ])('namespace %j → %j', (ns, want) => {
    expect(r.namespace(ns)).toBe(want);
  });

  it.each([
    ['', ''],
    ['system:node:<node>', 'system:node:<node>'],
    ['system:serviceaccount:shop:api', 'system:serviceaccount:ns-45a1813c:sa-dd93e0fe'],
    // a service account in "default" is a workload's: redacted, its namespace kept
    ['system:serviceaccount:default:app', 'system:serviceaccount:default:sa-e1ab9cd5'],
    ['system:serviceaccount:kube-system:replicaset-controller', 'system:serviceaccount:kube-system:replicaset-controller'],
    ['system:serviceaccount:kube-public:x', 'system:serviceaccount:kube-public:x'],
    ['system:node:ip-10-0-0-1', 'system:node:node-de0b25cd'],
    ['system:kube-scheduler', 'system:kube-scheduler'],
    ['alice@example.com', 'user-a974021d'],
    // not a service account (it does not start with system:), so a user
    ['xsystem:serviceaccount:a:b', 'user-ea1bbca4'],
    // a line break cannot smuggle a name through unredacted
    ['system:serviceaccount:shop:a\nb', 'system:serviceaccount:ns-45a1813c:sa-2f345dbf'],
  ])('user %j → %j', (u, want) => {
    expect(r.user(u)).toBe(want);
  });

  it('a random key per run when none is given: two runs do not share pseudonyms', () => {
    expect(new Redactor(null).user('alice')).not.toBe(new Redactor(null).user('alice'));
    expect(new Redactor(null).user('alice')).toMatch(/^user-[0-9a-f]{8}$/);
  });
});
