// The compiled engine against the JavaScript path (issue 12): the same lines give the same report, byte for
// byte, and every line the engine reads gives the AuditEvent normalizeAuditEvent gives it. Inputs: every
// fixture, the property test's seeded corrupted logs, and generated lines at the edges of the fast path.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, ROOT } from './support.js';
import { escapeLines, makeCase } from './generated-logs.js';
import { loadEngine } from '../src/engine/engine.js';
import { normalizeAuditEvent } from '../src/model/audit-event.js';
import { parseRequestUri } from '../src/model/request-uri.js';

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
      if (l.event === null) return;
      accepted++;
      const text = buf.toString('utf8', l.start, l.end);
      const js = normalizeAuditEvent(JSON.parse(text), () => 'missing');
      expect(js.ok, text).toBe(true);
      if (!js.ok) return;
      const { query, selectorKey: _k, ...rest } = l.event;
      expect({ ...rest, auditID: l.missingId ? 'missing' : rest.auditID }, text).toEqual(js.value);
      expect(query, text).toEqual(parseRequestUri(js.value.requestURI).query);
    });
    expect(accepted).toBeGreaterThan(10);
  });

  it('the bench-style line: every field', () => {
    const line = readFileSync(join(ROOT, 'fixtures/wrapped/audit.log'), 'utf8').split('\n')[8]!;
    const buf = Buffer.from(line + '\n');
    const seen: unknown[] = [];
    engine!.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => seen.push(l.event));
    const js = normalizeAuditEvent(JSON.parse(line), () => 'x');
    expect(js.ok && seen[0]).toMatchObject(js.ok ? { ...js.value } : {});
  });
});
