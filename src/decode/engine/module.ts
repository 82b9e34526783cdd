/*! The WebAssembly modules of the line engine: the exports the host calls (assembly/engine.ts), and each build
 * (SIMD, scalar) compiled once a process, from the single-file binary's assets or from the file beside the code. */

import { readFileSync } from 'node:fs';
import { getAsset, isSea } from 'node:sea';

export interface Exports {
  memory: WebAssembly.Memory;
  REC_BYTES: WebAssembly.Global;
  SLOT_BYTES: WebAssembly.Global;
  init(inCap: number, maxStrings: number, maxInternLen: number): number;
  outPtr(): number;
  scratchPtr(): number;
  newsPtr(): number;
  newsLen(): number;
  lineCount(): number;
  scan(len: number, maxLine: number, declineFirst: number): number;
  setKlogClock(nowMs: number, nowYear: number, year: number): void;
  slotsSetup(maxSlots: number, pairCap: number, sampleCap: number, latN: number, bucketMs: number, clientMs: number): number;
  slotsFingerprint(on: number): void;
  fpHash(p: number, n: number): void;
  fpHash1(): number;
  fpHash2(): number;
  slotsReset(): void;
  slotsPtr(): number;
  slotsLen(): number;
  clientsPtr(): number;
  clientsLen(): number;
  pairsPtr(): number;
  samplesPtr(): number;
  pairsCompact(): number;
  countRecords(out: number, n: number, recBytes: number, scratch: number, from: number): number;
  dedupOpen(recentCap: number): number;
  dedupClose(s: number): void;
  dedupAdmit(s: number, p: number, n: number, terminal: number): number;
  dedupForget(s: number, p: number, n: number): void;
  dedupTail(s: number): number;
  dedupTailPtr(): number;
  dedupKey(n: number): number;
  dedupLive(): number;
  classifyAt(r: number): number;
  admitFast(out: number, from: number, n: number, state: number, beforeMs: number, startMs: number, slack: number, earliest: number, latest: number, room: number, logOk: number): number;
  fastVerdictOf(): number;
  fastDupsOf(): number;
  fastOpensPtr(): number;
  fastOpensLen(): number;
}

/** Each build's compiled module (undefined: not compiled yet), and the first reason one could not be had. */
const compiled: { simd?: WebAssembly.Module | null; scalar?: WebAssembly.Module | null; error: string | null } = { error: null };

/** The module of one build, compiled on first use: the scalar one only where the SIMD one cannot be compiled or
 * instantiated (compiling it at every start, unused, took 1-2 ms of each thread's). */
export function moduleOf(k: 'simd' | 'scalar'): WebAssembly.Module | null {
  const have = compiled[k];
  if (have !== undefined) return have;
  const file = k === 'simd' ? 'engine-simd.wasm' : 'engine.wasm';
  let mod: WebAssembly.Module | null = null;
  // The single-file binary carries the modules as assets of its own (scripts/build-binary.mjs): no file to read.
  if (isSea()) {
    try {
      mod = new WebAssembly.Module(getAsset(file));
    } catch (err) {
      compiled.error ??= `${file} (asset): ${(err as Error).message}`;
    }
  } else {
    // next to this module (dist/decode/engine/); from a bundle in dist/cli/ or dist/parallel/ (scripts/bundle.mjs);
    // or, when running from the sources (the tests), in dist/decode/engine/
    for (const url of [new URL(`./${file}`, import.meta.url), new URL(`../decode/engine/${file}`, import.meta.url), new URL(`../../../dist/decode/engine/${file}`, import.meta.url)]) {
      try {
        mod = new WebAssembly.Module(readFileSync(url));
        break;
      } catch (err) {
        compiled.error ??= `${file}: ${(err as Error).message}`;
      }
    }
  }
  // (a path tried before the one that held the file is no reason)
  if (mod !== null) compiled.error = null;
  compiled[k] = mod;
  return mod;
}

/** The first reason a build could not be had, or null. */
export function compileError(): string | null {
  return compiled.error;
}

/** Notes why instantiating a build failed, unless an earlier reason is kept. */
export function noteInstantiateError(reason: string): void {
  compiled.error ??= reason;
}
