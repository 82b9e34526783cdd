#!/usr/bin/env node
// A deterministic log for the spike's correctness check (not for timing): node bench/spike/edge-log.mjs OUT [REQUESTS]
// Short lines, enough requests that every table grows (groups, (group, second) buckets, seconds, verbs) and the
// dedup ring wraps (more than 65,536 terminal IDs), plus what the aggregators must tell apart: duplicates near
// (inside the ring) and far (outside it: counted again), missing auditIDs, Panic, requests logged only at
// RequestReceived (the spike leaves them out), earlier stages logged before and after the final one, codes of
// each class, absent user agents, selectors, limits and resourceVersions.
import { writeFileSync } from 'node:fs';

const [out, nArg] = process.argv.slice(2);
const N = Number(nArg ?? 160000);
const base = Date.UTC(2026, 10, 30, 10, 0, 0);
const ts = (ms) => new Date(ms).toISOString().replace('Z', '456Z');
const VERBS = ['get', 'list', 'watch', 'update', 'patch', 'create', 'delete', 'deletecollection', 'proxy'];
const CODES = [200, 200, 200, 200, 201, 404, 409, 500, 503, 301];

function request(i) {
  const verb = VERBS[i % 7 === 0 ? 7 + (i % 2) : i % 7];
  const user = `system:serviceaccount:ns${i % 13}:sa${i % 5}`;
  const ua = i % 211 === 0 ? null : `client-${i % 17}/v1.${i % 3}`;
  let q = '';
  if (verb === 'list' || verb === 'watch') {
    const parts = [];
    if (i % 3 === 0) parts.push(`fieldSelector=spec.nodeName%3Dnode-${i % 11}`);
    if (i % 5 === 0) parts.push(`labelSelector=app%3Dweb${i % 4}`);
    if (i % 2 === 0) parts.push('limit=500');
    if (i % 4 === 1) parts.push('resourceVersion=0');
    else if (i % 4 === 2) parts.push(`resourceVersion=${1000 + i}`);
    if (verb === 'watch') parts.push('watch=true');
    if (parts.length > 0) q = `?${parts.join('&')}`;
  }
  const namespaced = i % 6 !== 0;
  const uri = namespaced ? `/api/v1/namespaces/ns${i % 13}/pods${q}` : `/api/v1/pods${q}`;
  const ref = namespaced ? `{"resource":"pods","namespace":"ns${i % 13}","apiVersion":"v1"}` : '{"resource":"pods","apiVersion":"v1"}';
  const code = i % 389 === 0 ? 429 : CODES[i % CODES.length];
  const t = base + i * 15;
  return { id: i % 501 === 0 ? null : `id-${i.toString(36)}-${(i * 2654435761) >>> 0}`, verb, user, ua, uri, ref, code, t };
}

function line(r, stage) {
  const id = r.id === null ? '' : `"auditID":"${r.id}",`;
  const ua = r.ua === null ? '' : `"userAgent":"${r.ua}",`;
  const status = stage === 'RequestReceived' ? '' : `"responseStatus":{"metadata":{},"code":${r.code}},`;
  return `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata",${id}"stage":"${stage}","requestURI":"${r.uri}","verb":"${r.verb}","user":{"username":"${r.user}"},${ua}"objectRef":${r.ref},${status}"requestReceivedTimestamp":"${ts(r.t)}","stageTimestamp":"${ts(r.t + 4)}"}\n`;
}

const lines = [];
const later = new Map(); // request index → lines to write after it
const emitAfter = (i, l) => {
  const a = later.get(i);
  if (a === undefined) later.set(i, [l]);
  else a.push(l);
};
for (let i = 1; i <= N; i++) {
  const r = request(i);
  const stage = i % 301 === 0 ? 'Panic' : 'ResponseComplete';
  if (i % 4 === 0) lines.push(line(r, 'RequestReceived'));
  if (i % 401 === 0) lines.push(line(r, 'RequestReceived')); // only RequestReceived: no final stage
  else {
    lines.push(line(r, stage));
    if (i % 7 === 0) emitAfter(i + 3, line(r, stage)); // a near duplicate
    if (i % 1000 === 0) emitAfter(i + 70000, line(r, stage)); // a far one: outside the ring, counted again
    if (i % 13 === 0) emitAfter(i + 2, line(r, 'ResponseStarted')); // an earlier stage logged after the final one
  }
  for (const l of later.get(i) ?? []) lines.push(l);
  later.delete(i);
}
writeFileSync(out, lines.join(''));
console.error(`wrote ${out}: ${lines.length} lines, ${N} requests`);
