#!/usr/bin/env node
// Deterministic generator of kube-apiserver's own log at -v=3 for the benchmark: node bench/generate-apiserver-log.mjs OUT SIZE_MB
// The traffic mix of generate.mjs (per 100 requests: 30 lease get/update by kubelets, 20 configmap gets, 15 lists
// (a third by Vector by spec.nodeName without resourceVersion, a third by kubelets from the cache, a third of
// secrets by the controller-manager), 15 watches, 10 node status patches, 10 event creates; 200 nodes), written as
// 1.29 writes it (docs/apiserver-log-formats.md): one httplog line a request (httplog.go:132, with audit-ID, srcIP
// and the APF fields); the Vector lists that took over 500 ms (1 in 8 of them) also as a trace block (trace.go:236)
// with the nested "List(recursive=true) etcd3" step and the returned count, written before the httplog line as the
// apiserver does. Deterministic: the same bytes for the same size.
import { createWriteStream } from 'node:fs';
import { mulberry32 } from '../fixtures/prng.mjs';

const [out, sizeArg] = process.argv.slice(2);
const target = Number(sizeArg ?? 1024) * 1024 * 1024;
const rand = mulberry32(1);
const pick = (a) => a[Math.floor(rand() * a.length)];
const NODES = Array.from({ length: 200 }, (_, i) => `ip-10-0-${i >> 4}-${i & 15}.ec2.internal`);
const NODE_INDEX = new Map(NODES.map((x, i) => [x, i]));
const NS = ['default', 'kube-system', 'shop', 'payments', 'logging', 'monitoring'];
const w = createWriteStream(out, { highWaterMark: 1 << 22 });
let bytes = 0;
let n = 0;
let t = Date.UTC(2026, 10, 30, 10, 0, 0);
let traceId = 100000000;
const p2 = (x) => String(x).padStart(2, '0');
/** klog's header: I1130 10:00:00.123456       1 file.go:N] */
const klog = (ms, caller) => {
  const d = new Date(ms);
  return `I${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}${String(n % 1000).padStart(3, '0')}       1 ${caller}] `;
};
const clock = (ms) => new Date(ms).toISOString().slice(11, 23);
const traceDate = (ms) => {
  const d = new Date(ms);
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  return `${p2(d.getUTCDate())}-${mon}-${d.getUTCFullYear()} ${clock(ms)}`;
};
const APF = {
  kubelet: ['system', 'system-nodes'],
  vector: ['workload-low', 'service-accounts'],
  app: ['workload-low', 'service-accounts'],
  kcm: ['workload-high', 'kube-controller-manager'],
};

function httplog(id, method, uri, ua, apf, ip, latencyMs, code) {
  const lat = latencyMs >= 1000 ? `${(latencyMs / 1000).toFixed(3)}s` : `${latencyMs}ms`;
  return `${klog(t, 'httplog.go:132')}"HTTP" verb="${method}" URI="${uri}" latency="${lat}" userAgent="${ua}" audit-ID="${id}" srcIP="${ip}:${30000 + (n % 30000)}" apf_pl="${apf[0]}" apf_fs="${apf[1]}" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="${Math.max(1, latencyMs - 1)}ms" resp=${code}\n`;
}

function trace(id, path, ua, ip, latencyMs, returned) {
  const tid = ++traceId;
  const start = t - latencyMs;
  return (
    `${klog(t, 'trace.go:236')}Trace[${tid}]: "List" accept:application/json, */*,audit-id:${id},client:${ip},protocol:HTTP/2.0,resource:pods,scope:cluster,url:${path},user-agent:${ua},verb:LIST (${traceDate(start)}) (total time: ${latencyMs}ms):\n` +
    `Trace[${tid}]: ["List(recursive=true) etcd3" audit-id:${id},key:/pods,resourceVersion:,resourceVersionMatch:,limit:0,continue: ${latencyMs - 60}ms (${clock(start)})]\n` +
    `Trace[${tid}]: ---"Writing http response done" count:${returned} 55ms (${clock(t - 1)})\n` +
    `Trace[${tid}]: [${latencyMs}ms] [${latencyMs}ms] END\n`
  );
}

function next() {
  n++;
  t += 2;
  const id = `${((n * 2654435761) >>> 0).toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  const node = pick(NODES);
  // where a request comes from, as in a cluster: a node's kubelet and Vector pod from the node's address, the apps
  // from 48 pod addresses, the controller-manager from its control-plane node
  const ni = NODE_INDEX.get(node);
  const nodeIp = `10.0.${ni >> 4}.${(ni & 15) + 10}`;
  const podIp = `10.244.${(n % 48) >> 3}.${(n % 8) + 2}`;
  const kcmIp = '10.0.250.2';
  const r = rand() * 100;
  const kubelet = 'kubelet/v1.29.4 (linux/amd64) kubernetes/55cb3b7';
  if (r < 30) {
    const get = rand() < 0.5;
    return httplog(id, get ? 'GET' : 'PUT', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}?timeout=10s`, kubelet, APF.kubelet, nodeIp, 3, 200);
  }
  if (r < 50) {
    const ns = pick(NS);
    return httplog(id, 'GET', `/api/v1/namespaces/${ns}/configmaps/cm-${Math.floor(rand() * 50)}`, 'app/1.0 (linux/amd64) kubernetes/v0.29.0', APF.app, podIp, 2, 200);
  }
  if (r < 65) {
    const k = rand();
    if (k < 0.33) {
      const ua = 'vector/0.34.1 (x86_64-unknown-linux-gnu 2023-12-01)';
      // every 8th Vector list is slow: traced, from etcd, 30 of 6,000 pods returned
      if (n % 8 === 0) return trace(id, '/api/v1/pods', ua, nodeIp, 640, 30) + httplog(id, 'LIST', `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`, ua, APF.vector, nodeIp, 640, 200);
      return httplog(id, 'LIST', `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`, ua, APF.vector, nodeIp, 120, 200);
    }
    if (k < 0.66) return httplog(id, 'LIST', `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}&limit=500&resourceVersion=0`, kubelet, APF.kubelet, nodeIp, 8, 200);
    return httplog(id, 'LIST', `/api/v1/namespaces/${pick(NS)}/secrets?limit=500&resourceVersion=0`, 'kube-controller-manager/v1.29.4 (linux/amd64) kubernetes/55cb3b7', APF.kcm, kcmIp, 6, 200);
  }
  if (r < 80) {
    // a watch is logged when it ends (1.31+; 1.30.0–1.30.3 logged it at its start with resp=0)
    return httplog(id, 'WATCH', `/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3D${node}&resourceVersion=${1000 + n}&timeout=7m32s&timeoutSeconds=452&watch=true`, kubelet, APF.kubelet, nodeIp, 452_000, 200);
  }
  if (r < 90) return httplog(id, 'PATCH', `/api/v1/nodes/${node}/status?timeout=10s`, kubelet, APF.kubelet, nodeIp, 5, 200);
  return httplog(id, 'POST', '/api/v1/namespaces/shop/events', 'kube-controller-manager/v1.29.4 (linux/amd64) kubernetes/55cb3b7/system:serviceaccount:kube-system:replicaset-controller', APF.kcm, kcmIp, 4, 201);
}

(async () => {
  // the start of a log: the version line the report takes the apiserver's version from
  let head = `${klog(t, 'server.go:150')}Version: v1.29.4\n`;
  bytes += Buffer.byteLength(head);
  w.write(head);
  while (bytes < target) {
    let buf = '';
    for (let i = 0; i < 4000; i++) buf += next();
    bytes += Buffer.byteLength(buf);
    if (!w.write(buf)) await new Promise((r) => w.once('drain', r));
  }
  w.end(() => console.error(`wrote ${out}: ${bytes} bytes, ${n} requests`));
})();
