// Seeded logs for the property and engine tests: random valid events with random corruptions between them.
import { mulberry32 } from '../fixtures/prng.mjs';

const rng = mulberry32;

export interface Case {
  bytes: Buffer;
  cut: number; // a line boundary for the two-file split
  requests: number;
  lists: number;
}

export function makeCase(seed: number): Case {
  const r = rng(seed);
  const pick = <T,>(a: T[]): T => a[Math.floor(r() * a.length)]!;
  const lines: string[] = [];
  let requests = 0;
  let lists = 0;
  const n = 40 + Math.floor(r() * 80);
  for (let i = 0; i < n; i++) {
    const verb = pick(['list', 'get', 'watch', 'update', 'create']);
    const node = `n${Math.floor(r() * 5)}`;
    const uri =
      verb === 'list'
        ? pick([`/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`, '/api/v1/pods?limit=500&resourceVersion=0', '/api/v1/namespaces/a/configmaps?limit=500', '/api/v1/pods?continue=abc&limit=500'])
        : verb === 'get'
          ? `/api/v1/namespaces/a/pods/p${i}`
          : verb === 'watch'
            ? `/api/v1/pods?resourceVersion=${i}&watch=true`
            : `/api/v1/namespaces/a/configmaps/c${i}`;
    const t = Date.UTC(2026, 0, 1, 0, 0, 0) + i * 137;
    const base = {
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: pick(['Metadata', 'Request']), auditID: `s${seed}-${i}`,
      requestURI: uri, verb, user: { username: pick(['system:serviceaccount:x:y', `system:node:${node}`, 'alice']) },
      sourceIPs: ['10.0.0.1'], userAgent: pick(['a/1', 'b/2 (linux)', 'ünïcode/3']),
      objectRef: { resource: uri.includes('configmaps') ? 'configmaps' : 'pods', namespace: uri.includes('/namespaces/a/') ? 'a' : undefined, apiVersion: 'v1' },
      requestReceivedTimestamp: new Date(t).toISOString(),
    };
    const two = r() < 0.3;
    if (two) lines.push(JSON.stringify({ ...base, stage: 'RequestReceived', stageTimestamp: new Date(t).toISOString() }));
    lines.push(JSON.stringify({ ...base, stage: 'ResponseComplete', responseStatus: { metadata: {}, code: 200 }, stageTimestamp: new Date(t + 5).toISOString() }));
    requests++;
    if (verb === 'list') lists++;
    // corruption between events
    const c = r();
    if (c < 0.08) lines.push('garbage ' + Math.floor(r() * 1e9));
    else if (c < 0.14) lines.push('{"kind":"Event","auditID":"cut-' + i);
    else if (c < 0.18) lines.push('');
    else if (c < 0.22) lines.push('I0101 00:00:00.000000       1 x.go:1] klog line ' + i);
    else if (c < 0.25) lines.push('{"kind": 0}');
    else if (c < 0.28) lines.push('\u0000\u0000\u0000' + lines.pop());
  }
  const eol = r() < 0.5 ? '\n' : '\r\n';
  let text = (r() < 0.3 ? '\ufeff' : '') + lines.join(eol) + eol;
  if (r() < 0.3) text += '{"kind":"Event","truncated":'; // a rotated log cut mid-line
  const bytes = Buffer.from(text);
  // a line boundary near the middle for the two-file split
  const cut = bytes.indexOf(10, Math.floor(bytes.length / 2)) + 1;
  return { bytes, cut, requests, lists };
}


/** JSON as kube-apiserver's Go encoder writes it: <, > and & as \u003c, \u003e, \u0026; U+2028/2029 escaped. */
export function goJson(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Audit lines that walk the edges of the engine's fast path: escapes of every kind, odd JSON, odd queries,
 * odd times, invalid bytes. Some are valid events, some are not; both readers must give the same report. */
export function escapeLines(seed: number): Buffer {
  const r = mulberry32(seed);
  const pick = <T,>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  // the first value most of the time, so most lines stay on the fast path and each edge is met alone
  const often = <T,>(a: readonly T[]): T => (r() < 0.85 ? a[0]! : pick(a));
  const out: Buffer[] = [];
  const uas = ['kubelet/v1.29.4 (linux/amd64) kubernetes/55cb3b7', 'ünïcode/3 😀', 'quote"and\\slash/1', 'tab\there/1', 'ctl\u0001/1', 'amp&lt<gt>/1', 'sep\u2028/1', '', 'k'.repeat(5000)];
  const users = ['system:node:n1', 'system:node:ñ2', 'system:serviceaccount:kube-system:vector', 'alice@example.com', 'eve"\\'];
  const uris = [
    '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&limit=500&resourceVersion=0',
    '/api/v1/pods?fieldSelector=spec.nodeName=n1,status.phase!=Succeeded',
    '/api/v1/pods?labelSelector=app+in+(a,b)&limit=0500',
    '/api/v1/namespaces/shop/pods?limit=abc',
    '/api/v1/namespaces/shop/pods?limit=+5',
    '/api/v1/namespaces/shop/pods?limit=%205',
    '/api/v1/namespaces/shop/pods?limit=99999999999',
    '/api/v1/pods?watch=FALSE&resourceVersion=12',
    '/api/v1/pods?watch=0&watch=1',
    '/api/v1/pods?watch&sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
    '/api/v1/pods?continue=&resourceVersion=',
    '/api/v1/pods?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ%3D%3D&limit=500',
    '/api/v1/pods?resourceVersion=5&resourceVersionMatch=Exact&resourceVersion=0',
    '/api/v1/pods?fieldSelector=a%zz',
    '/api/v1/pods?fieldSelector=%E2%82%AC',
    '/api/v1/pods?fieldSelector=%C3%28',
    '/api/v1/pods?field%53elector=a',
    '/api/v1/pods?limit=5#frag&limit=9',
    '/api/v1/watch/pods?resourceVersion=1',
    '/api/v1/namespaces/a%2Fb/pods',
    'api/v1/pods',
    '/api/v1/namespaces/shop/pods/p1/log?follow=true',
    '/healthz',
    '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-abc',
    '/api/v1/namespaces/shop/serviceaccounts/default/token',
  ];
  const times = ['2026-11-30T10:00:00.123456Z', '2026-11-30T10:00:00Z', '2026-11-30T10:00:00.1Z', '2026-11-30T10:00:00.123456789Z', '2026-02-30T10:00:00Z', '2026-11-30T10:00:00+00:00', '2026-11-30T24:00:00Z', '2026-11-30t10:00:00Z', '2026-11-30T10:00:00.Z', '2026-11-30T10:00:00.12x4Z', '0001-01-01T00:00:00Z', 1764496800];
  const n = 150;
  for (let i = 0; i < n; i++) {
    const uri = r() < 0.5 ? uris[Math.floor(r() * 3)]! : pick(uris);
    const verb = uri.includes('watch') ? 'watch' : uri.includes('?') ? 'list' : pick(['get', 'create', 'update']);
    const e: Record<string, unknown> = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: often(['Metadata', 'Request']),
      auditID: r() < 0.05 ? '' : `e${seed}-${i}`,
      stage: often(['ResponseComplete', 'RequestReceived', 'ResponseStarted', 'Panic']),
      requestURI: uri,
      verb,
      user: { username: often(users), groups: ['system:authenticated'], ...(r() < 0.3 ? { extra: { 'authentication.kubernetes.io/node-name': pick([['n1'], [], ['n2', 'n3'], [5], 'n1']) } } : {}) },
      sourceIPs: ['10.0.0.1', '::1'],
      userAgent: often(uas),
      objectRef: often([{ resource: 'pods', namespace: 'shop', name: 'p1', apiVersion: 'v1' }, { resource: 'pods', apiVersion: 'v1' }, { resource: 'leases', namespace: 'kube-system', name: 'apiserver-abc', apiGroup: 'coordination.k8s.io' }, { resource: 'pods', namespace: 'shop', name: 'p1', subresource: 'log' }, null, undefined, { resource: 'nodes', name: 'n1' }]),
      responseStatus: often([{ metadata: {}, code: 200 }, { code: 429 }, { code: 200.5 }, { code: 2e2 }, { code: '200' }, { code: -1 }, {}, undefined, null]),
      requestReceivedTimestamp: often(times),
      stageTimestamp: often(times),
      annotations: undefined as unknown,
    };
    // one draw, as before this branch existed: a huge annotation, the latency annotations of a request over 500 ms
    // (the engine hands such lines to JavaScript), or the common decision annotation
    const a = r();
    e.annotations =
      a < 0.1
        ? { big: 'x'.repeat(17_000 + Math.floor(r() * 100)) }
        : a < 0.2
          ? { 'authorization.k8s.io/decision': 'allow', 'apiserver.latency.k8s.io/etcd': '512.3ms', 'apiserver.latency.k8s.io/apf-queue-wait': `${Math.floor(a * 1000)}us`, 'apiserver.latency.k8s.io/total': '1.2s' }
          : { 'authorization.k8s.io/decision': 'allow' };
    if (r() < 0.05) delete e.stageTimestamp;
    if (r() < 0.05) delete e.requestReceivedTimestamp;
    if (r() < 0.03) e.timestamp = '2026-11-30T10:00:01Z';
    if (r() < 0.03) e.kind = 'EventList';
    if (r() < 0.03) e.apiVersion = 'audit.k8s.io/v2';
    if (r() < 0.03) e.verb = 5;
    if (r() < 0.03) e.requestObject = { kind: 'TokenRequest', spec: { expirationSeconds: 3607 } };
    let text = r() < 0.5 ? goJson(e) : JSON.stringify(e);
    // textual edits the encoder would not make, one in three lines
    const edit = r();
    if (edit >= 0.33 && r() < 0.3) text = text.replace('"userAgent":"', `"userAgent":"${pick(['\\u0026', '\\"', '\\\\', '\\ud83d\\ude00', '\\n', '\\u00fc', 'é'])}`);
    if (edit < 0.03) text = text.replace('"verb":', '"verb":"dup","verb":');
    else if (edit < 0.06) text = text.replace('"verb"', '"ver\\u0062"');
    else if (edit < 0.09) text = text.replace(/,"/g, ', "').replace(/":/g, '": ');
    else if (edit < 0.11) text = text.replace('"userAgent":"', '"userAgent":"\\ud800');
    else if (edit < 0.13) text = text.replace('"userAgent":"', '"userAgent":"\\ud83d\\ude00');
    else if (edit < 0.15) text = text + ' trailing';
    else if (edit < 0.17) text = text + ' \t ';
    else if (edit < 0.19) text = text.replace('"level"', '"\\u005f\\u005fqueryUnknown":true,"level"');
    else if (edit < 0.21) text = text.replace('"sourceIPs"', '"deep":' + '['.repeat(300) + ']'.repeat(300) + ',"sourceIPs"');
    else if (edit < 0.23) text = text.replace('"sourceIPs"', '"nums":[0,-0.5e-3,1E+2,01],"sourceIPs"');
    else if (edit < 0.25) text = text.replace('"sourceIPs"', '"lits":[true,false,null,tru],"sourceIPs"');
    else if (edit < 0.27) text = text.replace('"sourceIPs"', '"esc":"\\/\\b\\f\\n\\r\\t\\u00e9\\x","sourceIPs"');
    else if (edit < 0.29) text = text.slice(0, Math.floor(text.length * r()));
    else if (edit < 0.31) text = '  ' + text;
    else if (edit < 0.33) text = text.replace('"user":{', '"user":null,"x":{');
    let b = Buffer.from(text);
    const bytes = r();
    if (bytes < 0.03) b = Buffer.concat([b.subarray(0, 40), Buffer.from([0xff, 0xfe]), b.subarray(40)]);
    else if (bytes < 0.05) b = Buffer.concat([b.subarray(0, 40), Buffer.from([0]), b.subarray(40)]);
    else if (bytes < 0.07) b = Buffer.concat([b.subarray(0, 40), Buffer.from([0xed, 0xa0, 0x80]), b.subarray(40)]);
    else if (bytes < 0.08) b = Buffer.concat([b.subarray(0, 40), Buffer.from([1]), b.subarray(40)]);
    out.push(b, Buffer.from(r() < 0.2 ? '\r\n' : '\n'));
  }
  return Buffer.concat([r() < 0.5 ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), ...out]);
}

/** A pod as a list returns it, ~1 KB: labels, an annotation holding JSON (Go escapes its <, > and &), containers
 * with quotes and backslashes in their args, raw and escaped non-ASCII, and a configMap volume's own `items`
 * (nested: not the list's). */
export function podBody(i: number, node: string): Record<string, unknown> {
  return {
    metadata: {
      name: `web-5d8f7c-${i}`,
      namespace: 'shop',
      uid: `0b7c${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}-1111-4000-8000-000000000000`,
      resourceVersion: String(100000 + i),
      labels: { app: 'web', 'pod-template-hash': '5d8f7c' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Pod","spec":{"a":"<b>&c"}}\n' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8f7c', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: node,
      containers: [{ name: 'web', image: 'nginx:1.25', args: ['--msg="hi"', 'C:\\tmp\\x', 'ünï 😀'], resources: { requests: { cpu: '100m' } }, ports: [{ containerPort: 8080, protocol: 'TCP' }] }],
      volumes: [{ name: 'cfg', configMap: { name: 'web', items: [{ key: 'a', path: 'a' }, { key: 'b', path: 'b' }] } }],
      tolerations: [],
      priority: 0,
      enableServiceLinks: true,
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-30T09:00:00Z' }], podIP: `10.1.${i >> 8 & 255}.${i & 255}`, qosClass: 'Burstable', startTime: '2026-11-30T09:00:00Z', restartCount: i % 3, ratio: 0.5e-3 },
  };
}

/** A PodList response body: `n` pods, its resourceVersion, and a continue token and remainingItemCount when
 * `remaining` is given. */
export function podList(n: number, remaining: unknown = undefined, node = 'n1'): Record<string, unknown> {
  const metadata: Record<string, unknown> = { resourceVersion: '123456' };
  if (remaining !== undefined) {
    metadata.continue = 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDU2LCJzdGFydCI6IndlYi01ZDhmN2MtOVx1MDAwMCJ9';
    metadata.remainingItemCount = remaining;
  }
  return { kind: 'PodList', apiVersion: 'v1', metadata, items: Array.from({ length: n }, (_, i) => podBody(i, node)) };
}

/** RequestResponse-level audit lines with request and response bodies at the edges of the engine's body reader:
 * lists with and without remainingItemCount, `items` that is null or not an array, nested `items`, AKS's
 * "skipped-too-big-size-object", odd remainingItemCount values, duplicate names (JSON.parse keeps the last),
 * escaped names, escapes and non-ASCII in bodies, TokenRequests, CSRs and apiserver identity leases (whose
 * bodies the engine leaves to JavaScript), invalid bodies, deep bodies, and lines of hundreds of KB. */
export function bodyLines(seed: number): Buffer {
  const r = mulberry32(1000 + seed);
  const pick = <T,>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const out: string[] = [];
  const n = 120;
  for (let i = 0; i < n; i++) {
    const kind = Math.floor(r() * 34);
    const listing = kind < 20;
    const node = `n${Math.floor(r() * 4)}`;
    const e: Record<string, unknown> = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      auditID: `b${seed}-${i}`,
      stage: r() < 0.9 ? 'ResponseComplete' : 'ResponseStarted',
      requestURI: listing ? pick(['/api/v1/pods?limit=500', `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`, '/api/v1/namespaces/shop/pods?limit=50&continue=abc', '/api/v1/namespaces/shop/pods']) : '/api/v1/namespaces/shop/pods/web-1',
      verb: listing ? 'list' : pick(['get', 'update', 'patch', 'create']),
      user: { username: pick(['system:serviceaccount:kube-system:vector', `system:node:${node}`, 'alice']), groups: ['system:authenticated'] },
      sourceIPs: ['10.0.0.1'],
      userAgent: pick(['vector/0.34.1', 'kubectl/v1.29.4 (linux/amd64) kubernetes/55cb3b7']),
      objectRef: { resource: 'pods', namespace: 'shop', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      requestObject: undefined as unknown,
      responseObject: undefined as unknown,
      requestReceivedTimestamp: '2026-11-30T10:00:00.123456Z',
      stageTimestamp: '2026-11-30T10:00:00.223456Z',
      annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to Group "z"' },
    };
    const items = Math.floor(r() * 12);
    // the response (lists) or the request and response (single objects)
    if (kind < 8) e.responseObject = podList(items);
    else if (kind < 12) e.responseObject = podList(items, pick([0, 1, 4321, 123456789012345, 1234567890123456, -3, 1.5, 1e3, '7', null, true, {}, [1]]));
    else if (kind === 12) e.responseObject = pick(['skipped-too-big-size-object', null, [1, 2], 3, true]);
    else if (kind === 13) e.responseObject = { kind: 'PodList', metadata: pick([null, [], 'x', { remainingItemCount: 2 }]), items: pick([null, {}, 'items', 0, [null, [], {}]]) };
    else if (kind === 14) e.responseObject = { kind: 'PodList', metadata: { annotations: { remainingItemCount: 9 }, resourceVersion: '1' }, spec: { items: [1, 2] }, status: { items: [1] } };
    else if (kind === 15) e.responseObject = { metadata: { resourceVersion: '9' } }; // no items
    else if (kind === 16) {
      // a long list: hundreds of KB, now and then close to the engine's 1 MB
      e.responseObject = podList(r() < 0.25 ? 650 : 60 + Math.floor(r() * 200), r() < 0.5 ? 500 + i : undefined);
    } else if (kind === 17) e.responseObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "x" is forbidden: "\\u0026"', reason: 'Forbidden', code: 403 };
    else if (kind === 18) e.responseObject = podList(items, 3, 'ñ-😀'); // non-ASCII
    else if (kind === 19) e.responseObject = { items: [{ items: [1, 2, 3] }, { metadata: { remainingItemCount: 4 } }], metadata: { resourceVersion: '1', remainingItemCount: 0 } };
    else if (kind < 24) {
      // writes: the request body, and the object back
      e.requestObject = kind === 20 ? { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm', namespace: 'shop' }, data: { 'app.json': '{"x":"<y>","z":"a\\\\b"}', empty: '' } } : kind === 21 ? { metadata: { labels: { a: 'b' } }, status: { conditions: [{ type: 'Ready', status: 'False' }] } } : kind === 22 ? { apiVersion: 'v1', kind: 'Pod', spec: { nodeName: node, containers: [] } } : [{ op: 'replace', path: '/spec/replicas', value: 3 }];
      e.responseObject = kind === 23 ? { kind: 'Scale', spec: { replicas: 3 }, status: { replicas: 3 } } : podBody(i, node);
    } else if (kind === 24) {
      // a TokenRequest (tokenExpirationSeconds): declined
      e.requestURI = '/api/v1/namespaces/shop/serviceaccounts/default/token';
      e.verb = 'create';
      e.objectRef = { resource: 'serviceaccounts', namespace: 'shop', name: 'default', subresource: 'token', apiVersion: 'v1' };
      e.requestObject = { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: pick([3607, 600, 0, -1, '3600', null]), boundObjectRef: { kind: 'Pod', name: 'web-1' } }, status: { token: '', expirationTimestamp: null } };
      e.responseObject = r() < 0.5 ? { kind: 'TokenRequest', spec: { audiences: ['x'], expirationSeconds: 3600 }, status: { token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', expirationTimestamp: '2026-11-30T11:00:00Z' } } : undefined;
    } else if (kind === 25) {
      // a CSR also has spec.expirationSeconds: declined
      e.requestObject = { kind: 'CertificateSigningRequest', spec: { signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 86400, request: 'LS0t', usages: ['client auth'] } };
      e.verb = 'create';
      e.objectRef = { resource: 'certificatesigningrequests', name: 'csr-1', apiGroup: 'certificates.k8s.io', apiVersion: 'v1' };
      e.requestURI = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
    } else if (kind < 28) {
      // an apiserver identity lease with its holder (leaseHolder): declined; a node lease: read
      const identity = kind === 26;
      const name = identity ? pick(['apiserver-abc', 'kube-apiserver-x1']) : `node-${node}`;
      const ns = identity ? 'kube-system' : 'kube-node-lease';
      e.verb = 'update';
      e.requestURI = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${name}`;
      e.objectRef = { resource: 'leases', namespace: ns, name, apiGroup: 'coordination.k8s.io', apiVersion: 'v1' };
      e.requestObject = { kind: 'Lease', metadata: { name, namespace: ns }, spec: { holderIdentity: pick([`${name}_0b7c`, null, 5]), leaseDurationSeconds: 3600, renewTime: '2026-11-30T10:00:00.000000Z' } };
      e.responseObject = { kind: 'Lease', metadata: { name, resourceVersion: '77' }, spec: { holderIdentity: `${name}_0b7c` } };
    } else if (kind === 28) {
      // a body nested deeper than the engine reads (declined), or just deep enough
      const d = r() < 0.5 ? 1100 : 900;
      e.responseObject = { metadata: { remainingItemCount: 1 }, items: [], deep: JSON.parse('['.repeat(d) + ']'.repeat(d)) };
    } else e.responseObject = podList(items, r() < 0.5 ? 8 : undefined);
    let text = r() < 0.5 ? goJson(e) : JSON.stringify(e);
    // textual edits, one line in two: duplicates, escaped names, spacing, invalid JSON inside the bodies
    const edit = r();
    if (edit < 0.5 && text.includes('"responseObject":{')) {
      const k = Math.floor(r() * 22);
      const ro = '"responseObject":{';
      if (k === 0) text = text.replace(ro, `${ro}"items":[1,2,3,4,5,6,7],`); // a duplicate items: the last wins
      else if (k === 1) text = text.replace(ro, `${ro}"metadata":{"remainingItemCount":77},`); // a duplicate metadata: the last wins
      else if (k === 2) text = text.replace('},"requestReceivedTimestamp"', `,"items":${pick(['null', '[{},{}]'])}},"requestReceivedTimestamp"`); // a later items
      else if (k === 3) text = text.replace('"remainingItemCount":', '"remainingItemCount":5,"remainingItemCount":');
      else if (k === 4) text = text.replace('"requestReceivedTimestamp"', '"responseObject":{"items":[{}],"metadata":{"remainingItemCount":3}},"requestReceivedTimestamp"'); // a second body
      else if (k === 5) text = text.replace(`${ro}`, `${ro}"it\\u0065ms":[1],`); // an escaped name where items is looked for: declined
      else if (k === 6) text = text.replace('"remainingItemCount"', '"remaining\\u0049temCount"');
      else if (k === 7) text = text.replace('"labels":{', '"labels":{"esc\\"aped\\\\key\\u0026":"v\\"al\\\\ue\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00",');
      else if (k === 8) text = text.replace(/,"/g, ', "').replace(/":/g, '" :\t');
      else if (k === 9) text = text.replace('"labels":{', '"labels":{"x":"\\ud800",'); // a lone surrogate: JavaScript keeps it
      else if (k === 10) text = text.replace('"labels":{', '"labels":{"x":[1,2},'); // mismatched brackets
      else if (k === 11) text = text.replace('"labels":{', '"labels":{"x":1,}'); // a trailing comma
      else if (k === 12) text = text.replace('"labels":{', '"labels":{"x":NaN,');
      else if (k === 13) text = text.replace('"labels":{', '"labels":{"x":"tab\there",'); // a raw control byte
      else if (k === 14) text = text.replace('"labels":{', '"labels":{"x":01,');
      else if (k === 15) text = text.replace('"labels":{', "\"labels\":{'x':1,");
      else if (k === 16) text = text.replace('"items":[', '"items":[ \t'); // spaces inside items
      else if (k === 17) text = text.slice(0, text.indexOf(ro) + Math.floor(r() * (text.length - text.indexOf(ro)))); // cut inside the body
      else if (k === 18) text = text.replace('"items":[', '"items":[-0.0e+5,true,false,"\\"]",');
      else if (k === 19) text = text.replace('"labels":{', '"labels":{"x":"\\x",'); // a bad escape
      else if (k === 20) text = text.replace('"items":[', '"items" : [ ');
      else text = text.replace('"labels":{', '"labels":{"x":-,');
    }
    let b = Buffer.from(text);
    if (r() < 0.03) {
      // an invalid UTF-8 byte inside the body: the JavaScript path repairs it
      const at = b.indexOf('"responseObject"');
      if (at > 0) b = Buffer.concat([b.subarray(0, at + 40), Buffer.from([0xff]), b.subarray(at + 40)]);
    }
    out.push(b.toString('latin1'));
  }
  return Buffer.from(out.join('\n') + '\n', 'latin1');
}

/** A log that walks the edges of the compiled aggregator (src/decode/engine/assembly/slots.ts): more request keys
 * than its slot table holds and more (key, bucket) pairs than its pair table, so that it folds in the middle of
 * a segment; samples tied on time whose URIs differ past ASCII (JavaScript orders UTF-16, not bytes); latencies of
 * every size, fractions of a microsecond from 0 up to days (past its edge table: counted in JavaScript); watches
 * that are watch-lists and one refused as invalid; complete and paged lists of a whole resource; the requests it
 * leaves to the event path (TokenRequests, a node by name, identity leases, no objectRef). */
export function aggregatorEdges(seed: number): Buffer {
  const r = rng(seed);
  const lines: string[] = [];
  const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);
  const iso = (ms: number, us = 0): string => new Date(Math.floor(ms)).toISOString().replace('Z', `${String(us).padStart(3, '0')}Z`);
  let id = 0;
  const ev = (o: { uri: string; verb: string; ua: string; user?: string; ref?: Record<string, unknown>; code?: number; at: number; lat: number; us?: number; extra?: Record<string, unknown> }): void => {
    const us = o.us ?? Math.floor(r() * 1000);
    const stageUs = Math.floor(r() * 1000);
    lines.push(
      JSON.stringify({
        kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: `agg-${seed}-${++id}`, stage: 'ResponseComplete',
        requestURI: o.uri, verb: o.verb, user: { username: o.user ?? 'system:serviceaccount:ns:sa', groups: ['system:authenticated'] }, sourceIPs: ['10.0.0.1'], userAgent: o.ua,
        ...(o.ref === undefined ? {} : { objectRef: o.ref }), responseStatus: { metadata: {}, code: o.code ?? 200 },
        ...(o.extra ?? {}),
        requestReceivedTimestamp: iso(o.at, us), stageTimestamp: iso(o.at + o.lat, stageUs),
      }),
    );
  };
  const pods = { resource: 'pods', apiVersion: 'v1' };
  // 3,000 clients listing pods in 3 namespaces, twice each: 9,000 slots and some 40,000 pairs (the differential
  // test's small tables, AUDIT_SCAN_SLOT_TABLES, fold them many times in a segment); 3,000 read groups and clients,
  // under the caps of both (past them, which are kept depends on the thread count)
  for (let i = 0; i < 3_000; i++) {
    for (let k = 0; k < 3; k++) {
      for (let m = 0; m < 2; m++) {
        const lat = [0, 0.05, 3.3, 9.999, 10, 10.05, 250, 4_000, 61_000][Math.floor(r() * 9)]! + r();
        ev({ uri: `/api/v1/namespaces/ns${k}/pods?limit=500&resourceVersion=0`, verb: 'list', ua: `client-${i}/v1`, ref: { ...pods, namespace: `ns${k}` }, at: t0 + i * 1000 + k * 300 + m * 1100 + Math.floor(r() * 40), lat });
      }
    }
  }
  // one group's sample: requests of one slot at one time, URIs differing past ASCII: U+E000 sorts before an emoji
  // in bytes and code points, after it in UTF-16 (JavaScript's order, which the sample follows)
  for (const c of ['\ue000', '\u{1f600}', '\ue001']) ev({ uri: `/api/v1/namespaces/a/pods?limit=5&x=${c}`, verb: 'list', ua: 'sampler/1', ref: { ...pods, namespace: 'a' }, at: t0 + 5, lat: 2, us: 7 });
  // watches: watch-lists (sendInitialEvents), one refused as invalid, plain ones
  for (const [q, code] of [['sendInitialEvents=true&resourceVersionMatch=NotOlderThan&watch=true', 200], ['sendInitialEvents=true&watch=true', 400], ['resourceVersion=5&watch=true', 200]] as const) {
    for (let k = 0; k < 5; k++) ev({ uri: `/api/v1/pods?${q}`, verb: 'watch', ua: 'informer/2', ref: pods, code, at: t0 + 100_000 + k * 1000, lat: 300_000 + k });
  }
  // complete lists of a whole resource (RequestResponse): how many objects there are
  for (const [items, remaining, limit] of [[7, undefined, 0], [5, 20, 5], [3, undefined, 5], [5, undefined, 5]] as const) {
    const uri = limit > 0 ? `/api/v1/configmaps?limit=${limit}` : '/api/v1/configmaps';
    ev({ uri, verb: 'list', ua: 'lister/1', ref: { resource: 'configmaps', apiVersion: 'v1' }, at: t0 + 200_000, lat: 4, extra: { level: 'RequestResponse', responseObject: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: remaining === undefined ? {} : { remainingItemCount: remaining }, items: Array.from({ length: items }, (_, j) => ({ metadata: { name: `c${j}` } })) } } });
  }
  // days of latency (past the edge table), TokenRequests, a node by name, an identity lease, no objectRef
  ev({ uri: '/api/v1/namespaces/a/pods?watch=true', verb: 'watch', ua: 'slow/1', ref: { ...pods, namespace: 'a' }, at: t0 - 60 * 86_400_000, lat: 55 * 86_400_000 });
  for (let k = 0; k < 3; k++) ev({ uri: '/api/v1/namespaces/a/serviceaccounts/default/token', verb: 'create', ua: 'kubelet/v1.30.0 (linux/amd64) kubernetes/abc', user: `system:node:n${k}`, ref: { resource: 'serviceaccounts', namespace: 'a', name: 'default', subresource: 'token', apiVersion: 'v1' }, code: 201, at: t0 + 300_000 + k, lat: 3 });
  ev({ uri: '/api/v1/nodes/n7', verb: 'get', ua: 'kubelet/v1.30.0 (linux/amd64) kubernetes/abc', user: 'system:node:n7', ref: { resource: 'nodes', name: 'n7', apiVersion: 'v1' }, at: t0 + 300_100, lat: 1 });
  ev({ uri: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-abc', verb: 'create', ua: 'kube-apiserver/v1.30.0 (linux/amd64) kubernetes/abc', user: 'system:apiserver', ref: { resource: 'leases', namespace: 'kube-system', name: 'apiserver-abc', apiGroup: 'coordination.k8s.io', apiVersion: 'v1' }, code: 201, at: t0 + 300_200, lat: 2 });
  ev({ uri: '/healthz', verb: 'get', ua: 'probe/1', at: t0 + 300_300, lat: 0.5 });
  // the timing of a run of admitted lines (timeRun, aggregate/timing.ts): 5,000 gets a minute and 10 s apart, over four days,
  // so the time sketch's minute buckets pass its 4,096 and coarsen in the middle of a run, now and then two in one
  // minute (a bucket taken twice in a row), pauses of 5 s and more (gaps, at the segment's first events and after)
  let at = t0 + 400_000;
  for (let k = 0; k < 5_000; k++) {
    at += k % 9 === 0 ? 5_000 + Math.floor(r() * 3) : k % 13 === 0 ? 20 : 70_000;
    ev({ uri: `/api/v1/namespaces/t/configmaps/c${k % 7}`, verb: 'get', ua: 'ticker/1', ref: { resource: 'configmaps', namespace: 't', name: `c${k % 7}`, apiVersion: 'v1' }, at, lat: 1 + (k % 5) });
  }
  // and 30 at the log's start, 200 days earlier, in three minutes: times far from the rest of the input, whose count
  // and span come from the sketch's cells (the report's implausible "far" times, the input's first and last time)
  const before = lines.length;
  for (let k = 0; k < 30; k++) ev({ uri: '/api/v1/namespaces/t/configmaps/old', verb: 'get', ua: 'ticker/1', ref: { resource: 'configmaps', namespace: 't', name: 'old', apiVersion: 'v1' }, at: t0 - 200 * 86_400_000 + k * 5_000 + Math.floor(r() * 4_000), lat: 1 });
  lines.unshift(...lines.splice(before));
  // shuffled a little: times out of order within the log
  for (let i = lines.length - 1; i > 0; i -= 7) {
    const j = Math.max(0, i - Math.floor(r() * 50));
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  }
  return Buffer.from(lines.join('\n') + '\n');
}
