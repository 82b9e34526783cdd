// The fast path's contract (src/parse/audit-line.ts): parseAuditLine(s) is null, or JSON.parse(s) succeeds and
// everything read downstream is equal. Checked on hand-made cases, on every line of the fixtures and the
// corpus, and on seeded random corruptions of real lines.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAuditLine } from '../../src/parse/audit-line.js';
import { normalizeAuditEvent, looksLikeAuditEvent } from '../../src/model/audit-event.js';
import { mulberry32 } from '../../fixtures/prng.mjs';

const DISPATCH_KEYS = ['items', 'records', 'logEvents', 'properties', 'protoPayload', 'Entry'];

/** Checks the contract for one line; returns whether the fast path took it. */
function checkLine(s: string): boolean {
  const fast = parseAuditLine(s);
  if (fast === null) return false;
  let full: Record<string, unknown>;
  try {
    full = JSON.parse(s) as Record<string, unknown>;
  } catch (e) {
    // The stated leniency: a raw control character inside a string.
    if (/[\u0000-\u001f]/.test(s) && String(e).includes('control character')) return true;
    throw new Error(`fast path accepted a line JSON.parse rejects (${String(e)}): ${JSON.stringify(s.slice(0, 300))}`);
  }
  expect(full !== null && typeof full === 'object' && !Array.isArray(full)).toBe(true);
  for (const k of DISPATCH_KEYS) expect(k in full, `${k} in ${s.slice(0, 200)}`).toBe(false);
  expect(looksLikeAuditEvent(full)).toBe(true);
  expect(normalizeAuditEvent(fast, 'fallback')).toEqual(normalizeAuditEvent(full, 'fallback'));
  return true;
}

const CANON =
  '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0f0e0d0c-0000-4000-8000-000000000001","stage":"ResponseComplete",' +
  '"requestURI":"/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1\\u0026limit=500","verb":"list",' +
  '"user":{"username":"system:serviceaccount:vector:vector","uid":"u-1","groups":["system:serviceaccounts","system:authenticated"],' +
  '"extra":{"authentication.kubernetes.io/node-name":["node-1"],"authentication.kubernetes.io/pod-name":["vector-abc"]}},' +
  '"sourceIPs":["10.0.0.1"],"userAgent":"vector/0.34.0","objectRef":{"resource":"pods","apiVersion":"v1"},' +
  '"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-30T10:00:00.002123Z",' +
  '"stageTimestamp":"2026-11-30T10:00:00.105123Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}';

// [what, line, whether the fast path must take it]
const CASES: Array<[string, string, boolean]> = [
  ['the canonical member order, an escaped & in the URI', CANON, true],
  ['members in another order', '{"verb":"get","kind":"Event","stage":"ResponseComplete","requestURI":"/api/v1/nodes/n1","user":{"username":"system:node:n1"},"auditID":"a1"}', true],
  ['no apiVersion (falco samples)', '{"auditID":"a","kind":"Event","level":"Metadata","requestURI":"/api","stage":"ResponseComplete","verb":"get"}', true],
  ['impersonatedUser and legacy timestamp', '{"kind":"Event","apiVersion":"audit.k8s.io/v1","metadata":{"creationTimestamp":"2017-09-11T19:55:05Z"},"level":"Metadata","timestamp":"2017-09-11T19:55:05Z","auditID":"x","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/pods","verb":"list","user":{"username":"system:admin","groups":["system:masters"]},"impersonatedUser":{"username":"bob","groups":["system:authenticated"]},"sourceIPs":["::1"],"objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"pods is forbidden: User \\"bob\\" cannot list pods","reason":"Forbidden","details":{"kind":"pods"},"code":403}}', true],
  ['escaped quotes and a unicode escape in the user agent', CANON.replace('"vector/0.34.0"', '"say \\"hi\\" \\u001b[31m \\\\"'), true],
  ['a duplicate member: the last wins, as in JSON.parse', CANON.replace('"verb":"list"', '"verb":"get","verb":"list"'), true],
  ['a negative and a zero code', CANON.replace('"code":200', '"code":-0'), true],
  ['nested values walked over', CANON.replace('"annotations":{', '"annotations":{"x":[1,true,false,null,{"y":[[]]}],'), true],
  ['a requestObject goes to JSON.parse', CANON.replace('"requestReceivedTimestamp"', '"requestObject":{"spec":{"expirationSeconds":3607}},"requestReceivedTimestamp"'), false],
  ['a responseObject goes to JSON.parse', CANON.replace('"requestReceivedTimestamp"', '"responseObject":{"items":[]},"requestReceivedTimestamp"'), false],
  ['whitespace between tokens', CANON.replace('"verb":"list"', '"verb": "list"'), false],
  ['trailing whitespace', CANON + ' ', false],
  ['two lines run together (a torn write)', CANON.slice(0, 300) + CANON, false],
  ['a truncated line', CANON.slice(0, -3), false],
  ['an invalid escape', CANON.replace('"vector/0.34.0"', '"bad \\x"'), false],
  ['a float code', CANON.replace('"code":200', '"code":200.5'), false],
  ['a leading zero', CANON.replace('"code":200', '"code":0200'), false],
  ['an EventList', '{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[]}', false],
  ['kind is not Event', CANON.replace('"kind":"Event"', '"kind":"Pod"'), false],
  ['a non-string verb', CANON.replace('"verb":"list"', '"verb":7'), false],
  ['user is null', CANON.replace(/"user":\{.*?\}\},/, '"user":null,'), false],
  ['an escaped key', CANON.replace('"verb":', '"ver\\u0062":'), false],
  ['a __proto__ member', CANON.replace('"verb":"list"', '"verb":"list","__proto__":{"x":1}'), false],
  ['deep nesting', CANON.replace('"annotations":{', `"annotations":{"d":${'['.repeat(40)}${']'.repeat(40)},`), false],
  ['a non-string objectRef member', CANON.replace('"resource":"pods"', '"resource":5'), false],
];

describe('parseAuditLine', () => {
  it.each(CASES)('%s', (_what, line, taken) => {
    expect(checkLine(line)).toBe(taken);
  });

  it('keeps what normalizeAuditEvent reads from the canonical line', () => {
    const e = normalizeAuditEvent(parseAuditLine(CANON)!, 'f');
    expect(e.ok && e.value).toMatchObject({
      auditID: '0f0e0d0c-0000-4000-8000-000000000001',
      requestURI: '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&limit=500',
      username: 'system:serviceaccount:vector:vector',
      nodeName: 'node-1',
      userAgent: 'vector/0.34.0',
      resource: 'pods',
      code: 200,
      receivedMs: Date.parse('2026-11-30T10:00:00.002Z'),
    });
  });

  it('reads a raw control character inside a string (the stated leniency)', () => {
    const line = CANON.replace('vector/0.34.0', 'vector\t0.34.0');
    expect(() => JSON.parse(line)).toThrow();
    const o = parseAuditLine(line);
    expect(o?.userAgent).toBe('vector\t0.34.0');
  });

  it('holds on every line of the fixtures and the corpus', () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const f of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, f.name);
        if (f.isDirectory()) walk(p);
        else if (/\.(log|jsonl|json)(\.gz)?$/.test(f.name)) files.push(p);
      }
    };
    walk('fixtures');
    if (existsSync('../shared/corpus')) walk('../shared/corpus');
    let lines = 0;
    const taken = new Map<string, number>();
    for (const f of files) {
      let b = readFileSync(f);
      if (b[0] === 0x1f && b[1] === 0x8b) {
        try {
          b = gunzipSync(b);
        } catch {
          continue; // the cut and padded gzip fixtures
        }
      }
      for (const line of b.toString('utf8').split('\n')) {
        lines++;
        if (checkLine(line.endsWith('\r') ? line.slice(0, -1) : line)) taken.set(f, (taken.get(f) ?? 0) + 1);
      }
    }
    expect(lines).toBeGreaterThan(5000);
    // Metadata-level lines in kube-apiserver's member order all take the fast path; bodies do not.
    expect(taken.get(join('fixtures', 'demo', 'apiserver-a-audit.log.gz'))).toBe(1614);
    expect(taken.get(join('fixtures', 'time', 'token-waves.log'))).toBe(900);
    expect(taken.get(join('fixtures', 'audit', 'seed-vector-requestresponse.jsonl'))).toBeUndefined();
  });

  it('holds on 20,000 seeded random corruptions of real lines', () => {
    const demo = readFileSync('fixtures/demo/apiserver-b-audit.log', 'utf8').split('\n').filter((l) => l.length > 0);
    const seeds = [CANON, ...demo.filter((_, i) => i % 97 === 0)];
    const rnd = mulberry32(20261201);
    const pick = <T,>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
    const ALPHABET = ['{', '}', '[', ']', '"', ':', ',', '\\', ' ', 'a', '0', '-', '.', 'e', 'u', 'n', 'é', '\u2028'];
    let taken = 0;
    for (let t = 0; t < 20_000; t++) {
      let s = pick(seeds);
      const edits = 1 + Math.floor(rnd() * 3);
      for (let k = 0; k < edits; k++) {
        const at = Math.floor(rnd() * s.length);
        const op = rnd();
        if (op < 0.35) s = s.slice(0, at) + s.slice(at + 1);
        else if (op < 0.7) s = s.slice(0, at) + pick(ALPHABET) + s.slice(at);
        else if (op < 0.85) s = s.slice(0, at) + pick(ALPHABET) + s.slice(at + 1);
        else s = s.slice(0, at) + s.slice(Math.floor(rnd() * s.length));
      }
      if (checkLine(s)) taken++;
    }
    // Many corruptions land inside a string and leave valid JSON: the fast path must take those too.
    expect(taken).toBeGreaterThan(2000);
  });
});
