// Kubernetes versions: parsing what users and user agents write, and inferring the apiserver's version from the
// control-plane components in the log: a user agent counts only with the username that component runs as.
import { describe, expect, it } from 'vitest';
import { compareKubeVersion, DEFAULT_KUBE_VERSION, formatKubeVersion, inferKubeVersion, parseKubeVersion, VersionEvidenceCollector } from '../../src/model/kube-version.js';

describe('parseKubeVersion and formatKubeVersion', () => {
  it.each([
    ['1.29', { major: 1, minor: 29, patch: null }, '1.29'],
    ['v1.29.4', { major: 1, minor: 29, patch: 4 }, '1.29.4'],
    ['v1.29.4-eks-1234abc', { major: 1, minor: 29, patch: 4 }, '1.29.4'],
    ['  1.30.0+k3s1 ', { major: 1, minor: 30, patch: 0 }, '1.30.0'],
  ])('%j → %j, printed %s', (s, want, printed) => {
    expect(parseKubeVersion(s)).toEqual(want);
    expect(formatKubeVersion(parseKubeVersion(s)!)).toBe(printed);
  });

  it('reads a two-digit major version', () => {
    expect(parseKubeVersion('10.2.3')).toEqual({ major: 10, minor: 2, patch: 3 });
  });

  it.each(['', 'v1', 'one.two', 'x1.29'])('%j is not a version', (s) => {
    expect(parseKubeVersion(s)).toBeNull();
  });

  it.each([
    ['1.29.4', '1.29.5', -1],
    ['1.30.0', '1.29.9', 1],
    ['2.0.0', '1.99.0', 1],
    ['1.29', '1.29.9999', 0],
    ['1.29', '1.29.4', 1],
    ['1.29.4', '1.29.4', 0],
    ['1.99.0', '2.0.0', -1],
    ['1.29.9', '1.30.0', -1],
    ['10.2.0', '9.9.9', 1],
  ])('compare(%s, %s) has the sign of %d (a missing patch is the highest)', (a, b, sign) => {
    expect(Math.sign(compareKubeVersion(parseKubeVersion(a)!, parseKubeVersion(b)!))).toBe(sign);
  });
});

function infer(pairs: Array<[string, string, number?]>): { version: string; source: string; reason: string } {
  const c = new VersionEvidenceCollector();
  for (const [user, ua, n] of pairs) for (let i = 0; i < (n ?? 1); i++) c.add(user, ua);
  const v = inferKubeVersion(c.list());
  return { version: formatKubeVersion(v.version), source: v.source, reason: v.reason };
}

describe('inferKubeVersion', () => {
  it('with no control-plane user agent: 1.30, the last release where every list without resourceVersion reads etcd', () => {
    expect(infer([['alice', 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc']])).toEqual({
      version: '1.30',
      source: 'default',
      reason: 'no control-plane user agent in the log; assumed 1.30 (pass --kube-version)',
    });
    expect(formatKubeVersion(DEFAULT_KUBE_VERSION)).toBe('1.30');
  });

  it.each([
    ['system:apiserver', 'kube-apiserver/v1.31.2 (linux/amd64) kubernetes/abc', '1.31.2'],
    ['system:kube-controller-manager', 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/abc', '1.31.2'],
    ['system:serviceaccount:kube-system:replicaset-controller', 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:replicaset-controller', '1.31.2'],
    ['system:kube-scheduler', 'kube-scheduler/v1.31.2 (linux/amd64) kubernetes/abc', '1.31.2'],
    ['system:node:n1', 'kubelet/v1.31.2 (linux/amd64) kubernetes/abc', '1.31.2'],
    ['system:kube-proxy', 'kube-proxy/v1.31.2 (linux/amd64) kubernetes/abc', '1.31.2'],
    ['system:serviceaccount:kube-system:kube-proxy', 'kube-proxy/v1.31.2 (linux/amd64) kubernetes/abc', '1.31.2'],
  ])('%s with %s says %s', (user, ua, want) => {
    expect(infer([[user, ua]])).toMatchObject({ version: want, source: 'inferred' });
  });

  it.each([
    ['alice', 'kube-apiserver/v1.35.0 (linux/amd64) kubernetes/abc'],
    ['system:serviceaccount:shop:app', 'kube-controller-manager/v1.35.0'],
    ['system:apiserver', 'kubelet/v1.35.0'],
    ['system:node:n1', 'kube-scheduler/v1.35.0'],
    ['system:apiserver', 'kube-apiserver/vnext (linux/amd64)'],
    ['system:apiserver', 'Kube-apiserver/v1.35.0'],
  ])('a user agent with the wrong username (or no version) is not evidence: %s / %s', (user, ua) => {
    expect(infer([[user, ua]]).source).toBe('default');
  });

  it('the apiserver outranks the controller manager, which outranks kubelets, which outrank kube-proxy', () => {
    const api: [string, string] = ['system:apiserver', 'kube-apiserver/v1.30.1'];
    const kcm: [string, string] = ['system:kube-controller-manager', 'kube-controller-manager/v1.31.0'];
    const kubelet: [string, string] = ['system:node:n1', 'kubelet/v1.32.0'];
    const proxy: [string, string] = ['system:kube-proxy', 'kube-proxy/v1.33.0'];
    expect(infer([api, kcm, kubelet, proxy]).version).toBe('1.30.1');
    expect(infer([kcm, kubelet, proxy]).version).toBe('1.31.0');
    expect(infer([kubelet, proxy]).version).toBe('1.32.0');
    expect(infer([proxy]).version).toBe('1.33.0');
  });

  it('among one rank the highest version wins (a rolling upgrade is half done), then the most requests', () => {
    expect(infer([['system:node:a', 'kubelet/v1.29.9', 50], ['system:node:b', 'kubelet/v1.30.1', 2]]).version).toBe('1.30.1');
    expect(infer([['system:kube-scheduler', 'kube-scheduler/v1.30.1', 1], ['system:kube-controller-manager', 'kube-controller-manager/v1.30.1', 3]])).toEqual({
      version: '1.30.1',
      source: 'inferred',
      reason: 'from user agent kube-controller-manager/v1.30.1 (3 requests)',
    });
  });

  it('kube-proxy counts only as system:kube-proxy or a kube-system service account', () => {
    expect(infer([['alice', 'kube-proxy/v1.33.0']]).source).toBe('default');
    expect(infer([['system:serviceaccount:shop:proxy', 'kube-proxy/v1.33.0']]).source).toBe('default');
  });

  it('the shortcut for a repeated user agent still checks the username', () => {
    // system:apiserver once, then alice five times with the same user agent: only one request is evidence
    const pairs: Array<[string, string, number?]> = [['system:apiserver', 'kube-apiserver/v1.31.2', 1], ['alice', 'kube-apiserver/v1.31.2', 5]];
    expect(infer(pairs).reason).toBe('from user agent kube-apiserver/v1.31.2 (1 request)');
    // two kubelets on different nodes with one user agent both count
    expect(infer([['system:node:a', 'kubelet/v1.31.2', 2], ['system:node:b', 'kubelet/v1.31.2', 3]]).reason).toBe('from user agent kubelet/v1.31.2 (5 requests)');
    expect(infer([['system:node:a', 'kubelet/v1.31.2', 1270]]).reason).toBe('from user agent kubelet/v1.31.2 (1,270 requests)');
    // a node sending kube-proxy's user agent after kube-proxy is not kube-proxy: only the first request counts
    expect(infer([['system:kube-proxy', 'kube-proxy/v1.33.0', 1], ['system:node:n1', 'kube-proxy/v1.33.0', 3]]).reason).toBe('from user agent kube-proxy/v1.33.0 (1 request)');
    // ...but a kubelet's user agent sent by another user after a kubelet does not
    expect(infer([['system:node:a', 'kubelet/v1.31.2', 2], ['mallory', 'kubelet/v1.31.2', 3]]).reason).toBe('from user agent kubelet/v1.31.2 (2 requests)');
  });

  it('ties: the first of the highest versions seen is kept unless a later one has more requests', () => {
    const kcm: [string, string, number] = ['system:kube-controller-manager', 'kube-controller-manager/v1.30.1', 3];
    const sched: [string, string, number] = ['system:kube-scheduler', 'kube-scheduler/v1.30.1', 1];
    expect(infer([kcm, sched]).reason).toBe('from user agent kube-controller-manager/v1.30.1 (3 requests)');
    expect(infer([sched, kcm]).reason).toBe('from user agent kube-controller-manager/v1.30.1 (3 requests)');
    // the same number of requests: the first seen stays
    expect(infer([['system:kube-scheduler', 'kube-scheduler/v1.30.1', 2], ['system:kube-controller-manager', 'kube-controller-manager/v1.30.1', 2]]).reason).toBe('from user agent kube-scheduler/v1.30.1 (2 requests)');
    // a lower version later does not replace a higher one, even with more requests
    expect(infer([['system:node:a', 'kubelet/v1.30.1', 1], ['system:node:b', 'kubelet/v1.29.9', 50]]).version).toBe('1.30.1');
  });

  it('counts every kubelet as one component, whatever the node', () => {
    expect(infer([['system:node:a', 'kubelet/v1.30.1'], ['system:node:b', 'kubelet/v1.30.1'], ['system:node:c', 'kubelet/v1.30.1']]).reason).toBe('from user agent kubelet/v1.30.1 (3 requests)');
  });

  it('merges evidence collected elsewhere (another worker)', () => {
    const a = new VersionEvidenceCollector();
    const b = new VersionEvidenceCollector();
    a.add('system:apiserver', 'kube-apiserver/v1.31.0');
    b.add('system:apiserver', 'kube-apiserver/v1.31.0', 4);
    b.add('system:apiserver', 'kube-apiserver/v1.31.5');
    a.mergeList(b.list());
    expect(a.list().map((e) => [e.version, e.events]).sort()).toEqual([['v1.31.0', 5], ['v1.31.5', 1]]);
    expect(formatKubeVersion(inferKubeVersion(a.list()).version)).toBe('1.31.5');
  });
});
