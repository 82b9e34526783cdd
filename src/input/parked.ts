/*! Workers started before they are needed: bin/ starts them while the CLI's bundle loads (src/cli/prewarm.ts
 * decides which), and parks them here until the code that uses one takes it: the scan pool's first worker
 * (src/parallel/prewarm.ts), the gzip inflate thread (inflate-thread.ts). A parked worker is unref'd, so it never
 * keeps the process alive; one nobody took is ended when the scan is done with its inputs.
 *
 * bin/ loads this module before the bundle, and the bundle has its own copy of it: the slots are kept on
 * globalThis, under a registered symbol both copies name. Only Node's modules here. */

import type { Worker } from 'node:worker_threads';

const SLOTS = Symbol.for('audit-scan.parked-workers');

interface Parked {
  worker: Worker;
  /** what the worker was started with that its user needs (the inflate thread's shared counters) */
  data: unknown;
  /** it failed or exited before it was taken: the user starts another (which reports a failure itself) */
  dead: boolean;
}

function slots(): Map<string, Parked> {
  const g = globalThis as { [SLOTS]?: Map<string, Parked> };
  return (g[SLOTS] ??= new Map());
}

/** Parks `worker` under `kind` (unless one is parked there already: then `worker` is ended). */
export function park(kind: string, worker: Worker, data: unknown = null): void {
  const s = slots();
  if (s.has(kind)) {
    void worker.terminate();
    return;
  }
  const p: Parked = { worker, data, dead: false };
  worker.unref();
  const die = (): void => {
    p.dead = true;
  };
  worker.once('error', die);
  worker.once('exit', die);
  s.set(kind, p);
}

/** Whether a worker is parked under `kind`. */
export function isParked(kind: string): boolean {
  return slots().has(kind);
}

/** The worker parked under `kind`, if one is there and alive: the caller's from now on (ref'd, none of our
 * listeners). */
export function takeParked(kind: string): { worker: Worker; data: unknown } | undefined {
  const s = slots();
  const p = s.get(kind);
  if (p === undefined) return undefined;
  s.delete(kind);
  p.worker.removeAllListeners('error');
  p.worker.removeAllListeners('exit');
  if (p.dead) {
    void p.worker.terminate();
    return undefined;
  }
  p.worker.ref();
  return { worker: p.worker, data: p.data };
}

/** Ends the workers still parked (no one took them). */
export function dropParked(): void {
  const s = slots();
  for (const p of s.values()) void p.worker.terminate();
  s.clear();
}
