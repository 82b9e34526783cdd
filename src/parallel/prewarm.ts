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
  // A smaller young generation than V8's default: the 1 GB bench scan's peak RSS 266 → 226 MB at 16 MB (two
  // workers), and about 8 MB less again at 8 (one worker beside the main thread's lane); time within noise.
  return new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
}

/** Starts a scan worker and parks it for the pool. */
export function parkWorker(): void {
  park('scan', startWorker());
}

/** The parked scan worker, if there is one alive. */
export function takeParkedWorker(): Worker | undefined {
  return takeParked('scan')?.worker;
}
