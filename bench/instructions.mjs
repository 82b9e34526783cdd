#!/usr/bin/env node
// npm run bench:instructions [-- --size 20]
// Counts the instructions one single-threaded scan executes (valgrind cachegrind), minus those of a
// one-line scan (start-up and report). On a shared machine wall times drift by ±30% between runs; this
// count moves by about 1%, so it can tell a 5% change in the hot path apart from noise. It is a proxy:
// it does not see cache misses or GC pauses, so confirm a win with `npm run bench` (same-run ratios).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchLogPath } from './log-path.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const i = process.argv.indexOf('--size');
const sizeMb = i < 0 ? 20 : Number(process.argv[i + 1]);
if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('valgrind is not installed (apt-get install valgrind); nothing measured');
  process.exit(0);
}
const dir = join(tmpdir(), 'audit-scan-bench');
mkdirSync(dir, { recursive: true });
const log = benchLogPath(dir, sizeMb);
if (!existsSync(log)) spawnSync(process.execPath, [join(here, 'generate.mjs'), log, String(sizeMb)], { stdio: 'inherit' });
const one = join(dir, 'audit-one-line.log');
writeFileSync(one, spawnSync('head', ['-n', '1', log]).stdout);

function instructions(file, engine) {
  const r = spawnSync('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', '--smc-check=all-non-file', process.execPath, join(root, 'bin', 'audit-scan.js'), '-j', '1', '--engine', engine, '-o', 'json', file], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  const m = /I\s+refs:\s+([\d,]+)/.exec(r.stderr);
  if (!m) throw new Error(`no instruction count from valgrind:\n${r.stderr.slice(-2000)}`);
  return Number(m[1].replace(/,/g, ''));
}

const lines = Number(spawnSync('wc', ['-l', log], { encoding: 'utf8' }).stdout.trim().split(/\s+/)[0]);
// The compiled engine (the default) and the JavaScript path alone.
for (const engine of ['wasm', 'js']) {
  const base = instructions(one, engine);
  const full = instructions(log, engine);
  console.log(`--engine ${engine}: start-up and report ${(base / 1e9).toFixed(3)} G instructions; scan of ${sizeMb} MB (${lines} lines) ${((full - base) / 1e9).toFixed(3)} G, ${Math.round((full - base) / lines)} per line`);
}
