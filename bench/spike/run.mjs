#!/usr/bin/env node
// Issue 26 spike: the per-line aggregator in WebAssembly (engine-agg.ts) against the same aggregator in JavaScript
// on typed arrays (ts-agg.mjs), on the engine's records. See README.md here.
//
//   node bench/spike/run.mjs [LOG] [--size 200] [--runs 5] [--rounds 1] [--no-dist] [--build]
//   node bench/spike/run.mjs LOG --once [--cli]        (correctness: each variant once, plus the reference)
//
// Each variant runs in its own process, one thread, best of --runs:
//   (0) scan   the engine alone over the log (the loop of LineEngine.scanOnly: copy a chunk, scan(), learn its
//              new strings), from the spike's module
//   (1) wasm   the same + aggRecords(n) after each scan() (the WebAssembly aggregator)
//   (2) ts     the same + TsAgg.records(n) after each scan() (the JavaScript aggregator on typed arrays)
//   dist       reference: dist's LineEngine.scanOnly (the shipped engine module), to show (0) is the same engine
//   ref        --once only: Maps/Sets/strings reference (ref-agg.mjs), never timed
// and the aggregation alone is (1) − (0) and (2) − (0). The summaries of (1) and (2) must be equal.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchLogPath } from '../log-path.mjs';
import { TsAgg } from './ts-agg.mjs';
import { RefAgg } from './ref-agg.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const dist = join(root, 'dist');
const WASM = join(here, 'out', 'engine-agg-simd.wasm');
const SOURCES = [join(here, 'engine-agg.ts'), join(root, 'src', 'decode', 'engine', 'assembly', 'engine.ts')];
// as src/decode/engine/engine.ts
const IN_CAP = 1 << 20;
const MAX_STRINGS = 1 << 20;
const MAX_INTERN_LEN = 4096;
// the fields the implementations are compared on
const FIELDS = ['groups', 'requests', 'duplicates', 'nonTerminal', 'missingId', 'untimed', 'buckets', 'seconds', 'declined', 'verbs', 'checksums'];

/** Compiles engine-agg.ts with package.json's build:engine flags (the SIMD build) when missing or older than its
 * sources. */
function build(force) {
  if (!force && existsSync(WASM) && SOURCES.every((s) => statSync(s).mtimeMs <= statSync(WASM).mtimeMs)) return;
  mkdirSync(dirname(WASM), { recursive: true });
  const args = [relative(root, SOURCES[0]), '-o', relative(root, WASM), '-O3', '--runtime', 'stub', '--noAssert', '--enable', 'simd'];
  console.error(`building: asc ${args.join(' ')}`);
  const r = spawnSync(join(root, 'node_modules', '.bin', 'asc'), args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('asc failed');
}

/** The spike's module, driven like LineEngine.scanOnly; `each(n)` after every scan(). */
function makeHost() {
  const x = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(WASM)), {}).exports;
  const inPtr = x.init(IN_CAP, MAX_STRINGS, MAX_INTERN_LEN);
  const aggBase = x.aggBase() >>> 0;
  const strings = [];
  let buffer = null;
  let bytes = null;
  let i32 = null;
  const refresh = () => {
    if (x.memory.buffer === buffer) return;
    buffer = x.memory.buffer;
    bytes = Buffer.from(buffer);
    i32 = new Int32Array(buffer);
  };
  const learnStrings = () => {
    const n = x.newsLen();
    if (n === 0) return;
    const base = x.newsPtr() >> 2;
    for (let i = 0; i < n; i++) {
      const id = i32[base + i * 3];
      const p = i32[base + i * 3 + 1] >>> 0;
      const len = i32[base + i * 3 + 2];
      // the engine's heap must stay below the aggregator's tables (see engine-agg.ts)
      if (p + len > aggBase) throw new Error(`the engine's heap reached the aggregator's tables (${p + len} > ${aggBase})`);
      strings[id] = bytes.toString('utf8', p, p + len);
    }
  };
  const scanAll = (buf, end, each) => {
    let s = 0;
    let lines = 0;
    while (s < end) {
      let e = Math.min(end, s + IN_CAP);
      e = buf.lastIndexOf(10, e - 1) + 1;
      if (e <= s) break;
      refresh();
      bytes.set(buf.subarray(s, e), inPtr);
      s += x.scan(e - s, 1 << 20, 0);
      const n = x.lineCount();
      lines += n;
      refresh();
      learnStrings();
      if (each !== null) each(n);
    }
    return lines;
  };
  return { x, scanAll, strings };
}

function wasmResult(x) {
  x.aggFinish();
  const c = (k) => x.aggCount(k);
  const verbs = [];
  for (let v = 0; v < c(9); v++) {
    const n = x.aggVerbCount(v) >>> 0;
    if (n !== 0) verbs.push([v, n]);
  }
  return {
    groups: c(0),
    requests: c(1),
    duplicates: c(2),
    nonTerminal: c(3),
    missingId: c(4),
    untimed: c(5),
    buckets: c(6),
    seconds: c(7),
    declined: c(8),
    verbs,
    checksums: Array.from({ length: 10 }, (_, k) => (x.aggChecksum(k) >>> 0).toString(16).padStart(8, '0')),
  };
}

const pick = (r) => JSON.stringify(FIELDS.map((f) => r[f]));

// ---- a child: one variant ------------------------------------------------------------------------------

if (process.argv[2] === '--child') {
  const [, , , variant, file, runsArg] = process.argv;
  const runs = Number(runsArg);
  const buf = readFileSync(file);
  const end = buf.lastIndexOf(10) + 1;
  // per variant: reset (outside the timed region: empty tables), run (timed, returns the lines), result (after)
  let v;
  let strings = null;
  if (variant === 'dist') {
    const { loadEngine } = await import(pathToFileURL(join(dist, 'decode', 'engine', 'engine.js')).href);
    const engine = loadEngine().engine;
    if (engine === null) throw new Error('dist has no engine');
    v = { reset() {}, run: () => engine.scanOnly(buf, 0, end), result: () => null };
  } else {
    const host = makeHost();
    strings = host.strings;
    const x = host.x;
    if (variant === 'scan') v = { reset() {}, run: () => host.scanAll(buf, end, null), result: () => null };
    else if (variant === 'wasm') {
      const each = (n) => x.aggRecords(n);
      v = { reset: () => x.aggReset(), run: () => host.scanAll(buf, end, each), result: () => wasmResult(x) };
    } else if (variant === 'ts' || variant === 'ref') {
      const agg = variant === 'ts' ? new TsAgg(x) : new RefAgg(x);
      const each = (n) => agg.records(n);
      v = { reset: () => agg.reset(), run: () => host.scanAll(buf, end, each), result: () => agg.result() };
    } else throw new Error(`unknown variant ${variant}`);
  }
  let best = Infinity;
  let lines = 0;
  let first = null;
  for (let r = 0; r < runs; r++) {
    v.reset();
    const t0 = process.hrtime.bigint();
    lines = v.run();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / lines);
    const res = v.result();
    if (res !== null) {
      if (first === null) first = res;
      else if (pick(res) !== pick(first)) throw new Error(`${variant}: run ${r + 1} gave another result than run 1`);
    }
  }
  if (first !== null && strings !== null) first.verbNames = first.verbs.map(([id, n]) => [strings[id], n]);
  console.log(JSON.stringify({ variant, nsPerLine: best, lines, result: first }));
  process.exit(0);
}

// ---- the parent ------------------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? dflt : argv[i + 1];
};
const valued = new Set(['--size', '--runs', '--rounds']);
const positional = argv.filter((a, i) => !a.startsWith('--') && !valued.has(argv[i - 1]));
const once = flag('once');
const runs = once ? 1 : Number(opt('runs', 5));
const rounds = once ? 1 : Number(opt('rounds', 1));
let log = positional[0];
if (log === undefined) {
  // the bench's log, as bench/stages.mjs finds (or generates) it
  const dir = join(tmpdir(), 'audit-scan-bench');
  mkdirSync(dir, { recursive: true });
  log = benchLogPath(dir, Number(opt('size', 200)));
  if (!existsSync(log)) spawnSync(process.execPath, [join(root, 'bench', 'generate.mjs'), log, String(opt('size', 200))], { stdio: 'inherit' });
}
build(flag('build'));
const haveDist = existsSync(join(dist, 'decode', 'engine', 'engine.js'));
if (!haveDist && !flag('no-dist')) console.error('no dist/decode/engine/engine.js (npm run build): the dist reference is left out');
const variants = ['scan', 'wasm', 'ts'];
if (haveDist && !flag('no-dist')) variants.push('dist');
if (once) variants.push('ref');

const got = new Map(variants.map((v) => [v, []]));
for (let r = 0; r < rounds; r++) {
  // alternate the order between rounds
  for (const v of r % 2 === 0 ? variants : [...variants].reverse()) {
    const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', v, log, String(runs)], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (out.status !== 0) throw new Error(`variant ${v} failed: ${out.stderr}`);
    got.get(v).push(JSON.parse(out.stdout));
  }
}

const LABEL = { scan: '(0) scan', wasm: '(1) scan + wasm aggregator', ts: '(2) scan + TS aggregator', dist: '    dist LineEngine.scanOnly', ref: '    reference (Maps, strings)' };
const best = (v) => Math.min(...got.get(v).map((o) => o.nsPerLine)) / 1000;
const lines = got.get('scan')[0].lines;
console.log(`per line of ${log} (${lines} lines; one thread, best of ${runs}, ${rounds} round${rounds === 1 ? '' : 's'}${once ? '; --once: NOT a timing' : ''}):`);
for (const v of variants) console.log(`${LABEL[v].padEnd(30)} ${got.get(v).map((o) => `${(o.nsPerLine / 1000).toFixed(3)} µs`).join('  ')}`);
const aw = best('wasm') - best('scan');
const at = best('ts') - best('scan');
console.log(`aggregation alone, µs a line: wasm ${aw.toFixed(3)}, TS ${at.toFixed(3)} (TS − wasm ${(at - aw).toFixed(3)}; TS/wasm ${(at / aw).toFixed(2)}×)`);

// ---- the results must agree ----
const res = (v) => got.get(v)[0].result;
const w = res('wasm');
const t = res('ts');
let ok = pick(w) === pick(t);
console.log(`summary (wasm): groups ${w.groups}, requests ${w.requests}, duplicates ${w.duplicates}, non-terminal stages ignored ${w.nonTerminal}, missing auditID ${w.missingId}, untimed ${w.untimed}, (group, second) buckets ${w.buckets}, seconds ${w.seconds}, declined records ${w.declined}`);
console.log(`verbs: ${w.verbNames.map(([s, n]) => `${s} ${n}`).join(', ')}`);
console.log(`checksums wasm: ${w.checksums.join(' ')}`);
console.log(`checksums TS:   ${t.checksums.join(' ')}`);
console.log(ok ? 'wasm and TS aggregators AGREE' : `MISMATCH between wasm and TS:\n wasm ${JSON.stringify(w)}\n ts   ${JSON.stringify(t)}`);
for (const v of variants) {
  for (const o of got.get(v)) if (o.lines !== lines) {
    ok = false;
    console.log(`MISMATCH: ${v} read ${o.lines} lines, scan ${lines}`);
  }
}
if (once) {
  const f = res('ref');
  const refOk = pick(f) === pick(w);
  ok &&= refOk;
  console.log(refOk ? 'the reference (Maps, Sets, strings) AGREES' : `MISMATCH with the reference:\n ref  ${JSON.stringify(f)}`);
  console.log(`requests seen only at a non-terminal stage (left out by the spike): ${f.nonTerminalOnly}`);
  if (flag('cli')) {
    const cli = spawnSync(process.execPath, [join(root, 'bin', 'audit-scan.js'), '-o', 'json', log], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (cli.status !== 0) throw new Error(`audit-scan failed: ${cli.stderr}`);
    const j = JSON.parse(cli.stdout);
    const dupCli = (j.inputs ?? []).reduce((n, i) => n + (i.duplicateEvents ?? 0), 0);
    console.log(`audit-scan -o json: totals.requests ${j.totals.requests}, duplicate events ${dupCli}; spike requests ${w.requests} + non-terminal-only ${f.nonTerminalOnly} = ${w.requests + f.nonTerminalOnly}; declined records (the CLI reads them in JavaScript, the spike skips them) ${w.declined}`);
  }
}
process.exit(ok ? 0 : 1);
