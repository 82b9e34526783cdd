#!/usr/bin/env node
// npm run bench:stages [-- --size 200] [--rounds 2]
// Where a scan's time goes, per line of the generated bench log: decoding lines from bytes, JSON.parse alone,
// JSON.parse + normalizeAuditEvent, dedup and aggregation of events normalised beforehand, and all of
// ScanState.addLine (the JavaScript path); then the compiled engine alone (WebAssembly reading every line into
// records), the engine with the AuditEvents built from its records, and the engine feeding ScanState. One thread, in process, best of 5; each stage in its own child process (a stage that keeps
// 280,000 events alive beside it slows the others' garbage collection). Timing lives here only.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchLogPath } from './log-path.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
// Stages by layer (issue 26): decode (bytes → lines → JSON → AuditEvent in JavaScript; the engine's records, alone
// and made into AuditEvents), aggregate (ScanState counting events built beforehand; the whole JavaScript path per
// line; the engine feeding ScanState), analyze (the report from the aggregated state, per line of the log).
const STAGES = ['decode', 'parse', 'normalize', 'wasm', 'engine', 'aggregate', 'addLine', 'engineAdd', 'analyze'];
const LAYER = { decode: 'decode', parse: 'decode', normalize: 'decode', wasm: 'decode', engine: 'decode', aggregate: 'aggregate', addLine: 'aggregate', engineAdd: 'aggregate', analyze: 'analyze' };

if (process.argv[2] === '--stage') {
  const [, , , stage, file] = process.argv;
  const { ScanState } = await import(pathToFileURL(join(dist, 'aggregate', 'scan-state.js')).href);
  const { normalizeAuditEvent } = await import(pathToFileURL(join(dist, 'decode', 'audit-event.js')).href);
  const { loadEngine } = await import(pathToFileURL(join(dist, 'decode', 'engine', 'engine.js')).href);
  const { buildReport } = await import(pathToFileURL(join(dist, 'analyze', 'report.js')).href);
  const engine = stage === 'wasm' || stage === 'engine' || stage === 'engineAdd' || stage === 'analyze' ? loadEngine().engine : null;
  const buf = readFileSync(file);
  const lines = [];
  for (let p = 0; ; ) {
    const nl = buf.indexOf(10, p);
    if (nl < 0) break;
    lines.push(buf.toString('utf8', p, nl));
    p = nl + 1;
  }
  const id = () => '(none)';
  const end = buf.lastIndexOf(10) + 1;
  const events = stage === 'aggregate' ? lines.map((l) => normalizeAuditEvent(JSON.parse(l), id).value) : null;
  const engineState = () => {
    const st = new ScanState('/registry');
    st.engine = engine;
    st.beginInput('x');
    engine.readLines(buf, 0, end, 1 << 20, 0, (l) => (l.accepted ? st.addEngineLine(l) : st.addLine(0, buf.toString('utf8', l.start, l.end), true, false)), (i, n) => st.engineFast(i, n));
    st.endInput();
    st.finishPending();
    return st;
  };
  const scanned = stage === 'analyze' ? engineState() : null;
  const reportOptions = { kubeVersion: null, etcdVersion: null, consistentListFromCache: null, watchCacheDisabled: new Set(), objectsGiven: new Map(), top: 20, toolVersion: 'bench' };
  const run = {
    decode: () => {
      let n = 0;
      for (let p = 0; ; ) {
        const nl = buf.indexOf(10, p);
        if (nl < 0) break;
        n += buf.toString('utf8', p, nl).length;
        p = nl + 1;
      }
      return n;
    },
    parse: () => lines.reduce((n, l) => n + JSON.parse(l).verb.length, 0),
    normalize: () => lines.reduce((n, l) => n + normalizeAuditEvent(JSON.parse(l), id).value.verb.length, 0),
    aggregate: () => {
      const st = new ScanState('/registry');
      st.beginInput('x');
      for (const e of events) st.addAuditEvent(e);
      st.endInput();
      st.finishPending();
    },
    wasm: () => engine.scanOnly(buf, 0, end),
    engine: () => {
      let n = 0;
      engine.readLines(buf, 0, end, 1 << 20, 0, (l) => (n += l.accepted ? engine.event().verb.length : 0));
      return n;
    },
    engineAdd: engineState,
    analyze: () => buildReport(scanned, reportOptions).listGroups.length,
    addLine: () => {
      const st = new ScanState('/registry');
      st.beginInput('x');
      for (let i = 0; i < lines.length; i++) st.addLine(i + 1, lines[i], true, false);
      st.endInput();
      st.finishPending();
    },
  }[stage];
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    run();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / lines.length);
  }
  console.log(JSON.stringify({ stage, nsPerLine: Math.round(best), lines: lines.length }));
  process.exit(0);
}

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : process.argv[i + 1];
};
const sizeMb = Number(arg('size', 200));
const rounds = Number(arg('rounds', 2));
const dir = join(tmpdir(), 'audit-scan-bench');
mkdirSync(dir, { recursive: true });
const log = benchLogPath(dir, sizeMb);
if (!existsSync(log)) spawnSync(process.execPath, [join(here, 'generate.mjs'), log, String(sizeMb)], { stdio: 'inherit' });
const results = new Map(STAGES.map((s) => [s, []]));
for (let r = 0; r < rounds; r++) {
  for (const s of STAGES) {
    const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--stage', s, log], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (out.status !== 0) throw new Error(`stage ${s} failed: ${out.stderr}`);
    results.get(s).push(JSON.parse(out.stdout).nsPerLine);
  }
}
console.log(`per line of ${log} (one thread, best of 5, ${rounds} rounds):`);
for (const [s, xs] of results) console.log(`${LAYER[s].padEnd(10)} ${s.padEnd(10)} ${xs.map((x) => `${(x / 1000).toFixed(2)} µs`).join('  ')}`);
const best = (s) => Math.min(...results.get(s)) / 1000;
// engineAdd builds events only for the lines the module does not admit itself (held, declined, counted per event),
// so the aggregate layer is what engineAdd adds to the engine alone; making every record an event (engine) is the
// cost the module's admission avoids, shown for reference.
console.log(`by layer on the engine path: decode ${best('wasm').toFixed(2)} µs (the engine), aggregate ${(best('engineAdd') - best('wasm')).toFixed(2)} µs (dedup, admission, slots, timing, and the events made for the lines left to ScanState), analyze ${best('analyze').toFixed(3)} µs a line; every record made into an event would add ${(best('engine') - best('wasm')).toFixed(2)} µs`);
