// Differential test (issue 26): every fixture, the property test's seeded corrupted logs and the generated edge
// lines give byte-identical JSON through the compiled engine and through the JavaScript path (--engine js), on
// 1, 2 and 3 threads; and on plain audit inputs the report's exact figures equal the reference oracle's
// (test/oracle.ts). The CLI runs as a child process (bin/audit-scan.js, so `npm run build` first), and nothing
// here imports src/: the test reads the report as a user does.
//
// Inputs go several to one CLI call, so the test stays short (four calls a batch): the report keeps per-input
// figures (inputs[]), and inputs read together share no auditID (the oracle checks), so the totals and groups of a
// batch are the sums of its inputs'. Each file is still cut on its own by the threads: AUDIT_SCAN_MIN_SPLIT_BYTES
// (the test knob of test/parallel.test.ts; src/cli/config.ts) lowers the 32 MB below which a file is read on one
// thread, and the chunk size of gzip streams, so that -j 2 and -j 3 cut every file of more than SPLIT bytes into
// 4 or 6 ranges.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aggregatorEdges, escapeLines, makeCase } from './generated-logs.js';
import { readInputs, type OracleGroup, type OracleReport } from './oracle.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/audit-scan.js');
const SPLIT = 512;

/** One CLI call as a child process: JSON, every row (--top), syslog dates in 2026, the given engine and threads. */
function cli(files: string[], engine: 'wasm' | 'js', threads: number, split: number, smallTables = false): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', TZ: 'UTC', AUDIT_SCAN_MIN_SPLIT_BYTES: String(split) };
  delete env.AUDIT_SCAN_ENGINE;
  delete env.AUDIT_SCAN_MAX_LINE_BYTES;
  delete env.AUDIT_SCAN_SLOTS;
  delete env.AUDIT_SCAN_SLOT_TABLES;
  // the compiled aggregator with 16 slots and 128 pairs: its tables fill and fold every few lines
  if (smallTables) env.AUDIT_SCAN_SLOT_TABLES = '16';
  // more than one thread: every gzip, however small, inflates on its own thread (src/input/inflate-thread.ts), so
  // that it is compared with zlib on the main thread, which the reference (-j 1) keeps for these small files
  if (threads > 1) env.AUDIT_SCAN_INFLATE_MIN_BYTES = '0';
  else delete env.AUDIT_SCAN_INFLATE_MIN_BYTES;
  const args = ['-o', 'json', '--top', '1000000', '--syslog-year', '2026', '--engine', engine, '-j', String(threads), ...files];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The calls compared with the reference, --engine wasm -j 1 (the default engine, one thread): the JavaScript
 * path, 2 and 3 threads (gzip inflated on a thread of its own), and the compiled aggregator with tables so small
 * that it folds every few lines. */
const VARIANTS = [['js', 1, false], ['wasm', 2, false], ['wasm', 3, false], ['wasm', 1, true]] as const;

/** Same exit code, same bytes on stdout; on a difference, where it starts. */
function expectSame(ref: { code: number | null; stdout: string; stderr: string }, other: { code: number | null; stdout: string; stderr: string }, what: string): void {
  expect(ref.stdout.length, ref.stderr).toBeGreaterThan(0);
  expect(other.code, `${what}: exit code`).toBe(ref.code);
  if (other.stdout === ref.stdout) return;
  // (toBe on two reports of 100 KB prints a diff no one can read)
  let i = 0;
  while (i < ref.stdout.length && ref.stdout[i] === other.stdout[i]) i++;
  const at = (t: string) => JSON.stringify(t.slice(Math.max(0, i - 300), i + 300));
  expect.fail(`${what} differs from --engine wasm -j 1 at character ${i}:\n  wasm -j 1: ${at(ref.stdout)}\n  ${what}: ${at(other.stdout)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The report against the oracle

// The JSON output redacts credential-looking text in every string (docs/json-output.md), and redaction may make
// two strings one. A string that matches this (a superset of every credential pattern, and of what redaction
// writes, "<redacted…>") is compared as OPAQUE on both sides: it matches before redaction if and only if after.
const MAYBE_REDACTED = /redacted|eyj|bearer|basic|token|passw|secret|api_?key|sha256~/i;
const OPAQUE = '<opaque>';
const op = (s: string): string => (MAYBE_REDACTED.test(s) ? OPAQUE : s);
const opNs = (s: string | null): string | null => (s === null || s === '*' ? s : op(s));

const sortRows = <T,>(rows: T[]): T[] => rows.map((r) => JSON.stringify(r)).sort().map((s) => JSON.parse(s) as T);

/** The fields of a report group the oracle computes, strings made comparable. */
function rowOf(g: any, rvKnown = true): OracleGroup {
  return {
    verb: g.verb, userAgent: op(g.userAgent), username: op(g.username), apiGroup: op(g.apiGroup), resource: op(g.resource), namespace: opNs(g.namespace), namespaces: g.namespaces,
    selector: op(g.selector), requests: g.requests, watchLists: g.watchLists, withoutResourceVersion: rvKnown ? g.withoutResourceVersion : null, codes: g.codes,
  };
}
const coarseKey = (g: { verb: string; userAgent: string; username: string; apiGroup: string; resource: string }, cluster: boolean): string =>
  JSON.stringify([g.verb, op(g.userAgent), op(g.username), op(g.apiGroup), op(g.resource), cluster]);

/** How much of the report the oracle checked, over the whole file (printed at the end, and must not be nothing). */
const covered = { batches: 0, inputs: 0, requests: 0, groups: 0, shapeUnknown: 0 };

function expectOracle(r: any, o: OracleReport): void {
  // per input
  expect(r.inputs.map((i: any) => ({ name: i.name, lines: i.lines, auditEvents: i.auditEvents, blankLines: i.blankLines, duplicateEvents: i.duplicateEvents })), 'inputs[]').toEqual(o.inputs.map((i) => ({ ...i })));
  // totals
  const t = r.totals;
  expect({ requests: t.requests, tokenRequests: t.tokenRequests, duplicateRequests: t.duplicateRequests, filteredOut: t.filteredOut, pendingEvicted: t.pendingEvicted }, 'totals').toEqual({ requests: o.requests, tokenRequests: o.tokenRequests, duplicateRequests: 0, filteredOut: 0, pendingEvicted: 0 });
  const U = o.uncertainReads;
  const within = (what: string, got: number, lo: number): void => {
    if (U === 0) expect(got, what).toBe(lo);
    else {
      expect(got, `${what} ≥ the oracle's`).toBeGreaterThanOrEqual(lo);
      expect(got, `${what} ≤ the oracle's + ${U} unknown reads`).toBeLessThanOrEqual(lo + U);
    }
  };
  within('totals.listRequests', t.listRequests, o.listRequests);
  within('totals.getRequests', t.getRequests, o.getRequests);
  within('totals.watchRequests', t.watchRequests, o.watchRequests);
  within('totals list + get + watch', t.listRequests + t.getRequests + t.watchRequests, o.listRequests + o.getRequests + o.watchRequests);
  if (U === 0 && o.listWithoutResourceVersion !== null) expect(t.listWithoutResourceVersion, 'totals.listWithoutResourceVersion').toBe(o.listWithoutResourceVersion);
  // user agents, every one (--top is above their number)
  const uas = (pairs: Array<[string, number]>): Record<string, number> => {
    const m: Record<string, number> = {};
    for (const [ua, n] of pairs) m[op(ua)] = (m[op(ua)] ?? 0) + n;
    return m;
  };
  expect(uas(r.topUserAgents.map((u: any) => [u.userAgent, u.requests])), 'topUserAgents').toEqual(uas([...o.userAgents]));
  // groups: the report lists every one (--top), no group was folded
  expect(r.groupsCapped, 'groupsCapped').toBeNull();
  const reportGroups: any[] = [...r.listGroups, ...r.getGroups];
  expect(r.listGroups.length, 'listGroups is every list group').toBe(r.listGroupsTotal);
  // summed over shapes: exact with no unknown read, else within bounds
  const sum = (rows: Array<{ key: string; requests: number; rv: number | null }>): Map<string, { requests: number; rv: number | null }> => {
    const m = new Map<string, { requests: number; rv: number | null }>();
    for (const x of rows) {
      const a = m.get(x.key) ?? { requests: 0, rv: 0 };
      a.requests += x.requests;
      a.rv = a.rv === null || x.rv === null ? null : a.rv + x.rv;
      m.set(x.key, a);
    }
    return m;
  };
  const got = sum(reportGroups.map((g) => ({ key: coarseKey(g, g.namespace === null), requests: g.requests, rv: g.withoutResourceVersion })));
  const want = sum(o.coarse.map((c) => ({ key: coarseKey(c, c.cluster), requests: c.requests, rv: c.withoutResourceVersion })));
  const shapeUnknown = new Map<string, number>();
  for (const c of o.coarse) shapeUnknown.set(coarseKey(c, c.cluster), (shapeUnknown.get(coarseKey(c, c.cluster)) ?? 0) + c.shapeUnknown);
  for (const k of new Set([...got.keys(), ...want.keys()])) {
    const g = got.get(k) ?? { requests: 0, rv: 0 };
    const w = want.get(k) ?? { requests: 0, rv: 0 };
    within(`requests of the groups ${k}`, g.requests, w.requests);
    if (U === 0 && w.rv !== null) expect(g.rv, `withoutResourceVersion of the groups ${k}`).toBe(w.rv);
  }
  // group by group, where the oracle knows every read's shape: every figure (withoutResourceVersion where the oracle
  // knows every read's query)
  const exact = (g: { namespace: string | null } & Parameters<typeof coarseKey>[0]): boolean => (shapeUnknown.get(coarseKey(g, g.namespace === null)) ?? 0) === 0;
  const rowKey = (g: { namespace: string | null; selector: string } & Parameters<typeof coarseKey>[0]): string => JSON.stringify([coarseKey(g, g.namespace === null), op(g.selector)]);
  const mine = o.groups.filter(exact);
  const rvUnknown = new Set(mine.filter((g) => g.withoutResourceVersion === null).map(rowKey));
  const theirs = reportGroups.filter(exact).map((g) => rowOf(g, !rvUnknown.has(rowKey(g))));
  if (U === 0) expect(sortRows(theirs), 'the groups, figure by figure').toEqual(sortRows(mine.map((g) => rowOf(g))));
  covered.batches++;
  covered.inputs += o.inputs.length;
  covered.requests += o.requests;
  covered.groups += mine.length;
  covered.shapeUnknown += [...shapeUnknown.values()].reduce((a, b) => a + b, 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Inputs

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else if (!/\.(mjs|md|json)$/.test(e) || p.includes('/wrapped/')) out.push(p); // the inputs test/engine.test.ts reads
  }
  return out;
}

/** Every fixture (fixtures/cases/ holds goldens, as test/engine.test.ts leaves it out), in batches by folder: the
 * inputs the oracle reads in one batch, the others in another. */
function fixtureBatches(): Batch[] {
  const all = filesUnder(join(ROOT, 'fixtures')).filter((f) => !f.includes('/cases/'));
  const byDir = new Map<string, { plain: string[]; other: string[] }>();
  for (const f of all) {
    const rel = f.slice(ROOT.length);
    const dir = rel.slice(0, rel.lastIndexOf('/'));
    const b = byDir.get(dir) ?? { plain: [], other: [] };
    const o = readInputs([{ name: rel, bytes: readFileSync(f) }]);
    (o.applies ? b.plain : b.other).push(rel);
    byDir.set(dir, b);
  }
  const out: Batch[] = [];
  for (const [dir, b] of byDir) {
    // The apiserver's logs of the seed incidents are the same requests (the same audit-IDs) written by four versions
    // at three verbosities: read together they would be one request four times over. Each is read alone, and beside
    // the audit log of those requests (the join by audit-ID), as a user would give them.
    // Real apiserver log excerpts (test/apiserver-log-real.test.ts has their answers): no audit events, so no
    // oracle; each read alone, cut by the threads like any file.
    if (dir === 'fixtures/apiserver-log/real') {
      for (const f of [...b.plain, ...b.other].sort()) out.push({ name: `${f} alone`, files: [f], oracle: false, split: SPLIT });
      continue;
    }
    if (dir === 'fixtures/apiserver-log/seed') {
      const logs = [...b.plain, ...b.other].filter((f) => !f.endsWith('/audit.log')).sort();
      for (const f of logs) out.push({ name: `${f} alone`, files: [f], oracle: false, split: SPLIT });
      for (const v of ['1.22', '1.36']) out.push({ name: `${dir}: audit.log beside apiserver-${v}-v3.log`, files: [`${dir}/audit.log`, `${dir}/apiserver-${v}-v3.log`], oracle: false, split: SPLIT });
      continue;
    }
    // the demo's gzip stream inflates to 1.5 MB: cut in 16 KiB chunks, not 3,000 of 512 bytes
    const split = dir === 'fixtures/demo' ? 1 << 14 : SPLIT;
    if (b.plain.length > 0) out.push({ name: `${dir} (oracle: ${b.plain.map((f) => f.slice(dir.length + 1)).join(', ')})`, files: b.plain, oracle: true, split });
    if (b.other.length > 0) out.push({ name: `${dir} (not plain: ${b.other.map((f) => f.slice(dir.length + 1)).join(', ')})`, files: b.other, oracle: false, split });
  }
  // and the demo's three inputs together, as `npm start` reads them
  out.push({ name: 'fixtures/demo, all inputs together', files: ['fixtures/demo'], oracle: false, split: 1 << 14 });
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'audit-scan-differential-'));
function writeAll(prefix: string, bufs: Buffer[]): string[] {
  return bufs.map((b, i) => {
    const f = join(dir, `${prefix}${i + 1}.log`);
    writeFileSync(f, b);
    return f;
  });
}

interface Batch {
  name: string;
  files: string[];
  oracle: boolean;
  split: number;
}

/** Per batch: the reference call, then one test per other call, and the oracle's test. */
function batchTests(b: Batch): void {
  describe(b.name, () => {
    let ref: Promise<{ code: number | null; stdout: string; stderr: string }> | null = null;
    const reference = () => (ref ??= cli(b.files, 'wasm', 1, b.split));
    if (b.oracle) {
      it('--engine wasm -j 1 equals the oracle', async () => {
        const r = await reference();
        expect(r.stdout.length, r.stderr).toBeGreaterThan(0);
        const o = readInputs(b.files.map((f) => ({ name: f.startsWith(ROOT) ? f.slice(ROOT.length) : f, bytes: readFileSync(f.startsWith('/') ? f : join(ROOT, f)) })));
        if (!o.applies) throw new Error(`the oracle does not apply: ${o.reason}`);
        expectOracle(JSON.parse(r.stdout), o);
      });
    }
    for (const [engine, threads, small] of VARIANTS) {
      const what = `--engine ${engine} -j ${threads}${small ? ', small aggregator tables' : ''}`;
      it(`${what}: byte-identical`, async () => {
        expectSame(await reference(), await cli(b.files, engine, threads, b.split, small), what);
      });
    }
  });
}

describe('wasm and js, 1 to 3 threads: byte-identical, and equal to the oracle on plain audit inputs', () => {
  for (const b of fixtureBatches()) batchTests(b);
  batchTests({ name: 'the 12 seeded corrupted logs of the property test (oracle)', files: writeAll('p', Array.from({ length: 12 }, (_, i) => makeCase(i + 1).bytes)), oracle: true, split: SPLIT });
  batchTests({ name: 'the generated edge lines, seeds 1 to 20 (oracle)', files: writeAll('e', Array.from({ length: 20 }, (_, i) => escapeLines(i + 1))), oracle: true, split: SPLIT });
  // The compiled aggregator's tables fill and fold in the middle of a segment; its samples, latencies and the
  // requests it leaves to the event path (test/generated-logs.ts aggregatorEdges). Cut in 4 and 6 on 2 and 3 threads.
  batchTests({ name: 'the compiled aggregator at its edges', files: writeAll('a', [aggregatorEdges(1)]), oracle: false, split: 1 << 20 });

  it('compared the oracle with something', () => {
    // Not vacuous: the oracle met thousands of requests and hundreds of groups (run with the tests above).
    console.log(`oracle: ${covered.batches} batches, ${covered.inputs} inputs, ${covered.requests} requests, ${covered.groups} groups compared figure by figure, ${covered.shapeUnknown} reads of an unknown selector shape compared summed over shapes`);
    expect(covered.requests).toBeGreaterThan(5000);
    expect(covered.groups).toBeGreaterThan(100);
  });
});
