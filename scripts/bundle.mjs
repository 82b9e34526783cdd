#!/usr/bin/env node
// npm run build's last step: the CLI and the scan worker each as one ES module, so that a start loads one file,
// not the ~90 modules of dist/ (resolving and reading each took about 50 ms of every run: a scan of a small file
// 0.27 → 0.2 s; each worker starts sooner too). The bundles sit beside the modules they replace, at the same depth
// (dist/cli/, dist/parallel/), so that the paths the code makes from import.meta.url (package.json, the demo
// fixtures, the engine's wasm, the worker) resolve alike. bin/ loads the CLI's bundle; the pool starts the
// worker's. DuckDB (a native module, loaded only by the store commands) stays outside.
//
// The CLI's bundle is split where the code imports a module when it needs it (`await import(…)`): the other
// commands (store, shards, --follow, completion), the table, markdown and HTML renderers, stream-json for JSON
// documents. Those go in chunks beside it (dist/cli/cli.<hash>.js), loaded when asked for; a scan's start compiles
// 0.6 MB rather than 0.93 (git log -- bench/README.md). test/cli/bundle.test.ts holds the line.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// the chunks of an earlier build (their names change with their content)
for (const f of readdirSync(join(ROOT, 'dist/cli'))) if (/^cli\.[A-Z0-9]+\.js$/.test(f)) rmSync(join(ROOT, 'dist/cli', f));

for (const [entry, out, split] of [
  ['dist/cli/main.js', 'dist/cli/cli.bundle.js', true],
  ['dist/parallel/worker.js', 'dist/parallel/worker.bundle.js', false],
]) {
  const r = await build({
    entryPoints: [join(ROOT, entry)],
    absWorkingDir: ROOT,
    ...(split ? { outdir: dirname(join(ROOT, out)), entryNames: 'cli.bundle', chunkNames: 'cli.[hash]', splitting: true, metafile: true } : { outfile: join(ROOT, out) }),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@duckdb/node-api'],
    // commander and cli-table3 are CommonJS: their require() of Node's modules needs a real require in an ES module
    banner: { js: "import { createRequire as __auditScanRequire } from 'node:module';\nconst require = __auditScanRequire(import.meta.url);" },
    legalComments: 'eof',
    logLevel: 'warning',
  });
  for (const f of split ? Object.keys(r.metafile.outputs).map((o) => resolve(ROOT, o)) : [join(ROOT, out)]) asciiOnly(f);
}

/** Writes the bundle's characters past ASCII as \uXXXX. esbuild escapes them in strings, but not in the comments
 * it keeps nor in regular expressions ('µs'), and a source with one character past Latin-1 is a two-byte string
 * to V8: the CLI's 0.9 MB bundle decoded into 1.8 MB and scanned as UTF-16 on every start (the demo scan 0.986 of
 * the time, the 1 GB scan 0.994, farm-bench -n 21 and -n 15). The escape means the same in comments, strings,
 * cooked templates, regular expressions and names; not in a template's raw text, so a line of code that has
 * both a tagged template and such a character stops the build. */
function asciiOnly(file) {
  const src = readFileSync(file, 'utf8');
  const lines = src.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const code = !/^\s*(\/\/|\/\*|\*)/.test(lines[i]); // not a comment's line
    if (code && /[^\x00-\x7f]/.test(lines[i]) && /[\w)\]]\s*`/.test(lines[i])) throw new Error(`${file}:${i + 1}: a tagged template beside a character past ASCII: escape it in the source`);
  }
  writeFileSync(file, src.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
