/*! The compiled line engine (issue 12): WebAssembly built from src/decode/engine/assembly/engine.ts. It reads audit
 * Event lines on its fast path into records (strings interned, times parsed, the list query parsed, a
 * responseObject's item counts read, request and response bodies skipped); every other line is declined and
 * read by the JavaScript path. It counts nothing: each record becomes the same
 * AuditEvent the JavaScript path makes, and ScanState counts both the same way, once.
 *
 * Loading: the SIMD build, else the scalar build (same source), else none (the caller reads every line in
 * JavaScript and says so on stderr). `--engine js` or AUDIT_SCAN_ENGINE=js skips it. */

import { readFileSync } from 'node:fs';
import { getAsset, isSea } from 'node:sea';
import type { AuditEvent, Stage } from '../../model/audit-event.js';
import type { ListQuery } from '../../model/request-uri.js';

/** Bytes handed to the engine per call. */
const IN_CAP = 1 << 20;
/** Distinct strings the engine interns before it declines lines with new ones. */
const MAX_STRINGS = 1 << 20;
/** Longest string it interns (user agents, selectors); longer ones decline the line. */
const MAX_INTERN_LEN = 4096;

// Record layout: keep in step with src/decode/engine/assembly/engine.ts.
const R = {
  STATUS: 0,
  START: 1,
  END: 2,
  STAGE: 3,
  VERB: 4,
  LEVEL: 5,
  USER: 6,
  UA: 7,
  NODE: 8,
  RESOURCE: 9,
  GROUP: 10,
  NS: 11,
  SUB: 12,
  NAME_P: 13,
  NAME_L: 14,
  ID_P: 15,
  ID_L: 16,
  URI_P: 17,
  URI_L: 18,
  CODE: 19,
  RV_CLASS: 20,
  RV_P: 21,
  RV_L: 22,
  RVM: 23,
  LIMIT: 24,
  FLAGS: 25,
  FSEL: 26,
  LSEL: 27,
  NL: 28,
  RETURNED: 29,
} as const;
const O_RECEIVED = 128;
const O_STAGE_T = 136;
const O_REMAINING = 144;
const STAGES: Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

interface Exports {
  memory: WebAssembly.Memory;
  REC_BYTES: WebAssembly.Global;
  init(inCap: number, maxStrings: number, maxInternLen: number): number;
  outPtr(): number;
  scratchPtr(): number;
  newsPtr(): number;
  newsLen(): number;
  lineCount(): number;
  scan(len: number, maxLine: number, declineFirst: number): number;
}

/** What loading found: the engine, or why there is none. */
export type EngineLoad = { engine: LineEngine; variant: 'simd' | 'scalar' } | { engine: null; reason: string };

let cachedModules: { simd: WebAssembly.Module | null; scalar: WebAssembly.Module | null; error: string | null } | null = null;

function modules(): { simd: WebAssembly.Module | null; scalar: WebAssembly.Module | null; error: string | null } {
  if (cachedModules !== null) return cachedModules;
  const m: { simd: WebAssembly.Module | null; scalar: WebAssembly.Module | null; error: string | null } = { simd: null, scalar: null, error: null };
  for (const [k, file] of [['simd', 'engine-simd.wasm'], ['scalar', 'engine.wasm']] as const) {
    // The single-file binary carries the modules as assets of its own (scripts/build-binary.mjs): no file to read.
    if (isSea()) {
      try {
        m[k] = new WebAssembly.Module(getAsset(file));
      } catch (err) {
        m.error ??= `${file} (asset): ${(err as Error).message}`;
      }
      if (m[k] !== null) m.error = null;
      continue;
    }
    // next to this module (dist/decode/engine/), or, when running from the sources (the tests), in dist/decode/engine/
    for (const url of [new URL(`./${file}`, import.meta.url), new URL(`../../../dist/decode/engine/${file}`, import.meta.url)]) {
      try {
        m[k] = new WebAssembly.Module(readFileSync(url));
        break;
      } catch (err) {
        m.error ??= `${file}: ${(err as Error).message}`;
      }
    }
    if (m[k] !== null) m.error = null;
  }
  cachedModules = m;
  return m;
}

/** Instantiates the engine (one per thread: it holds the thread's string table). */
export function loadEngine(): EngineLoad {
  const m = modules();
  for (const [variant, mod] of [['simd', m.simd], ['scalar', m.scalar]] as const) {
    if (mod === null) continue;
    try {
      const inst = new WebAssembly.Instance(mod, {});
      return { engine: new LineEngine(inst.exports as unknown as Exports), variant };
    } catch (err) {
      m.error ??= `${variant}: ${(err as Error).message}`;
    }
  }
  return { engine: null, reason: m.error ?? 'no engine module' };
}

/** One line as the engine saw it. */
export interface EngineLine {
  /** the AuditEvent it read, or null: declined (read the line in JavaScript) */
  event: AuditEvent | null;
  /** the event had no auditID (the caller names it) */
  missingId: boolean;
  /** the line's bytes in the caller's buffer: [start, end) without \r, and its \n */
  start: number;
  end: number;
  nl: number;
}

export class LineEngine {
  private readonly x: Exports;
  private readonly inPtr: number;
  private readonly recBytes: number;
  private buffer: ArrayBuffer;
  private bytes: Buffer;
  private i32: Int32Array;
  private f64: Float64Array;
  /** id → string, for every string the engine interned */
  readonly strings: string[] = [];
  /** lines read by the engine / declined, over the engine's life */
  accepted = 0;
  declined = 0;

  constructor(x: Exports) {
    this.x = x;
    this.inPtr = x.init(IN_CAP, MAX_STRINGS, MAX_INTERN_LEN);
    this.recBytes = x.REC_BYTES.value as number;
    this.buffer = x.memory.buffer;
    this.bytes = Buffer.from(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.f64 = new Float64Array(this.buffer);
  }

  private refresh(): void {
    if (this.x.memory.buffer === this.buffer) return;
    this.buffer = this.x.memory.buffer;
    this.bytes = Buffer.from(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.f64 = new Float64Array(this.buffer);
  }

  /** Reads the newline-terminated lines of buf[from, to) (to - 1 holds \n), calling `each` per line in order.
   * `maxLine`: longer lines are declined; `declineFirst`: the first n lines are declined unread. */
  readLines(buf: Buffer, from: number, to: number, maxLine: number, declineFirst: number, each: (l: EngineLine) => void): void {
    let s = from;
    let first = declineFirst;
    const line: EngineLine = { event: null, missingId: false, start: 0, end: 0, nl: 0 };
    while (s < to) {
      let e = to;
      if (e - s > IN_CAP) {
        e = buf.lastIndexOf(10, s + IN_CAP - 1) + 1;
        if (e <= s) {
          // one line longer than the engine's input: declined whole
          const nl = buf.indexOf(10, s);
          line.event = null;
          line.start = s;
          line.nl = nl;
          line.end = nl > s && buf[nl - 1] === 13 ? nl - 1 : nl;
          this.declined++;
          if (first > 0) first--;
          each(line);
          s = nl + 1;
          continue;
        }
      }
      this.refresh();
      this.bytes.set(buf.subarray(s, e), this.inPtr);
      const consumed = this.x.scan(e - s, Math.max(0, maxLine), first);
      const n = this.x.lineCount();
      this.refresh();
      this.learnStrings();
      const out = this.x.outPtr();
      const scratch = this.x.scratchPtr();
      const w = this.recBytes >> 2;
      for (let i = 0; i < n; i++) {
        const r = (out >> 2) + i * w;
        const i32 = this.i32;
        line.start = s + i32[r + R.START]!;
        line.end = s + i32[r + R.END]!;
        line.nl = s + i32[r + R.NL]!;
        // A 429 is declined: the JavaScript path reads its responseStatus.message, which tells the watch cache's
        // "(re)initializing" from API Priority and Fairness (rare lines, so the engine does not read messages).
        if (i32[r + R.STATUS] === 1 && i32[r + R.CODE] !== 429) {
          this.accepted++;
          line.missingId = i32[r + R.ID_P]! < 0;
          line.event = this.event(r, (out + i * this.recBytes) >> 3, scratch);
        } else {
          this.declined++;
          line.event = null;
          line.missingId = false;
        }
        each(line);
      }
      first = Math.max(0, first - n);
      s += consumed;
    }
  }

  /** Runs the engine over buf[from, to) without building events: what the WebAssembly alone costs (bench). */
  scanOnly(buf: Buffer, from: number, to: number): number {
    let s = from;
    let lines = 0;
    while (s < to) {
      let e = Math.min(to, s + IN_CAP);
      e = buf.lastIndexOf(10, e - 1) + 1;
      if (e <= s) break;
      this.refresh();
      this.bytes.set(buf.subarray(s, e), this.inPtr);
      s += this.x.scan(e - s, 1 << 20, 0);
      lines += this.x.lineCount();
      this.refresh();
      this.learnStrings();
    }
    return lines;
  }

  /** Decodes the strings interned by the last call. */
  private learnStrings(): void {
    const n = this.x.newsLen();
    if (n === 0) return;
    const base = this.x.newsPtr() >> 2;
    const u32 = this.i32;
    for (let i = 0; i < n; i++) {
      const id = u32[base + i * 3]!;
      const p = u32[base + i * 3 + 1]! >>> 0;
      const len = u32[base + i * 3 + 2]!;
      this.strings[id] = this.bytes.toString('utf8', p, p + len);
    }
  }

  private str(id: number): string {
    return id < 0 ? '' : this.strings[id]!;
  }

  private scratchString(scratch: number, p: number, len: number): string {
    return p < 0 ? '' : this.bytes.toString('utf8', scratch + p, scratch + p + len);
  }

  private event(r: number, f: number, scratch: number): AuditEvent {
    const i32 = this.i32;
    const S = this.strings;
    const rvClass = i32[r + R.RV_CLASS]!;
    const fs = i32[r + R.FSEL]!;
    const ls = i32[r + R.LSEL]!;
    const rvm = i32[r + R.RVM]!;
    const flags = i32[r + R.FLAGS]!;
    const query: ListQuery = {
      fieldSelector: fs < 0 ? null : S[fs]!,
      labelSelector: ls < 0 ? null : S[ls]!,
      resourceVersion: rvClass === 0 ? null : rvClass === 1 ? '0' : rvClass === 3 ? '' : this.scratchString(scratch, i32[r + R.RV_P]!, i32[r + R.RV_L]!),
      resourceVersionMatch: rvm < 0 ? null : S[rvm]!,
      limit: i32[r + R.LIMIT]!,
      continueToken: (flags & 1) !== 0,
      watch: (flags & 2) !== 0,
      sendInitialEvents: (flags & 4) !== 0,
    };
    const received = this.f64[f + (O_RECEIVED >> 3)]!;
    const stageT = this.f64[f + (O_STAGE_T >> 3)]!;
    const returned = i32[r + R.RETURNED]!;
    const remaining = this.f64[f + (O_REMAINING >> 3)]!;
    const node = i32[r + R.NODE]!;
    const code = i32[r + R.CODE]!;
    return {
      auditID: this.scratchString(scratch, i32[r + R.ID_P]!, i32[r + R.ID_L]!),
      stage: STAGES[i32[r + R.STAGE]!]!,
      level: this.str(i32[r + R.LEVEL]!),
      verb: S[i32[r + R.VERB]!]!,
      requestURI: this.scratchString(scratch, i32[r + R.URI_P]!, i32[r + R.URI_L]!),
      username: this.str(i32[r + R.USER]!),
      userAgent: this.str(i32[r + R.UA]!),
      nodeName: node < 0 ? null : S[node]!,
      resource: this.str(i32[r + R.RESOURCE]!),
      apiGroup: this.str(i32[r + R.GROUP]!),
      namespace: this.str(i32[r + R.NS]!),
      name: this.scratchString(scratch, i32[r + R.NAME_P]!, i32[r + R.NAME_L]!),
      subresource: this.str(i32[r + R.SUB]!),
      code: code < 0 ? null : code,
      receivedMs: Number.isNaN(received) ? null : received,
      stageMs: Number.isNaN(stageT) ? null : stageT,
      returnedItems: returned < 0 ? null : returned,
      remainingItems: Number.isNaN(remaining) ? null : remaining,
      tokenExpirationSeconds: null,
      leaseHolder: null,
      queryKnown: true,
      etcdLatencyMs: null,
      apfQueueWaitMs: null,
      query,
      selectorKey: (fs + 1) * 2 ** 21 + (ls + 1),
    };
  }
}

/** Gives `state` the engine when `choice` is "wasm"; returns a note for stderr when it cannot (the JavaScript
 * path then reads every line), or null. */
export function attachEngine(state: { engine: LineEngine | null }, choice: 'wasm' | 'js'): string | null {
  if (choice === 'js') return null;
  const r = loadEngine();
  state.engine = r.engine;
  return r.engine === null ? `audit-scan: the compiled engine is not available (${r.reason}); reading every line in JavaScript, which is slower` : null;
}
