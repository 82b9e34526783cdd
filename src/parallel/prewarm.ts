/*! The scan worker, started early. A worker takes about 150 ms to boot (Node's own start, then the worker's
 * bundle), and the pool used to start it only once the CLI's bundle had loaded and the first range was handed out:
 * on the 1 GB bench log the main thread read from about 100 ms, the worker from about 300 ms, and the second core
 * sat idle until then. bin/ starts one worker before it loads the CLI's bundle (src/cli/prewarm.ts decides when),
 * parks it here, and the pool takes it as its first worker. A worker nobody takes is ended when the scan is done
 * with its inputs; it is unref'd while parked, so it never keeps the process alive.
 *
 * This module and its importer in bin/ load before the bundle, and the bundle has its own copy of this code: the
 * parked worker is kept on globalThis, under a registered symbol both copies name. Only Node's modules here. */

import { Worker } from 'node:worker_threads';

// Always the compiled worker, bundled (scripts/bundle.mjs: one file to load, not the worker's ~60 modules): from
// src/ (tests), from dist/ and from the CLI's bundle in dist/cli/ this resolves to dist/parallel/worker.bundle.js.
const WORKER_URL = new URL('../../dist/parallel/worker.bundle.js', import.meta.url);

const PARKED = Symbol.for('audit-scan.parked-worker');

interface Parked {
  worker: Worker;
  /** it failed or exited before a pool took it: the pool starts another (which reports the failure itself) */
  dead: boolean;
}

type Slot = { [PARKED]?: Parked };

/** A new scan worker. */
export function startWorker(): Worker {
  // A smaller young generation than V8's default: the 1 GB bench scan's peak RSS 266 → 226 MB at 16 MB (two
  // workers), and about 8 MB less again at 8 (one worker beside the main thread's lane); time within noise.
  return new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
}

/** Starts a worker and parks it for the pool (one at most). */
export function parkWorker(): void {
  const slot = globalThis as Slot;
  if (slot[PARKED] !== undefined) return;
  const parked: Parked = { worker: startWorker(), dead: false };
  parked.worker.unref();
  const die = (): void => {
    parked.dead = true;
  };
  parked.worker.once('error', die);
  parked.worker.once('exit', die);
  slot[PARKED] = parked;
}

/** The parked worker, if there is one alive; it is the caller's from now on (ref'd, no listeners of ours). */
export function takeParkedWorker(): Worker | undefined {
  const slot = globalThis as Slot;
  const parked = slot[PARKED];
  if (parked === undefined) return undefined;
  delete slot[PARKED];
  parked.worker.removeAllListeners('error');
  parked.worker.removeAllListeners('exit');
  if (parked.dead) {
    void parked.worker.terminate();
    return undefined;
  }
  parked.worker.ref();
  return parked.worker;
}

/** Ends the parked worker, if no pool took it (the scan did not cut a file into ranges). */
export function dropParkedWorker(): void {
  const slot = globalThis as Slot;
  const parked = slot[PARKED];
  if (parked === undefined) return;
  delete slot[PARKED];
  void parked.worker.terminate();
}
