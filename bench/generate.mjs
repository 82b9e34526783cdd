#!/usr/bin/env node
// Deterministic generator of a realistic audit log for the benchmark: node ./bench/generate.mjs OUT SIZE_MB
// Traffic mix (per 100 events): 30 lease get/update by kubelets, 20 gets, 15 lists (a third without
// resourceVersion, from a DaemonSet), 15 watches, 10 patches, 10 creates. 200 nodes, both RequestReceived and
// ResponseComplete for 1 in 4 requests. Strings are escaped as kube-apiserver's Go encoder writes them: `&`,
// `<` and `>` as \u0026, \u003c and \u003e (a real list URI reads `?fieldSelector=…\u0026limit=500`), so the
// parsers meet the escapes real logs carry.
// Levels: 1 request in 10 is logged at RequestResponse (a policy that keeps bodies for some resources), the rest
// at Metadata. Its lines carry the bodies kube-apiserver writes: a list's PodList or SecretList (a few KB to a
// few hundred KB: pods of a node, or up to 500 secrets with `continue` and `remainingItemCount` when the
// namespace has more), the object a get returns, and for writes the requestObject (on RequestReceived too)
// and the object back. Bodies are most of the bytes, as in real logs that have them; no line reaches 1 MB.
import { createWriteStream } from 'node:fs';
import { mulberry32 } from '../fixtures/prng.mjs';

const [out, sizeArg] = process.argv.slice(2);
const target = Number(sizeArg ?? 1024) * 1024 * 1024;
const rand = mulberry32(1);
const pick = (a) => a[Math.floor(rand() * a.length)];
const NODES = Array.from({ length: 200 }, (_, i) => `ip-10-0-${i >> 4}-${i & 15}.ec2.internal`);
const NS = ['default', 'kube-system', 'shop', 'payments', 'logging', 'monitoring'];
const w = createWriteStream(out, { highWaterMark: 1 << 22 });
let bytes = 0;
let n = 0;
let t = Date.UTC(2026, 10, 30, 10, 0, 0);
const goJson = (v) => JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const ts = (ms) => new Date(ms).toISOString().replace('Z', '123Z');
// `bodies`: null (Metadata level), else { req, resp }: the requestObject and responseObject JSON (or null)
function line(id, stage, uri, verb, user, ua, ref, code, bodies = null) {
  const level = bodies === null ? 'Metadata' : 'RequestResponse';
  const head = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"${level}","auditID":"${id}","stage":"${stage}","requestURI":${goJson(uri)},"verb":"${verb}","user":{"username":"${user}","groups":["system:authenticated"]},"sourceIPs":["10.0.${n & 255}.${(n >> 8) & 255}"],"userAgent":"${ua}","objectRef":${goJson(ref)}`;
  const tail = stage === 'RequestReceived' ? '' : `,"responseStatus":{"metadata":{},"code":${code}}`;
  let body = '';
  if (bodies !== null && bodies.req !== null) body += `,"requestObject":${bodies.req}`;
  if (bodies !== null && bodies.resp !== null && stage !== 'RequestReceived') body += `,"responseObject":${bodies.resp}`;
  return `${head}${tail}${body},"requestReceivedTimestamp":"${ts(t)}","stageTimestamp":"${ts(t + 3)}"${stage === 'RequestReceived' ? '' : ',"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}'}}\n`;
}

// ---- bodies (RequestResponse level) -----------------------------------------------------------------------
// Pods and secrets are made once, as JSON (goJson), and lists join them: the generator stays fast.
const hex = (x, w) => (x >>> 0).toString(16).padStart(w, '0').slice(-w);
const uid = (k) => `${hex(k * 2654435761, 8)}-${hex(k * 40503, 4)}-4${hex(k, 3)}-8${hex(k * 7, 3)}-${hex(k * 97, 12)}`;
const created = (k) => new Date(Date.UTC(2026, 10, 1) + k * 60000).toISOString().replace('.000Z', 'Z');
const APPS = ['web', 'api', 'worker', 'cache', 'fluent-bit', 'node-exporter'];
function pod(k, node) {
  const app = APPS[k % APPS.length];
  const ns = NS[k % NS.length];
  const rs = `${app}-${hex(k * 31, 10)}`;
  const name = `${rs}-${hex(k * 131, 5)}`;
  const image = `registry.example.com/${ns}/${app}:1.${k % 20}.${k % 7}`;
  return goJson({
    metadata: {
      name, generateName: `${rs}-`, namespace: ns, uid: uid(k), resourceVersion: String(4000000 + k), creationTimestamp: created(k),
      labels: { app, 'pod-template-hash': hex(k * 31, 10), 'app.kubernetes.io/part-of': 'shop' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': created(k), 'prometheus.io/scrape': 'true', 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: app, labels: { app } }, spec: { containers: [{ name: app, image, args: ['--listen=:8080', '--log-format=json'] }] } }) + '\n' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: uid(k + 1e6), controller: true, blockOwnerDeletion: true }],
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: created(k), fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {} }, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${uid(k + 1e6)}"}`]: {} } }, 'f:spec': { 'f:containers': { [`k:{"name":"${app}"}`]: { '.': {}, 'f:image': {}, 'f:name': {} } } } } }],
    },
    spec: {
      volumes: [{ name: `kube-api-access-${hex(k, 5)}`, projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }, { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }], defaultMode: 420 } }],
      containers: [{ name: app, image, args: ['--listen=:8080', '--log-format=json', `--greeting="hello <world> & co"`], ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }, { name: 'WIN_PATH', value: 'C:\\data\\cache' }], resources: { limits: { memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } }, volumeMounts: [{ name: `kube-api-access-${hex(k, 5)}`, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }], terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', serviceAccountName: 'default', serviceAccount: 'default', nodeName: node, securityContext: {}, schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: created(k) })),
      hostIP: `10.0.${k & 15}.${(k >> 4) & 255}`, podIP: `10.1.${(k >> 8) & 255}.${k & 255}`, podIPs: [{ ip: `10.1.${(k >> 8) & 255}.${k & 255}` }], startTime: created(k),
      containerStatuses: [{ name: app, state: { running: { startedAt: created(k) } }, lastState: {}, ready: true, restartCount: k % 3, image, imageID: `${image}@sha256:${hex(k * 7919, 8).repeat(8)}`, containerID: `containerd://${hex(k * 104729, 8).repeat(8)}`, started: true }],
      qosClass: 'Burstable',
    },
  });
}
function secret(k, ns) {
  return goJson({
    metadata: { name: `app-config-${k}`, namespace: ns, uid: uid(k + 2e6), resourceVersion: String(5000000 + k), creationTimestamp: created(k), labels: { 'app.kubernetes.io/managed-by': 'Helm' }, annotations: { 'meta.helm.sh/release-name': `rel-${k % 40}`, 'meta.helm.sh/release-namespace': ns } },
    data: { 'config.yaml': Buffer.from(`db: postgres://app@db-${k}:5432/app\ncache: redis://cache:6379\nfeature_${k}: true\n`).toString('base64'), password: Buffer.from(`pw-${hex(k * 7, 12)}`).toString('base64') },
    type: 'Opaque',
  });
}
// 30 pods a node (pod k runs on node k % 200), 600 secrets
const PODS = Array.from({ length: 30 * NODES.length }, (_, k) => pod(k, NODES[k % NODES.length]));
const SECRETS = Array.from({ length: 600 }, (_, k) => secret(k, NS[k % NS.length]));
// a list's body: `count` items of `pool` from `at` in steps of `step`, and a continue token with
// remainingItemCount when more remain
function listBody(kind, pool, at, step, count, remaining) {
  const items = [];
  for (let i = 0; i < count; i++) items.push(pool[(at + i * step) % pool.length]);
  const more = remaining > 0 ? `,"continue":"${Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 7000000 + n, start: `x${n}\u0000` })).toString('base64')}","remainingItemCount":${remaining}` : '';
  return `{"kind":"${kind}","apiVersion":"v1","metadata":{"resourceVersion":"${7000000 + n}"${more}},"items":[${items.join(',')}]}`;
}
const lease = (node, ver) => goJson({ kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', metadata: { name: node, namespace: 'kube-node-lease', uid: uid(n), resourceVersion: String(ver), creationTimestamp: created(1), ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: uid(n + 3e6) }] }, spec: { holderIdentity: node, leaseDurationSeconds: 40, renewTime: ts(t) } });
const configMap = (ns, k) => goJson({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `cm-${k}`, namespace: ns, uid: uid(k + 4e6), resourceVersion: String(6000000 + k), creationTimestamp: created(k) }, data: { 'app.properties': `color=blue\nsize=${k}\nendpoint=https://api.example.com/v1?a=1&b=2\n`.repeat(1 + (k % 6)), 'settings.json': JSON.stringify({ retries: k % 5, tags: ['<a>', 'b&c'], path: 'C:\\x' }) } });
const nodeStatusPatch = (node) => goJson({ status: { conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({ type, lastHeartbeatTime: ts(t) })), $setElementOrder: { conditions: [{ type: 'MemoryPressure' }, { type: 'DiskPressure' }, { type: 'PIDPressure' }, { type: 'Ready' }] } } });
const nodeBody = (node) => goJson({ kind: 'Node', apiVersion: 'v1', metadata: { name: node, uid: uid(n + 3e6), resourceVersion: String(8000000 + n), labels: { 'kubernetes.io/hostname': node, 'kubernetes.io/os': 'linux', 'node.kubernetes.io/instance-type': 'm5.xlarge', 'topology.kubernetes.io/zone': 'eu-west-1a' }, annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } }, spec: { providerID: `aws:///eu-west-1a/i-${hex(n, 17)}` }, status: { capacity: { cpu: '4', memory: '16069268Ki', pods: '58' }, allocatable: { cpu: '3920m', memory: '15052436Ki', pods: '58' }, conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({ type, status: type === 'Ready' ? 'True' : 'False', lastHeartbeatTime: ts(t), lastTransitionTime: created(2), reason: `Kubelet${type}`, message: `kubelet has no ${type}` })), addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: node }], nodeInfo: { kubeletVersion: 'v1.29.4', containerRuntimeVersion: 'containerd://1.7.11', kernelVersion: '5.10.205-195.807.amzn2.x86_64', osImage: 'Amazon Linux 2', architecture: 'amd64', operatingSystem: 'linux' }, images: Array.from({ length: 12 }, (_, i) => ({ names: [`registry.example.com/img-${i}@sha256:${hex(i * 7919, 8).repeat(8)}`, `registry.example.com/img-${i}:1.${i}`], sizeBytes: 10000000 + i * 12345 })) } });
const eventBody = (k) => goJson({ kind: 'Event', apiVersion: 'v1', metadata: { name: `web.${hex(k, 16)}`, namespace: 'shop' }, involvedObject: { kind: 'ReplicaSet', namespace: 'shop', name: 'web-5d8f7c', uid: uid(k), apiVersion: 'apps/v1', resourceVersion: String(k) }, reason: 'SuccessfulCreate', message: `Created pod: web-5d8f7c-${hex(k, 5)}`, source: { component: 'replicaset-controller' }, firstTimestamp: ts(t), lastTimestamp: ts(t), count: 1, type: 'Normal', eventTime: null, reportingComponent: 'replicaset-controller', reportingInstance: '' });
function next() {
  n++;
  t += 2;
  const id = `${(n * 2654435761 >>> 0).toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  const node = pick(NODES);
  const r = rand() * 100;
  const rr = rand() < 0.1; // RequestResponse level
  let uri, verb, user, ua, ref;
  let bodies = null;
  if (r < 30) {
    verb = rand() < 0.5 ? 'get' : 'update';
    uri = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}?timeout=10s`;
    user = `system:node:${node}`;
    ua = 'kubelet/v1.29.4 (linux/amd64) kubernetes/55cb3b7';
    ref = { resource: 'leases', namespace: 'kube-node-lease', name: node, apiGroup: 'coordination.k8s.io', apiVersion: 'v1' };
    if (rr) bodies = { req: verb === 'update' ? lease(node, 9000000 + n) : null, resp: lease(node, 9000001 + n) };
  } else if (r < 50) {
    const ns = pick(NS);
    verb = 'get';
    uri = `/api/v1/namespaces/${ns}/configmaps/cm-${Math.floor(rand() * 50)}`;
    user = `system:serviceaccount:${ns}:app`;
    ua = 'app/1.0 (linux/amd64) kubernetes/v0.29.0';
    ref = { resource: 'configmaps', namespace: ns, name: 'cm', apiVersion: 'v1' };
    if (rr) bodies = { req: null, resp: configMap(ns, Math.floor(rand() * 50)) };
  } else if (r < 65) {
    verb = 'list';
    const k = rand();
    if (k < 0.33) {
      uri = `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`;
      user = 'system:serviceaccount:vector:vector';
      ua = 'vector/0.34.1 (x86_64-unknown-linux-gnu 2023-12-01)';
    } else if (k < 0.66) {
      uri = `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}&limit=500&resourceVersion=0`;
      user = `system:node:${node}`;
      ua = 'kubelet/v1.29.4 (linux/amd64) kubernetes/55cb3b7';
    } else {
      uri = `/api/v1/namespaces/${pick(NS)}/secrets?limit=500&resourceVersion=0`;
      user = 'system:kube-controller-manager';
      ua = 'kube-controller-manager/v1.29.4 (linux/amd64) kubernetes/55cb3b7';
    }
    ref = { resource: uri.includes('secrets') ? 'secrets' : 'pods', apiVersion: 'v1' };
    if (rr) {
      // the pods of the node (5 to 30), or a namespace of 20 to 800 secrets in a page of at most 500
      if (k < 0.66) bodies = { req: null, resp: listBody('PodList', PODS, NODES.indexOf(node), NODES.length, 5 + Math.floor(rand() * 26), 0) };
      else {
        const total = 20 + Math.floor(rand() * 780);
        bodies = { req: null, resp: listBody('SecretList', SECRETS, Math.floor(rand() * SECRETS.length), 1, Math.min(total, 500), Math.max(0, total - 500)) };
      }
    }
  } else if (r < 80) {
    verb = 'watch';
    uri = `/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3D${node}&resourceVersion=${1000 + n}&timeout=7m32s&timeoutSeconds=452&watch=true`;
    user = `system:node:${node}`;
    ua = 'kubelet/v1.29.4 (linux/amd64) kubernetes/55cb3b7';
    ref = { resource: 'pods', apiVersion: 'v1' };
  } else if (r < 90) {
    verb = 'patch';
    uri = `/api/v1/nodes/${node}/status?timeout=10s`;
    user = `system:node:${node}`;
    ua = 'kubelet/v1.29.4 (linux/amd64) kubernetes/55cb3b7';
    ref = { resource: 'nodes', name: node, apiVersion: 'v1', subresource: 'status' };
    if (rr) bodies = { req: nodeStatusPatch(node), resp: nodeBody(node) };
  } else {
    verb = 'create';
    uri = '/api/v1/namespaces/shop/events';
    user = 'system:serviceaccount:kube-system:replicaset-controller';
    ua = 'kube-controller-manager/v1.29.4 (linux/amd64) kubernetes/55cb3b7/system:serviceaccount:kube-system:replicaset-controller';
    ref = { resource: 'events', namespace: 'shop', apiVersion: 'v1' };
    if (rr) {
      const ev = eventBody(n);
      bodies = { req: ev, resp: ev };
    }
  }
  let text = '';
  if (n % 4 === 0) text += line(id, 'RequestReceived', uri, verb, user, ua, ref, 0, bodies);
  text += line(id, 'ResponseComplete', uri, verb, user, ua, ref, 200, bodies);
  return text;
}
(async () => {
  while (bytes < target) {
    let buf = '';
    for (let i = 0; i < 2000; i++) buf += next();
    bytes += Buffer.byteLength(buf);
    if (!w.write(buf)) await new Promise((r) => w.once('drain', r));
  }
  w.end(() => console.error(`wrote ${out}: ${bytes} bytes, ${n} requests`));
})();
