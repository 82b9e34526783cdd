/*! Which workers to start before the CLI's bundle loads (src/input/parked.ts says why), decided from argv alone,
 * before any option is parsed: bin/ calls this first. It must be cheap and is allowed to guess wrong one way: a
 * worker started for nothing is ended once the scan is done with its inputs (at most a boot's CPU on the other
 * core), while a worker not started costs what it cost before. Both need the scan command (the first argument an
 * option or a file, not a command word such as `load`), and neither --help, --version nor --follow:
 * - the scan pool's first worker, when the threads are not set to 1 and an argument names a plain file as big as
 *   the scan cuts into ranges;
 * - the inflate thread, when an argument names a gzip file as big as the scan inflates on a thread of its own.
 * A directory or stdin starts none, as before. Only Node's modules here and in what this imports: it loads before
 * the bundle. */

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { inflateThreadMin, parkInflateWorker } from '../input/inflate-thread.js';
import { parkWorker } from '../parallel/prewarm.js';
import { MIN_SPLIT_BYTES, minSplitFromEnv } from '../segment/range-cut.js';

/** Parks the workers argv looks like it will need; returns which, and the interrupt budget a scan in lanes wants
 * (below; null: V8's own), for bin/ to set with setInterruptBudget() once the CLI's bundle has loaded. */
export function prewarm(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): { scan: boolean; inflate: boolean; budget: number | null } {
  const want = { scan: false, inflate: false, budget: null as number | null };
  try {
    Object.assign(want, wantedWorkers(argv, env));
    want.budget = interruptBudget(argv, env, want.scan || want.inflate);
    if (want.inflate) parkInflateWorker();
    if (want.scan) parkWorker();
  } catch {
    // a guess: the scan starts its workers as before
  }
  return want;
}

/** Sets V8's interrupt budget to what prewarm() chose (null: leaves V8's own). bin/ calls it once the CLI's bundle
 * has loaded, not before: the flag is the process's, and the parked worker's boot and the bundle's load, which run
 * Node's and our start-up code once, were slower under the raised budget (a worker with its bundle ready 81-86 ms
 * after it was made, 107-117 ms under it; the 1 GB scan 0.989 of the time with the budget set after the load,
 * farm-bench -n 31 and -n 41). The scan's hot functions are made, or come back to the budget, after that, so they
 * take the raised one. */
export function setInterruptBudget(budget: number | null): void {
  if (budget !== null) setFlagsFromString(`--interrupt-budget=${budget}`);
}

/** V8's interrupt budget (bytecode run before a function is weighed for TurboFan) while a scan runs in lanes, or
 * beside the inflate thread, on the compiled engine: 2,000,000, against V8's 67,584. Each isolate compiled with
 * TurboFan the few JavaScript loops that run once a segment or a fold (folding the aggregator's tables, the
 * look-back window, the time runs) and recompiled them when a later branch deoptimized them: 621 ms of compiling a
 * 1 GB scan (`--trace-opt`, both isolates), on the two cores the lanes need, for JavaScript that then ran about
 * 40 ms. With the budget they run
 * unoptimized a while longer, and the scan took 11% less CPU and 8.6% less time (git log -- bench/README.md); a gzip scan,
 * whose other core inflates, 7% less CPU and 5.7% less time. Not for `--engine js`, whose per-line JavaScript wants
 * TurboFan early (8% slower with it), nor for one lane of a plain file (TurboFan then has a core of its own: 4%
 * slower with it), `load` or the other commands. */
export const LANE_INTERRUPT_BUDGET = 2_000_000;

/** The interrupt budget prewarm() sets: LANE_INTERRUPT_BUDGET for a scan in lanes or beside the inflate thread
 * (`lanes`: the scan pool's first worker or the inflate thread is wanted) on the compiled engine, or null for V8's
 * own. AUDIT_SCAN_INTERRUPT_BUDGET sets another (0: V8's own) for such a scan. */
export function interruptBudget(argv: readonly string[], env: NodeJS.ProcessEnv, lanes: boolean): number | null {
  if (!lanes || engineOf(argv, env) === 'js') return null;
  const set = env.AUDIT_SCAN_INTERRUPT_BUDGET;
  if (set === undefined || set === '') return LANE_INTERRUPT_BUDGET;
  const n = Number(set);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** --engine as given (the last one wins), else AUDIT_SCAN_ENGINE. */
function engineOf(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  let e = env.AUDIT_SCAN_ENGINE;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--engine') e = argv[++i];
    else if (a.startsWith('--engine=')) e = a.slice('--engine='.length);
  }
  return e;
}

/** The workers a scan with `argv` will start (see the module comment). */
export function wantedWorkers(argv: readonly string[], env: NodeJS.ProcessEnv): { scan: boolean; inflate: boolean } {
  const none = { scan: false, inflate: false };
  if (argv.length === 0) return none;
  const first = argv[0]!;
  // a command word (load, sql, partial, help, …) names no file
  if (!first.startsWith('-') && !isFile(first)) return none;
  if (argv.some((a) => a === '-h' || a === '--help' || a === '-V' || a === '--version' || a === '--follow')) return none;
  const minSplit = minSplitFromEnv(env) ?? MIN_SPLIT_BYTES;
  const minInflate = inflateThreadMin(env);
  const threads = threadsOf(argv);
  let scan = false;
  let inflate = false;
  for (const a of argv) {
    if (a.startsWith('-')) continue;
    const f = fileOf(a);
    if (f === null) continue;
    if (f.gzip) inflate ||= f.size >= minInflate;
    else scan ||= threads > 1 && f.size >= minSplit;
  }
  return { scan, inflate };
}

/** -j/--threads as given (the last one wins, as commander takes it), else what `auto` gives (config.ts). */
function threadsOf(argv: readonly string[]): number {
  let t = Math.min(availableParallelism(), 8);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let v: string | undefined;
    if (a === '-j' || a === '--threads') v = argv[++i];
    else if (a.startsWith('--threads=')) v = a.slice('--threads='.length);
    else if (a.startsWith('-j') && a.length > 2) v = a.slice(2);
    else continue;
    if (v !== undefined && v !== 'auto') t = Number(v);
  }
  return t;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A regular file's size, and whether it begins as gzip does. Stat first: a FIFO (`<(…)`) is never opened here,
 * where a read would take its bytes from the scan. */
function fileOf(path: string): { size: number; gzip: boolean } | null {
  try {
    const st = statSync(path);
    if (!st.isFile()) return null;
    const fd = openSync(path, 'r');
    try {
      const head = Buffer.alloc(2);
      return { size: st.size, gzip: readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b };
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}
