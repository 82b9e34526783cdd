#!/usr/bin/env node
// npm run build:binary: the single-file executable for hosts without Node (README "Install"), with Node's single
// executable applications (SEA): Node 20 runs one CommonJS script, so esbuild bundles dist/ into one; the compiled
// engine's wasm and the bundled scan worker go in as SEA assets; postject writes the blob into a copy of this
// node binary. DuckDB (a native module) is left out: the store commands say so.
//
// Usage: node scripts/build-binary.mjs [--out DIR]   (after npm run build; default DIR: release/)
// Makes DIR/audit-scan-<platform>-<arch> (e.g. audit-scan-linux-x64) and prints its path.

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const OUT = resolve(outArg > 0 ? process.argv[outArg + 1] : join(ROOT, 'release'));
const WORK = join(OUT, '.sea');
const NAME = `audit-scan-${process.platform}-${process.arch}`;
const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

for (const f of ['dist/cli/main.js', 'dist/parallel/worker.js', 'dist/decode/engine/engine.wasm', 'dist/decode/engine/engine-simd.wasm']) {
  if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: run npm run build first`);
}
rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });

/** The bundle of one entry as a CommonJS script. */
async function bundle(contents, outfile, plugins = []) {
  await build({
    stdin: { contents, resolveDir: join(ROOT, 'dist'), sourcefile: 'sea-entry.js', loader: 'js' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // the store loads DuckDB lazily; the binary has none (src/cli/commands/store.ts says so before loading it)
    external: ['@duckdb/node-api'],
    // import.meta has no meaning in a CommonJS script: a URL of the script itself keeps `new URL(rel, …)` working
    // (paths beside the binary, which are not there: the code that reads them asks isSea() first)
    define: { 'import.meta.url': '__sea_import_meta_url', AUDIT_SCAN_BUNDLED_VERSION: JSON.stringify(version) },
    banner: { js: "var __sea_import_meta_url = require('node:url').pathToFileURL(typeof __filename === 'string' ? __filename : process.execPath).href;" },
    plugins,
    logLevel: 'warning',
    legalComments: 'none',
  });
}

// the pool's workers: the shim starts the bundled worker from the binary's asset
const workerShim = {
  name: 'sea-worker-threads',
  setup(b) {
    b.onResolve({ filter: /^node:worker_threads$/ }, (a) => (/parallel[\\/]prewarm\.js$/.test(a.importer) ? { path: join(ROOT, 'scripts', 'sea-worker-threads.cjs') } : undefined));
  },
};
// the scan worker starts before the CLI runs, as bin/ starts it (src/cli/prewarm.ts)
await bundle("import { prewarm, setInterruptBudget } from './cli/prewarm.js';\nimport { main } from './cli/main.js';\nsetInterruptBudget(prewarm(process.argv.slice(2)).budget);\nmain();\n", join(WORK, 'main.cjs'), [workerShim]);
await bundle("import './parallel/worker.js';\n", join(WORK, 'worker.cjs'));

const config = {
  main: join(WORK, 'main.cjs'),
  output: join(WORK, 'sea-prep.blob'),
  disableExperimentalSEAWarning: true,
  // V8's code cache for the bundle: the binary starts faster (docs/performance.md)
  useCodeCache: true,
  assets: {
    'engine.wasm': join(ROOT, 'dist/decode/engine/engine.wasm'),
    'engine-simd.wasm': join(ROOT, 'dist/decode/engine/engine-simd.wasm'),
    'worker.cjs': join(WORK, 'worker.cjs'),
  },
};
writeFileSync(join(WORK, 'sea-config.json'), JSON.stringify(config, null, 2));
/** Runs a tool quietly (node and postject chatter on stderr); its output is shown when it fails. */
function quiet(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    process.stderr.write(`${cmd} ${args.join(' ')}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
    throw err;
  }
}
quiet(process.execPath, ['--experimental-sea-config', join(WORK, 'sea-config.json')]);

const exe = join(OUT, NAME);
rmSync(exe, { force: true });
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
// Node's release binaries carry debug symbols: strip (binutils) takes 99 MB down to 86 MB; without it, the same
// binary, bigger
try {
  execFileSync('strip', [exe], { stdio: 'ignore' });
} catch {
  process.stderr.write('build-binary: strip (binutils) not found, the binary keeps its debug symbols\n');
}
const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
quiet(process.execPath, [postject, exe, 'NODE_SEA_BLOB', config.output, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2']);
rmSync(WORK, { recursive: true, force: true });
process.stdout.write(exe + '\n');
