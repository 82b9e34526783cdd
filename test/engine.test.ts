// The compiled engine against the JavaScript path (issue 12): the same lines give the same report, byte for
// byte, and every line the engine reads gives the AuditEvent normalizeAuditEvent gives it. Inputs: every
// fixture, the property test's seeded corrupted logs, generated lines at the edges of the fast path, and
// generated RequestResponse lines with bodies (the engine reads their item counts and skips the rest).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLine, runCli, ROOT } from './support.js';
import { bodyLines, escapeLines, makeCase, podList } from './generated-logs.js';
import { LineEngine, loadEngine } from '../src/decode/engine/engine.js';
import type { AuditEvent } from '../src/model/audit-event.js';
import { normalizeAuditEvent } from '../src/decode/audit-event.js';
import { parseRequestUri } from '../src/decode/request-uri.js';

async function both(args: string[], stdin: Buffer | null = null): Promise<{ wasm: string; js: string; wasmErr: string; jsErr: string }> {
  const w = await runCli(['-o', 'json', '-j', '1', '--syslog-year', '2026', '--engine', 'wasm', ...args], stdin);
  const j = await runCli(['-o', 'json', '-j', '1', '--syslog-year', '2026', '--engine', 'js', ...args], stdin);
  expect(w.code).toBe(j.code);
  return { wasm: w.stdout, js: j.stdout, wasmErr: w.stderr, jsErr: j.stderr };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else if (!/\.(mjs|md|json)$/.test(e) || p.includes('/wrapped/')) out.push(p);
  }
  return out;
}

describe('the engine reads what the JavaScript path reads', () => {
  it('loads, SIMD build first', () => {
    const r = loadEngine();
    expect(r.engine).not.toBeNull();
    expect('variant' in r && r.variant).toBe('simd');
  });

  const fixtures = filesUnder(join(ROOT, 'fixtures')).filter((f) => !f.includes('/cases/'));
  it.each(fixtures.map((f) => [f.slice(ROOT.length)]))('%s: the same JSON report', async (rel) => {
    const r = await both([join(ROOT, rel)]);
    expect(r.wasm).toBe(r.js);
    expect(r.wasmErr).toBe(r.jsErr);
  });

  it('the demo, all inputs together', async () => {
    const r = await both([join(ROOT, 'fixtures/demo')]);
    expect(r.wasm).toBe(r.js);
  });

  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-engine-'));
  it.each(Array.from({ length: 12 }, (_, i) => i + 1))('seeded corrupted log %i: the same report from a file and from stdin', async (seed) => {
    const c = makeCase(seed);
    const f = join(dir, `p${seed}.log`);
    writeFileSync(f, c.bytes);
    const r = await both([f]);
    expect(r.wasm).toBe(r.js);
    const s = await both(['-'], c.bytes);
    expect(s.wasm).toBe(s.js);
  });

  it.each(Array.from({ length: 20 }, (_, i) => i + 1))('generated edge lines %i: the same report', async (seed) => {
    const b = escapeLines(seed);
    const f = join(dir, `e${seed}.log`);
    writeFileSync(f, b);
    const r = await both([f]);
    expect(r.wasm).toBe(r.js);
    expect(r.wasmErr).toBe(r.jsErr);
  });

  it.each(Array.from({ length: 8 }, (_, i) => i + 1))('generated RequestResponse lines %i: the same report', async (seed) => {
    const f = join(dir, `b${seed}.log`);
    writeFileSync(f, bodyLines(seed));
    const r = await both([f]);
    expect(r.wasm).toBe(r.js);
    expect(r.wasmErr).toBe(r.jsErr);
  });

  it('a line longer than one read (a 210 KB list response) is read by the engine, from a file and from stdin', async () => {
    // 40 lines: a small line, then a pod list of 200 items (about 210 KB), by turns. Before, every line that spanned
    // two reads was left to JSON.parse (here 4 of them from a file, more from a pipe).
    const out: string[] = [];
    for (let i = 0; i < 40; i++) {
      const big = i % 2 === 1;
      out.push(JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: big ? 'RequestResponse' : 'Metadata', auditID: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, stage: 'ResponseComplete', requestURI: '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', verb: 'list', user: { username: 'system:node:n1' }, userAgent: 'kubelet/v1.30.2', objectRef: { resource: 'pods', apiVersion: 'v1' }, responseStatus: { code: 200 }, ...(big ? { responseObject: podList(200) } : {}), requestReceivedTimestamp: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000000Z`, stageTimestamp: `2026-01-01T00:00:${String(i).padStart(2, '0')}.010000Z` }));
    }
    const text = Buffer.from(out.join('\n') + '\n');
    expect(text.length).toBeGreaterThan(20 * 150_000);
    const f = join(dir, 'long-lines.log');
    writeFileSync(f, text);
    for (const [args, stdin] of [[[f], null], [['-'], text]] as const) {
      const r = await runCli(['-o', 'json', '--verbose', '--engine', 'wasm', '-j', '1', ...args], stdin);
      // the first line of an input is always left to JavaScript (it may start with a BOM); before, 4 more were
      expect(r.stderr).toMatch(/the engine read 39 lines and left 1 to the JavaScript path/);
      const report = JSON.parse(r.stdout) as { listGroups: Array<{ requests: number; objectsReturnedPerRequest: number | null }> };
      expect(report.listGroups[0]!.requests).toBe(40);
      expect(report.listGroups[0]!.objectsReturnedPerRequest).toBe(200); // the mean over the 20 responses shown
      const b = await both([...args], stdin);
      expect(b.wasm).toBe(b.js);
    }
  });

  it('says per input how many lines it read and left to JavaScript, with --verbose', async () => {
    const f = join(dir, 'verbose.log');
    writeFileSync(f, escapeLines(3));
    const r = await runCli(['-o', 'json', '--verbose', '--engine', 'wasm', f]);
    const m = /the engine read ([\d,]+) lines? and left ([\d,]+) to the JavaScript path/.exec(r.stderr);
    expect(m).not.toBeNull();
    const [read, left] = [Number(m![1]!.replace(/,/g, '')), Number(m![2]!.replace(/,/g, ''))];
    expect(read + left).toBe(150);
    expect(read).toBeGreaterThan(20);
    expect(left).toBeGreaterThan(20);
    const js = await runCli(['-o', 'json', '--verbose', '--engine', 'js', f]);
    expect(js.stderr).not.toContain('the engine read');
  });
});

describe('line by line: the engine event is the normalised event', () => {
  const { engine } = loadEngine();
  it.each(Array.from({ length: 20 }, (_, i) => i + 1))('generated edge lines %i', (seed) => {
    const buf = escapeLines(seed);
    let accepted = 0;
    engine!.readLines(buf, 0, buf.lastIndexOf(10) + 1, 1 << 20, 1, (l) => {
      if (!l.accepted) return;
      accepted++;
      const text = buf.toString('utf8', l.start, l.end);
      const js = normalizeAuditEvent(JSON.parse(text), () => 'missing');
      expect(js.ok, text).toBe(true);
      if (!js.ok) return;
      const { query, selectorKey: _k, ...rest } = engine!.event();
      expect({ ...rest, auditID: l.missingId ? 'missing' : rest.auditID }, text).toEqual(js.value);
      expect(query, text).toEqual(parseRequestUri(js.value.requestURI).query);
    });
    expect(accepted).toBeGreaterThan(10);
  });

  // A line as the apiserver writes it, any member's raw JSON replaced (the tests below vary one or a few)
  type Members = { kind?: string; apiVersion?: string; level?: string; id?: string; stage?: string; uri?: string; user?: string; ua?: string; ref?: string; status?: string; received?: string };
  const member = (m: Members = {}): string =>
    `{"kind":${m.kind ?? '"Event"'},"apiVersion":${m.apiVersion ?? '"audit.k8s.io/v1"'},"level":${m.level ?? '"Metadata"'},"auditID":${m.id ?? '"v-1"'},"stage":${m.stage ?? '"ResponseComplete"'},` +
    `"requestURI":${m.uri ?? '"/api/v1/pods?limit=5"'},"verb":"list","user":${m.user ?? '{"username":"u"}'},"userAgent":${m.ua ?? '"ua"'},"objectRef":${m.ref ?? '{"resource":"pods","apiVersion":"v1"}'},` +
    `"responseStatus":${m.status ?? '{"metadata":{},"code":200}'},"requestReceivedTimestamp":${m.received ?? '"2026-11-30T10:00:00.000000Z"'},"stageTimestamp":"2026-11-30T10:00:00.100000Z"}`;

  // A kept string with escapes is unescaped 16 bytes at a time up to each backslash or its closing quote
  // (assembly/bytes.ts readString): an escape at every offset of strings shorter than, as long as and longer than
  // 16 bytes, alone or two together, in the members the engine keeps, must give JSON.parse's strings.
  it('kept strings with escapes at every offset: the unescaped strings JSON.parse gives', () => {
    const escapes = ['\\u0026', '\\"', '\\\\', '\\/', '\\n', '\\u00e9', '\\ud83d\\ude00', '\\u0026\\u0026'];
    const lines: string[] = [];
    for (const len of [0, 1, 7, 15, 16, 17, 31, 32, 33, 50]) {
      for (let at = 0; at <= len; at += len > 17 ? 3 : 1) {
        for (const e of escapes) {
          const s = 'x'.repeat(at) + e + 'y'.repeat(len - at);
          lines.push(member({ id: `"id-${lines.length}"`, uri: `"/api/v1/namespaces/n${s}/pods?labelSelector=a%3D${s}\\u0026limit=5"`, user: `{"username":"u${s}"}`, ua: `"${s}"`, ref: `{"resource":"pods","namespace":"n${s}","apiVersion":"v1"}` }));
        }
      }
    }
    const buf = Buffer.from(lines.join('\n') + '\n');
    // the SIMD build, and the scalar one (the byte loops where SIMD is missing)
    const scalar = new LineEngine(new WebAssembly.Instance(new WebAssembly.Module(readFileSync(join(ROOT, 'dist/decode/engine/engine.wasm'))), {}).exports as unknown as ConstructorParameters<typeof LineEngine>[0]);
    for (const eng of [engine!, scalar]) {
      let k = 0;
      eng.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => {
        const text = lines[k++]!;
        expect(l.accepted, text).toBe(true);
        const js = normalizeAuditEvent(JSON.parse(text), () => 'missing');
        expect(js.ok, text).toBe(true);
        if (!js.ok) return;
        const { query, selectorKey: _k, ...rest } = eng.event();
        expect(rest, text).toEqual(js.value);
        expect(query, text).toEqual(parseRequestUri(js.value.requestURI).query);
      });
      expect(k).toBe(lines.length);
    }
  });

  // The values most lines carry are compared whole where they stand (assembly/bytes.ts bytesAhead: kind "Event", the
  // v1 apiVersion, level "Metadata", stage "ResponseComplete", a 200 status as the apiserver writes it); anything
  // else, down to one byte more or a space, is read the usual way. Known answers: read or declined, and when read,
  // normalizeAuditEvent's event.
  it.each<[string, Members, boolean]>([
    ['the common values', {}, true],
    ['status 2000', { status: '{"metadata":{},"code":2000}' }, true],
    ['status 201', { status: '{"metadata":{},"code":201}' }, true],
    ['status 200 and more members', { status: '{"metadata":{},"code":200,"status":"Success"}' }, true],
    ['status 200 with a space', { status: '{"metadata":{}, "code":200}' }, true],
    ['status 200 twice', { status: '{"metadata":{},"code":200,"code":404}' }, false],
    ['status code first', { status: '{"code":200,"metadata":{}}' }, true],
    ['status code 200.0', { status: '{"metadata":{},"code":200.0}' }, false],
    ['status null', { status: 'null' }, true],
    ['level Request', { level: '"Request"' }, true],
    ['level Metadatas', { level: '"Metadatas"' }, true],
    ['level escaped', { level: '"Met\\u0061data"' }, true],
    ['stage ResponseStarted', { stage: '"ResponseStarted"' }, true],
    ['stage ResponseCompleted', { stage: '"ResponseCompleted"' }, false],
    ['stage escaped', { stage: '"ResponseComplet\\u0065"' }, true],
    ['kind Events', { kind: '"Events"' }, false],
    ['kind escaped', { kind: '"Ev\\u0065nt"' }, true],
    ['apiVersion v1beta1', { apiVersion: '"audit.k8s.io/v1beta1"' }, true],
    ['apiVersion v12', { apiVersion: '"audit.k8s.io/v12"' }, false],
  ])('common values compared whole: %s', (_name, m, read) => {
    const text = member(m);
    const buf = Buffer.from(text + '\n');
    const seen: Array<AuditEvent | null> = [];
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => seen.push(l.accepted ? engine!.event() : null));
    expect(seen.length).toBe(1);
    expect(seen[0] !== null, 'read by the engine').toBe(read);
    if (seen[0] === null) return;
    const js = normalizeAuditEvent(JSON.parse(text), () => 'missing');
    const { query: _q, selectorKey: _k, ...rest } = seen[0];
    expect(rest).toEqual(js.ok ? js.value : null);
  });

  // A time's milliseconds are its first three fraction digits, summed as an integer (assembly/members.ts fraction):
  // every count of digits, and what is not a fraction, as normalizeAuditEvent reads them.
  it.each(['', '.', '.5', '.05', '.123', '.1234', '.999999', '.000001', '.123456789', '.12a', '.1 '])('the time 10:00:07%sZ', (frac) => {
    const text = member({ received: `"2026-11-30T10:00:07${frac}Z"` });
    const buf = Buffer.from(text + '\n');
    const seen: Array<AuditEvent | null> = [];
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => seen.push(l.accepted ? engine!.event() : null));
    const js = normalizeAuditEvent(JSON.parse(text), () => 'missing');
    // read here exactly when the fraction is none or digits only (the others go to the JavaScript path)
    expect(seen[0] !== null).toBe(/^(\.\d+)?$/.test(frac));
    if (seen[0] === null) return;
    const { query: _q, selectorKey: _k, ...rest } = seen[0];
    expect(rest).toEqual(js.ok ? js.value : null);
    expect(rest.receivedMs! % 1000).toBe(frac.length > 1 ? Math.floor(Number(`0${frac}`) * 1000 + 1e-9) : 0);
  });

  // The request path is checked 16 bytes a step for a '%' and a "/watch" (parseQuery): either one, at every offset
  // across the steps, sends the line to the JavaScript path; a path with neither is read here.
  it("a path's '%' and \"/watch\" at every offset: declined; a path with neither: read", () => {
    const lines: Array<[string, boolean]> = [];
    for (let k = 0; k < 40; k++) {
      const pad = 'a'.repeat(k);
      for (const [path, read] of [[`/${pad}/watch/pods`, false], [`/${pad}%41/pods`, false], [`/${pad}/wat/pods`, true], [`/${pad}/watchers`, false], [`/${pad}/w`, true]] as const) {
        lines.push([member({ id: `"p-${lines.length}"`, uri: `"${path}?limit=5"` }), read]);
      }
    }
    const buf = Buffer.from(lines.map(([t]) => t).join('\n') + '\n');
    let k = 0;
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => {
      const [text, read] = lines[k++]!;
      expect(l.accepted, text).toBe(read);
      if (!read) return;
      const js = normalizeAuditEvent(JSON.parse(text), () => 'missing');
      const { query, selectorKey: _k, ...rest } = engine!.event();
      expect(rest, text).toEqual(js.ok ? js.value : null);
      expect(query, text).toEqual(parseRequestUri(text.split('"requestURI":"')[1]!.split('"')[0]!).query);
    });
    expect(k).toBe(lines.length);
  });

  it.each(Array.from({ length: 20 }, (_, i) => i + 1))('generated RequestResponse lines %i', (seed) => {
    const buf = bodyLines(seed);
    let accepted = 0;
    let returned = 0;
    let remaining = 0;
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => {
      if (!l.accepted) return;
      accepted++;
      const text = buf.toString('utf8', l.start, l.end);
      const js = normalizeAuditEvent(JSON.parse(text), () => 'missing');
      expect(js.ok, text.slice(0, 2000)).toBe(true);
      if (!js.ok) return;
      const { query: _q, selectorKey: _k, ...rest } = engine!.event();
      expect(rest, text.slice(0, 2000)).toEqual(js.value);
      if (rest.returnedItems !== null) returned++;
      if (rest.remainingItems !== null) remaining++;
    });
    // most lines have bodies, and the engine reads them (it declined every one before)
    expect(accepted).toBeGreaterThan(60);
    expect(returned).toBeGreaterThan(30);
    expect(remaining).toBeGreaterThan(3);
  });

  // The engine tries the member the apiserver writes next (assembly/event.ts ORDER) in one compare; any other
  // order, spacing, an extra or repeated member takes the usual path and must give the same event, or decline.
  it.each(Array.from({ length: 12 }, (_, i) => i + 1))('members in any order, spaced, repeated or extra %i', (seed) => {
    let x = seed * 2654435761;
    const r = (): number => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const members: Array<[string, unknown]> = [
      ['kind', 'Event'], ['apiVersion', 'audit.k8s.io/v1'], ['level', 'Metadata'], ['auditID', 'a-1'], ['stage', 'ResponseComplete'],
      ['requestURI', '/api/v1/namespaces/a/pods?limit=500&resourceVersion=0'], ['verb', 'list'], ['user', { username: 'system:node:n1', groups: ['g'] }],
      ['sourceIPs', ['10.0.0.1']], ['userAgent', 'kubelet/v1.31.0 (linux/amd64) kubernetes/abc'], ['objectRef', { resource: 'pods', namespace: 'a', apiVersion: 'v1' }],
      ['responseStatus', { metadata: {}, code: 200 }], ['requestReceivedTimestamp', '2026-11-30T10:00:00.000001Z'], ['stageTimestamp', '2026-11-30T10:00:00.100001Z'],
      ['annotations', { 'authorization.k8s.io/decision': 'allow' }],
    ];
    const lines: string[] = [];
    const text = (ms: Array<[string, unknown]>, sep = ':'): string => '{' + ms.map(([k, v]) => `${JSON.stringify(k)}${sep}${JSON.stringify(v)}`).join(',') + '}';
    lines.push(text(members)); // the apiserver's order
    for (let i = 0; i < 30; i++) {
      const ms = [...members];
      const kind = Math.floor(r() * 5);
      if (kind === 0) ms.sort(() => r() - 0.5); // shuffled
      else if (kind === 1) ms.splice(8, 0, ['impersonatedUser', { username: 'bob' }]); // between user and sourceIPs
      else if (kind === 2) ms.splice(Math.floor(r() * ms.length), 0, ['extra', { x: [1, 2] }]); // an unknown member
      else if (kind === 3) ms.splice(Math.floor(r() * ms.length), 0, ['objectRef', { resource: 'configmaps', apiVersion: 'v1' }]); // repeated
      else ms.splice(Math.floor(r() * ms.length), 1); // one left out
      lines.push(text(ms, r() < 0.3 ? ' : ' : ':'));
    }
    const buf = Buffer.from(lines.join('\n') + '\n');
    let accepted = 0;
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => {
      const line = buf.toString('utf8', l.start, l.end);
      const js = normalizeAuditEvent(JSON.parse(line), () => 'missing');
      if (!l.accepted) return;
      accepted++;
      expect(js.ok, line).toBe(true);
      if (!js.ok) return;
      const { query: _q, selectorKey: _k, ...rest } = engine!.event();
      expect({ ...rest, auditID: l.missingId ? 'missing' : rest.auditID }, line).toEqual(js.value);
      // a member given twice is JSON.parse's to settle (the last wins): the engine leaves those lines
      expect(line.split('"objectRef"').length, line).toBeLessThanOrEqual(2);
    });
    expect(accepted).toBeGreaterThan(10);
  });

  // parseTime keeps the last second it read: lines in one second, one with a bad fraction after a good one, the
  // same second in another form, a day past the month's end. Each line's times are normalizeAuditEvent's.
  it('times that share their second, and times that only look as if they did', () => {
    const times = [
      ['2026-11-30T10:00:00.000001Z', '2026-11-30T10:00:00.250001Z'],
      ['2026-11-30T10:00:00.5Z', '2026-11-30T10:00:00Z'],
      ['2026-11-30T10:00:00.9999999Z', '2026-11-30T10:00:00.12xZ'],
      ['2026-11-30T10:00:00.123456Z', '2026-11-30T10:00:01.000000Z'],
      ['2026-02-30T10:00:00.000000Z', '2026-02-30T10:00:00.000000Z'],
      ['2026-03-02T10:00:00.000000Z', '2026-11-30T10:00:00,000000Z'],
      ['2026-11-30T10:00:00.000000Z', '2026-11-30T10:00:00.'],
    ];
    const buf = Buffer.from(times.map(([a, b], i) => auditLine({ auditID: `t${i}`, requestReceivedTimestamp: a, stageTimestamp: b })).join('\n') + '\n');
    const got: Array<[number, number] | null> = [];
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => {
      const js = normalizeAuditEvent(JSON.parse(buf.toString('utf8', l.start, l.end)), () => 'x');
      if (!l.accepted) return got.push(null);
      const e = engine!.event();
      expect(js.ok && [js.value.receivedMs, js.value.stageMs]).toEqual([e.receivedMs, e.stageMs]);
      got.push([e.receivedMs!, e.stageMs!]);
    });
    const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);
    expect(got.slice(0, 5)).toEqual([[t0, t0 + 250], [t0 + 500, t0], null, [t0 + 123, t0 + 1000], [Date.UTC(2026, 2, 2, 10), Date.UTC(2026, 2, 2, 10)]]);
    // the second after a rolled-over day, and forms the engine leaves to the JavaScript path
    expect(got[5]).toBeNull();
    expect(got[6]).toBeNull();
  });

  it('the bench-style line: every field', () => {
    const line = readFileSync(join(ROOT, 'fixtures/wrapped/audit.log'), 'utf8').split('\n')[8]!;
    const buf = Buffer.from(line + '\n');
    const seen: unknown[] = [];
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => seen.push(l.accepted ? engine!.event() : null));
    const js = normalizeAuditEvent(JSON.parse(line), () => 'x');
    expect(js.ok && seen[0]).toMatchObject(js.ok ? { ...js.value } : {});
  });
});

// Hand-written RequestResponse lines and what each gives: read by the engine with these item counts (which must
// also be normalizeAuditEvent's), or left to the JavaScript path. Before the engine read bodies, it left all.
describe('bodies: known answers', () => {
  const { engine } = loadEngine();
  const POD_REF = '{"resource":"pods","apiVersion":"v1"}';
  const line = (bodies: string, ref = POD_REF): string =>
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"k1","stage":"ResponseComplete",' +
    '"requestURI":"/api/v1/pods?limit=500","verb":"list","user":{"username":"alice","groups":["system:authenticated"]},' +
    `"sourceIPs":["10.0.0.1"],"userAgent":"kubectl/v1.29.4","objectRef":${ref},"responseStatus":{"metadata":{},"code":200},` +
    `${bodies},"requestReceivedTimestamp":"2026-11-30T10:00:00.000000Z","stageTimestamp":"2026-11-30T10:00:00.100000Z"}`;
  const resp = (body: string): string => line(`"responseObject":${body}`);
  const LEASE = (ns: string, name: string): string => `{"resource":"leases","namespace":"${ns}","name":"${name}","apiGroup":"coordination.k8s.io","apiVersion":"v1"}`;
  type Want = { returnedItems: number | null; remainingItems: number | null } | 'declined';
  const cases: [string, string, Want][] = [
    ['a PodList', resp('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"a":1},{"b":[1,{"c":"]}"}]},{}]}'), { returnedItems: 3, remainingItems: null }],
    ['a page with remainingItemCount and continue', resp('{"metadata":{"resourceVersion":"5","continue":"eyJ2IjoxfQ","remainingItemCount":4321},"items":[{},{}]}'), { returnedItems: 2, remainingItems: 4321 }],
    ['remainingItemCount 0, metadata after items', resp('{"items":[],"metadata":{"remainingItemCount":0}}'), { returnedItems: 0, remainingItems: 0 }],
    ['a 15-digit remainingItemCount', resp('{"items":[1],"metadata":{"remainingItemCount":123456789012345}}'), { returnedItems: 1, remainingItems: 123456789012345 }],
    ["AKS's skipped-too-big-size-object", resp('"skipped-too-big-size-object"'), { returnedItems: null, remainingItems: null }],
    ['responseObject null', resp('null'), { returnedItems: null, remainingItems: null }],
    ['responseObject an array', resp('[{"items":[1]}]'), { returnedItems: null, remainingItems: null }],
    ['items null', resp('{"items":null,"metadata":{"remainingItemCount":2}}'), { returnedItems: null, remainingItems: 2 }],
    ['items an object', resp('{"items":{"0":1,"length":1}}'), { returnedItems: null, remainingItems: null }],
    ['remainingItemCount a string', resp('{"items":[{}],"metadata":{"remainingItemCount":"5"}}'), { returnedItems: 1, remainingItems: null }],
    ['remainingItemCount null', resp('{"items":[{}],"metadata":{"remainingItemCount":null}}'), { returnedItems: 1, remainingItems: null }],
    ['metadata an array', resp('{"items":[{}],"metadata":[{"remainingItemCount":5}]}'), { returnedItems: 1, remainingItems: null }],
    ['nested items and counts do not count', resp('{"metadata":{"annotations":{"remainingItemCount":9},"x":{"remainingItemCount":8}},"spec":{"items":[1,2]},"items":[{"items":[1,2,3]},{"metadata":{"remainingItemCount":7}}]}'), { returnedItems: 2, remainingItems: null }],
    ['items twice: the last wins', resp('{"items":[1,2,3],"kind":"PodList","items":[1]}'), { returnedItems: 1, remainingItems: null }],
    ['items twice, the last null', resp('{"items":[1,2,3],"items":null}'), { returnedItems: null, remainingItems: null }],
    ['metadata twice: the last wins whole', resp('{"metadata":{"remainingItemCount":5},"items":[],"metadata":{"resourceVersion":"1"}}'), { returnedItems: 0, remainingItems: null }],
    ['remainingItemCount twice', resp('{"metadata":{"remainingItemCount":5,"remainingItemCount":6}}'), { returnedItems: null, remainingItems: 6 }],
    ['two responseObjects: the last wins', line('"responseObject":{"items":[1,2],"metadata":{"remainingItemCount":1}},"responseObject":{"items":[3]}'), { returnedItems: 1, remainingItems: null }],
    ['escapes, quotes, backslashes and non-ASCII in the items', resp('{"items":["a\\"]b","c\\\\","\\u00fc😀ñ",{"k\\"ey}":"\\\\\\"}"},"\\ud83d\\ude00\\/\\b\\f\\n\\r\\t"]}'), { returnedItems: 5, remainingItems: null }],
    ['spaces between the tokens', resp('{ "items" : [ 1 , { "a" : [ ] } , "x" ] , "metadata" : { "remainingItemCount" : 3 } }'), { returnedItems: 3, remainingItems: 3 }],
    ['a write: request and response bodies', line('"requestObject":{"kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"{\\"x\\":\\"\\u003cy\\u003e\\"}"}},"responseObject":{"kind":"ConfigMap","metadata":{"name":"c","resourceVersion":"9"}}'), { returnedItems: null, remainingItems: null }],
    ['a patch body (an array) with a spec elsewhere', line('"requestObject":[{"op":"replace","path":"/spec/expirationSeconds","value":3}],"responseObject":{"spec":{"replicas":3}}'), { returnedItems: null, remainingItems: null }],
    ['a node lease with its holder', line('"requestObject":{"spec":{"holderIdentity":"n1"}},"responseObject":{"spec":{"holderIdentity":"n1"}}', LEASE('kube-node-lease', 'n1')), { returnedItems: null, remainingItems: null }],
    ['an apiserver identity lease without a holder', line('"requestObject":{"spec":{"leaseDurationSeconds":3600}}', LEASE('kube-system', 'apiserver-abc')), { returnedItems: null, remainingItems: null }],
    ['a 700 KB list', resp(JSON.stringify(podList(600, 17))), { returnedItems: 600, remainingItems: 17 }],
    // left to the JavaScript path
    ['an apiserver identity lease with its holder (leaseHolder)', line('"requestObject":{"spec":{"holderIdentity":"apiserver-abc_1"}}', LEASE('kube-system', 'apiserver-abc')), 'declined'],
    ['a TokenRequest (tokenExpirationSeconds)', line('"requestObject":{"kind":"TokenRequest","spec":{"audiences":["x"],"expirationSeconds":3607}}'), 'declined'],
    ['a TokenRequest response', resp('{"kind":"TokenRequest","spec":{"expirationSeconds":3600},"status":{"token":"eyJ"}}'), 'declined'],
    ['a negative remainingItemCount', resp('{"metadata":{"remainingItemCount":-1}}'), 'declined'],
    ['a fractional remainingItemCount', resp('{"metadata":{"remainingItemCount":1.5}}'), 'declined'],
    ['a 16-digit remainingItemCount', resp('{"metadata":{"remainingItemCount":1234567890123456}}'), 'declined'],
    ['an escaped items name', resp('{"it\\u0065ms":[1]}'), 'declined'],
    ['a lone surrogate in a body (JavaScript keeps it)', resp('{"items":["\\ud800"]}'), 'declined'],
    ['a body nested 1,100 deep', resp(`{"items":[],"x":${'['.repeat(1100)}${']'.repeat(1100)}}`), 'declined'],
    // not JSON: JSON.parse throws, and the engine must not read them
    ['mismatched brackets', resp('{"items":[1,2}}'), 'declined'],
    ['a trailing comma', resp('{"items":[1,2,]}'), 'declined'],
    ['a raw tab in a string', resp('{"items":["a\tb"]}'), 'declined'],
    // past the first 16 bytes of a string, where bodies' strings are skipped 16 bytes at a time
    ['a raw control byte deep in a long string', resp('{"items":["' + 'a'.repeat(40) + '\u0001' + 'b'.repeat(20) + '"]}'), 'declined'],
    ['a bad escape deep in a long key', resp('{"items":[{"' + 'k'.repeat(33) + '\\q":1}]}'), 'declined'],
    ['non-ASCII and escapes deep in long strings', resp('{"items":["' + 'a'.repeat(37) + 'ü😀' + '\\n' + 'z'.repeat(17) + '",{"' + 'k'.repeat(19) + '\\"x":"' + 'v'.repeat(50) + '"}]}'), { returnedItems: 2, remainingItems: null }],
    ['a bad escape', resp('{"items":["\\x"]}'), 'declined'],
    ['a leading zero', resp('{"items":[01]}'), 'declined'],
    ['a line cut inside its body', resp('{"items":[{"a":"b"},{"c":"d"}]}').split('"c"')[0]!, 'declined'],
  ];
  it.each(cases)('%s', (_name, text, want) => {
    const buf = Buffer.from(text + '\n');
    const seen: (AuditEvent | null)[] = [];
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => seen.push(l.accepted ? engine!.event() : null));
    expect(seen.length).toBe(1);
    if (want === 'declined') {
      expect(seen[0]).toBeNull();
      return;
    }
    // the known answer is normalizeAuditEvent's, and the engine reads the line and gives the same event
    const js = normalizeAuditEvent(JSON.parse(text), () => 'missing');
    expect(js.ok && { returnedItems: js.value.returnedItems, remainingItems: js.value.remainingItems }).toEqual(want);
    expect(seen[0], 'the engine reads this line').not.toBeNull();
    const { query: _q, selectorKey: _k, ...rest } = seen[0]!;
    expect(rest).toEqual(js.ok ? js.value : null);
  });

  // Bodies' strings are skipped by the quotes of 64-byte blocks (assembly/bytes.ts blockAt): a byte to look at
  // (an escape, a raw control byte, a byte that is not ASCII) before, at or after a block's edge, in strings that
  // start and end in one block or span two, must change nothing but the path taken.
  it('strings across the 64-byte blocks of a body: escapes, control bytes and non-ASCII at every offset', () => {
    const odd = ['', '\\"', '\\\\', '\\n', '\\u00e9', 'ü', '😀', '\t', '\u0001', '\u001f'];
    const lines: string[] = [];
    for (let pad = 0; pad < 70; pad += 3) {
      for (const len of [0, 1, 15, 16, 17, 40, 63, 64, 65, 100]) {
        for (const o of odd) {
          const at = Math.floor((len * pad) / 70);
          const str = 'a'.repeat(at) + o + 'b'.repeat(len - at);
          lines.push(resp(`{"kind":"${'k'.repeat(pad)}","items":[{"s":"${str}","t":1},"${str}"],"metadata":{"continue":"${str}"}}`));
        }
      }
    }
    const buf = Buffer.from(lines.join('\n') + '\n');
    let accepted = 0;
    let declined = 0;
    let k = 0;
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => {
      const text = buf.toString('utf8', l.start, l.end);
      expect(text).toBe(lines[k++]);
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        // a raw control byte: JSON.parse throws, and the engine must not read the line
        expect(l.accepted, text).toBe(false);
        declined++;
        return;
      }
      expect(l.accepted, text).toBe(true);
      accepted++;
      const js = normalizeAuditEvent(parsed as Record<string, unknown>, () => 'missing');
      const { query: _q, selectorKey: _k, ...rest } = engine!.event();
      expect(rest, text).toEqual(js.ok ? js.value : null);
      expect(rest.returnedItems).toBe(2);
    });
    expect(k).toBe(lines.length);
    expect(accepted).toBe(24 * 10 * 7);
    expect(declined).toBe(24 * 10 * 3);
  });

  it("a block is the line's own: the next read's line at the same place has other bytes there", () => {
    // the same engine, two reads: B's first skipped string starts where A's last did, and ends 25 bytes sooner
    // (no responseStatus: nothing before the body is skipped, so B's first block would be A's last)
    const mk = (body: unknown): string =>
      JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: 'k1', stage: 'ResponseComplete', requestURI: '/api/v1/pods?limit=500', verb: 'list', user: { username: 'alice' }, userAgent: 'kubectl/v1.29.4', objectRef: { resource: 'pods', apiVersion: 'v1' }, responseObject: body, requestReceivedTimestamp: '2026-11-30T10:00:00.000000Z', stageTimestamp: '2026-11-30T10:00:00.100000Z' });
    const a = mk({ kind: 'a'.repeat(30), items: [] });
    const b = mk({ kind: 'b'.repeat(5), x: 'c'.repeat(19), items: [1] });
    for (const [text, items] of [[a, 0], [b, 1]] as const) {
      const buf = Buffer.from(text + '\n');
      const seen: (AuditEvent | null)[] = [];
      engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => seen.push(l.accepted ? engine!.event() : null));
      expect(seen[0]?.returnedItems, text).toBe(items);
    }
  });

  it('reads bodies on the SIMD and the scalar build alike', () => {
    // the scalar build (no SIMD string scan: the fallback where SIMD is missing) gives the same events
    const mod = new WebAssembly.Module(readFileSync(join(ROOT, 'dist/decode/engine/engine.wasm')));
    const scalar = new LineEngine(new WebAssembly.Instance(mod, {}).exports as unknown as ConstructorParameters<typeof LineEngine>[0]);
    const buf = bodyLines(3);
    const a: unknown[] = [];
    const b: unknown[] = [];
    // (selectorKey names interned strings: the shared engine has interned others before)
    const drop = (e: AuditEvent | null): unknown => (e === null ? null : { ...e, selectorKey: undefined });
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => a.push(drop(l.accepted ? engine!.event() : null)));
    scalar.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => b.push(drop(l.accepted ? scalar.event() : null)));
    expect(b).toEqual(a);
    expect(a.filter((e) => e !== null).length).toBeGreaterThan(60);
  });
});
