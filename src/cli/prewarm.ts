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
import { inflateThreadMin, parkInflateWorker } from '../input/inflate-thread.js';
import { parkWorker } from '../parallel/prewarm.js';
import { MIN_SPLIT_BYTES, minSplitFromEnv } from '../parallel/range-cut.js';

/** Parks the workers argv looks like it will need; returns which. */
export function prewarm(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): { scan: boolean; inflate: boolean } {
  const want = { scan: false, inflate: false };
  try {
    Object.assign(want, wantedWorkers(argv, env));
    if (want.inflate) parkInflateWorker();
    if (want.scan) parkWorker();
  } catch {
    // a guess: the scan starts its workers as before
  }
  return want;
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
