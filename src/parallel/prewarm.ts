/*! The scan pool's first worker, started early. A worker takes about 150 ms to boot (Node's own start, then the
 * worker's bundle), and the pool used to start it only once the CLI's bundle had loaded and the first range was
 * handed out: on the 1 GB bench log the main thread read from about 100 ms, the worker from about 300 ms, and the
 * second core sat idle until then. bin/ starts one before it loads the CLI's bundle (src/cli/prewarm.ts decides
 * when) and parks it (src/input/parked.ts); the pool takes it as its first worker. Only Node's modules here and in
 * what this imports: bin/ loads it before the bundle. */

import { Worker } from 'node:worker_threads';
import { park, takeParked } from '../input/parked.js';

// Always the compiled worker, bundled (scripts/bundle.mjs: one file to load, not the worker's ~60 modules): from
// src/ (tests), from dist/ and from the CLI's bundle in dist/cli/ this resolves to dist/parallel/worker.bundle.js.
const WORKER_URL = new URL('../../dist/parallel/worker.bundle.js', import.meta.url);

/** A new scan worker. */
export function startWorker(): Worker {
  // A small young generation (3 MB: semi-spaces of 1 MB): the 1 GB bench scan's peak RSS 266 → 226 MB at 16 MB
  // (two workers), about 8 MB less at 8, and 4-6 MB less again at 3. A young generation that grows touches pages
  // it never used, and a first touch costs 12-18 us on this machine's VM; at 3 the worker's scavenges reuse the
  // same pages: the 1 GB scan 0.989 of the time and 0.982 of the CPU against 8 (farm-bench -n 15), 1,700 fewer
  // page faults; `--engine js` on the 200 MB log, whose lanes allocate an event a line, 0.978 (-n 7).
  return new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 3 } });
}

/** Starts a scan worker and parks it for the pool. */
export function parkWorker(): void {
  park('scan', startWorker());
}

/** The parked scan worker, if there is one alive. */
export function takeParkedWorker(): Worker | undefined {
  return takeParked('scan')?.worker;
}
