#!/usr/bin/env node
// node bench/engine-ab.mjs A.wasm B.wasm [--rounds 14] [--log FILE]
// Two builds of the engine's module (dist/decode/engine/engine-simd.wasm of two commits: copy each aside after
// `npm run build:engine`), timed in one process on the same lines, alternated round by round (A B, B A, …): each
// round makes a fresh instance, reads the log once to let V8 tier the module up, then once timed (the engine alone:
// LineEngine.scanOnly, no aggregation). A whole scan's wall time moves by 3-20% on this shared machine between
// runs; these medians of ns a line moved by 1-3% between calls on a busy host: run it twice, A and B swapped.
// Confirm with `npm run bench`. Timing lives here only.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchLogPath } from './log-path.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : process.argv[i + 1];
};
const [a, b] = process.argv.slice(2).filter((x, i, all) => !x.startsWith('--') && !(i > 0 && all[i - 1].startsWith('--')));
if (a === undefined || b === undefined) {
  console.error('usage: node bench/engine-ab.mjs A.wasm B.wasm [--rounds 14] [--log FILE]');
  process.exit(2);
}
const rounds = Number(arg('rounds', 14));
const log = arg('log', benchLogPath(join(tmpdir(), 'audit-scan-bench'), 200));
const { LineEngine } = await import(pathToFileURL(join(here, '..', 'dist', 'decode', 'engine', 'engine.js')).href);
const buf = readFileSync(log);
const end = buf.lastIndexOf(10) + 1;
let lines = 0;
for (let p = buf.indexOf(10); p >= 0 && p < end; p = buf.indexOf(10, p + 1)) lines++;
const modules = [a, b].map((f) => new WebAssembly.Module(readFileSync(f)));
const ns = [[], []];
for (let r = 0; r < rounds; r++) {
  for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
    const engine = new LineEngine(new WebAssembly.Instance(modules[k], {}).exports);
    engine.scanOnly(buf, 0, end);
    const t0 = process.hrtime.bigint();
    engine.scanOnly(buf, 0, end);
    ns[k].push(Number(process.hrtime.bigint() - t0) / lines);
  }
}
const median = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
const [ma, mb] = ns.map(median);
console.log(`${lines} lines of ${log}, ${rounds} rounds each`);
console.log(`A ${a}: median ${ma.toFixed(0)} ns a line (min ${Math.min(...ns[0]).toFixed(0)})`);
console.log(`B ${b}: median ${mb.toFixed(0)} ns a line (min ${Math.min(...ns[1]).toFixed(0)})`);
console.log(`A/B ${(ma / mb).toFixed(4)} (below 1: A is faster)`);
