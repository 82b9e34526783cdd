#!/usr/bin/env node
// Deterministic generator of a realistic audit log for the benchmark: node ./bench/generate.mjs OUT SIZE_MB
// Traffic mix (per 100 events): 30 lease get/update by kubelets, 20 gets, 15 lists (a third without
// resourceVersion, from a DaemonSet), 15 watches, 10 patches, 10 creates. 200 nodes, Metadata level,
// both RequestReceived and ResponseComplete for 1 in 4 requests. Strings are escaped as kube-apiserver's Go
// encoder writes them: `&`, `<` and `>` as \u0026, \u003c and \u003e (a real list URI reads
// `?fieldSelector=…\u0026limit=500`), so the parsers meet the escapes real logs carry.
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
function line(id, stage, uri, verb, user, ua, ref, code) {
  const head = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"${id}","stage":"${stage}","requestURI":${goJson(uri)},"verb":"${verb}","user":{"username":"${user}","groups":["system:authenticated"]},"sourceIPs":["10.0.${n & 255}.${(n >> 8) & 255}"],"userAgent":"${ua}","objectRef":${goJson(ref)}`;
  const tail = stage === 'RequestReceived' ? '' : `,"responseStatus":{"metadata":{},"code":${code}}`;
  return `${head}${tail},"requestReceivedTimestamp":"${ts(t)}","stageTimestamp":"${ts(t + 3)}"${stage === 'RequestReceived' ? '' : ',"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}'}}\n`;
}
function next() {
  n++;
  t += 2;
  const id = `${(n * 2654435761 >>> 0).toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  const node = pick(NODES);
  const r = rand() * 100;
  let uri, verb, user, ua, ref;
  if (r < 30) {
    verb = rand() < 0.5 ? 'get' : 'update';
    uri = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}?timeout=10s`;
    user = `system:node:${node}`;
    ua = 'kubelet/v1.29.4 (linux/amd64) kubernetes/55cb3b7';
    ref = { resource: 'leases', namespace: 'kube-node-lease', name: node, apiGroup: 'coordination.k8s.io', apiVersion: 'v1' };
  } else if (r < 50) {
    const ns = pick(NS);
    verb = 'get';
    uri = `/api/v1/namespaces/${ns}/configmaps/cm-${Math.floor(rand() * 50)}`;
    user = `system:serviceaccount:${ns}:app`;
    ua = 'app/1.0 (linux/amd64) kubernetes/v0.29.0';
    ref = { resource: 'configmaps', namespace: ns, name: 'cm', apiVersion: 'v1' };
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
  } else {
    verb = 'create';
    uri = '/api/v1/namespaces/shop/events';
    user = 'system:serviceaccount:kube-system:replicaset-controller';
    ua = 'kube-controller-manager/v1.29.4 (linux/amd64) kubernetes/55cb3b7/system:serviceaccount:kube-system:replicaset-controller';
    ref = { resource: 'events', namespace: 'shop', apiVersion: 'v1' };
  }
  let text = '';
  if (n % 4 === 0) text += line(id, 'RequestReceived', uri, verb, user, ua, ref, 0);
  text += line(id, 'ResponseComplete', uri, verb, user, ua, ref, 200);
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
