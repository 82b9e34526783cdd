#!/usr/bin/env node
// Writes src/aggregate/latency-edges.ts: latencyEdges(2000) (src/aggregate/latency.ts) as a table, so that a scan
// thread's start does not settle 2,000 edges one double at a time in cold code (20-30 ms of the main thread and
// ~10 ms of a worker's, --cpu-prof on the 1 GB bench log). test/analyze/latency.test.ts fails when the table is not
// what latencyEdges(2000) gives. Run after npm run build: node scripts/latency-edges.mjs
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { latencyEdges } = await import(join(ROOT, 'dist/aggregate/latency.js'));
const edges = latencyEdges(2000);
const b64 = Buffer.from(edges.buffer, edges.byteOffset, edges.byteLength).toString('base64');
const lines = b64.match(/.{1,112}/g).map((l) => `  '${l}'`).join(' +\n');
writeFileSync(
  join(ROOT, 'src/aggregate/latency-edges.ts'),
  `// Written by scripts/latency-edges.mjs: latencyEdges(2000) of latency.ts, the doubles' bytes (little-endian) in
// base64. Do not edit; test/analyze/latency.test.ts holds it to latencyEdges(2000).
export const LATENCY_EDGES_2000 =
${lines};
`,
);
