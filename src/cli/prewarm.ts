/*! Whether to start the scan worker before the CLI's bundle loads (src/parallel/prewarm.ts says why), decided from
 * argv alone, before any option is parsed: bin/ calls this first. It must be cheap and is allowed to guess wrong
 * one way: a worker started for nothing is ended once the scan is done with its inputs (at most a boot's CPU on
 * the other core), while a worker not started costs what it cost before. So: a worker when the command is the scan
 * (the first argument an option or a file, not a command word such as `load`), the threads are not set to 1, and
 * an argument names a plain file as big as the scan cuts into ranges (a gzip file, a directory or stdin: none, as
 * before). Only Node's modules here: it loads before the bundle. */

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parkWorker } from '../parallel/prewarm.js';

/** scan.ts MIN_SPLIT_BYTES: a plain file this big is cut into ranges for the lanes */
const MIN_SPLIT_BYTES = 32 << 20;

/** Parks a scan worker when argv looks like a scan that will cut a file into ranges; returns whether it did. */
export function prewarm(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    if (!wantsWorker(argv, env)) return false;
    parkWorker();
    return true;
  } catch {
    return false; // a guess: the pool starts its workers as before
  }
}

/** Whether argv is a scan that will cut a plain file into ranges for more than one lane (see the module comment). */
export function wantsWorker(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (argv.length === 0) return false;
  const first = argv[0]!;
  // a command word (load, sql, partial, help, …) names no file
  if (!first.startsWith('-') && !isFile(first)) return false;
  if (threadsOf(argv) <= 1) return false;
  const split = env.AUDIT_SCAN_MIN_SPLIT_BYTES;
  const minSplit = split !== undefined && /^\d+$/.test(split) ? Number(split) : MIN_SPLIT_BYTES;
  if (argv.some((a) => a === '-h' || a === '--help' || a === '-V' || a === '--version' || a === '--follow')) return false;
  return argv.some((a) => !a.startsWith('-') && isPlainFileOf(a, minSplit));
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

/** A regular file of `minBytes` or more that does not begin as gzip does. Stat first: a FIFO (`<(…)`) is never
 * opened here, where a read would take its bytes from the scan. */
function isPlainFileOf(path: string, minBytes: number): boolean {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size < minBytes) return false;
    const fd = openSync(path, 'r');
    try {
      const head = Buffer.alloc(2);
      return !(readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b);
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
