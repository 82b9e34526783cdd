#!/usr/bin/env node
// npm run bench:floor [-- --size 1024] [--dir DIR]
// The floors a scan cannot go under, on the bench's own 1 GB logs (audit and the apiserver's -v=3 log, made by
// `npm run bench` first): Node's start, reading the file from the page cache in the scan's 8 MB chunks, and the
// compiled line engine's scan of every line with no aggregation at all (LineEngine.scanOnly, one thread). From
// them: the best a scan on this machine's cores could do if dedup, counting and the report cost nothing and the
// lanes split the work perfectly, set beside the targets the issues name. One process, best of 3. Timing only.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchApiserverLogPath, benchLogPath } from './log-path.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const size = Number(arg('--size', 1024));
const dir = arg('--dir', join(tmpdir(), 'audit-scan-bench'));
const files = { audit: benchLogPath(dir, size), 'apiserver log': benchApiserverLogPath(dir, size) };
for (const f of Object.values(files)) if (!existsSync(f)) throw new Error(`${f} is missing: run npm run bench first (it writes the logs)`);

const { loadEngine } = await import(pathToFileURL(join(here, '..', 'dist', 'decode', 'engine', 'engine.js')).href);
const { engine } = loadEngine();
if (engine === null) throw new Error('the line engine did not load: npm run build');
engine.setKlogClock(Date.parse('2026-12-01T00:00:00Z'), 2026);

const CHUNK = 8 << 20;
const buf = Buffer.allocUnsafe(CHUNK + (4 << 20));
/** Reads the file in chunks, each cut at its last newline; `each(buf, end)` gets the whole lines, returns a count. */
function pass(file, each) {
  const fd = openSync(file, 'r');
  let carry = 0;
  let bytes = 0;
  let lines = 0;
  for (;;) {
    const n = readSync(fd, buf, carry, CHUNK, null);
    if (n === 0) break;
    bytes += n;
    const end = buf.lastIndexOf(10, carry + n - 1) + 1;
    if (each !== null) lines += each(buf, end);
    buf.copy(buf, 0, end, carry + n);
    carry = carry + n - end;
  }
  closeSync(fd);
  return { bytes, lines };
}
const best = (f) => {
  let ms = Infinity;
  let r;
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    r = f();
    ms = Math.min(ms, Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { ms, ...r };
};

const start = best(() => {
  spawnSync(process.execPath, ['-e', '0']);
  return {};
}).ms;
const cores = availableParallelism();
console.log(`Node's start: ${start.toFixed(0)} ms; ${cores} cores`);
for (const [what, file] of Object.entries(files)) {
  const read = best(() => pass(file, null));
  const scan = best(() => pass(file, (b, end) => engine.scanOnly(b, 0, end)));
  const mbs = (ms) => (read.bytes / 1048576 / (ms / 1000)).toFixed(0);
  const ideal = start + scan.ms / cores;
  console.log(`${what}: ${(read.bytes / 1048576).toFixed(0)} MB, ${scan.lines} lines`);
  console.log(`  read alone            ${read.ms.toFixed(0).padStart(6)} ms  ${mbs(read.ms).padStart(5)} MB/s`);
  console.log(`  read + module scan    ${scan.ms.toFixed(0).padStart(6)} ms  ${mbs(scan.ms).padStart(5)} MB/s  ${((scan.ms * 1000) / scan.lines).toFixed(3)} µs a line, one thread`);
  console.log(`  floor on ${cores} cores      ${ideal.toFixed(0).padStart(6)} ms  (start + scan / cores: no dedup, no counting, no report, a perfect split)`);
}
