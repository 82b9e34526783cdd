/*! Partial results across processes and machines (issue 24): `partial` reads its share of a list of inputs into
 * segments, exactly as worker threads do, and writes each segment's edges and the aggregates as gzip JSON Lines;
 * `merge` reconciles the segments of every part in input order and merges the aggregates, so the report is the
 * one a single scan of the whole list gives. The thread contract (SegmentResult, StateSnapshot) is the wire
 * format, through the generic codec in codec.ts. */

import { createHash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { holdsLogRequests, ScanState, type SegmentResult, type StateSnapshot, type TimeOptions } from '../aggregate/scan-state.js';
import { findCopies, fingerprintTotal, type SkipWindows } from '../aggregate/fingerprint.js';
import type { FilterSpec } from '../aggregate/filters.js';
import type { KubeVersion } from '../model/kube-version.js';
import type { Source, SourceProblem } from '../input/sources.js';
import { isMustGatherMetadata, readSourceSegment, sniffCsv, sniffDocumentMode, type InputFailure } from '../segment/source.js';
import { latestTimeBefore, lineEndAfter } from '../segment/cut.js';
import { newSegmentFeeder } from '../segment/feed.js';
import { describeFsError } from '../input/sources.js';
import { InputError, UsageError } from '../model/errors.js';
import { fromJson, toJson } from './codec.js';
import type { LineEngine } from '../decode/engine/engine.js';
import { idTailOf, tailIds } from '../decode/id-keys.js';
import { relabelSegment, relabelSnapshot } from '../aggregate/relabel.js';
import { cmp } from '../model/text-order.js';

/** The first field of a part's header line. */
export const PARTIAL_FORMAT = 'audit-scan-partial';
/** Bumped whenever what a part holds changes shape (a field of SegmentResult or StateSnapshot added, renamed or
 * read differently): a part of another format version is refused, never misread. */
export const PARTIAL_FORMAT_VERSION = 2;
/** The first field of the copies file `merge --copies` writes and `partial --skip-copies` reads. */
export const COPIES_FORMAT = 'audit-scan-copies';

/** The options that change what is counted or how the report judges it: every part must have the same. */
export interface CountingOptions {
  kubeVersion: KubeVersion | null;
  etcdVersion: string | null;
  etcdPrefix: string | null;
  objectsGiven: Array<[string, number]>;
  consistentListFromCache: boolean | null;
  watchCacheDisabled: string[];
  filter: FilterSpec;
  bucketMs: number;
  gapMs: number | null;
  syslogYear: number | null;
  maxGroups: number;
  maxLineBytes: number | null;
  /** the apiserver's own log's requests kept as evidence for audit groups (of this part or of others), not counted */
  besideAudit: boolean;
}

/** The flag each counting option comes from, for the error that names a difference. */
const FLAG_OF: Record<keyof CountingOptions, string> = {
  kubeVersion: '--kube-version',
  etcdVersion: '--etcd-version',
  etcdPrefix: '--etcd-prefix',
  objectsGiven: '--objects',
  consistentListFromCache: '--consistent-list-from-cache',
  watchCacheDisabled: '--watch-cache-disabled',
  filter: '--since/--until/--user/--verb/--resource/--namespace',
  bucketMs: '--bucket',
  gapMs: '--gap',
  syslogYear: '--syslog-year',
  maxGroups: '--max-groups',
  maxLineBytes: 'AUDIT_SCAN_MAX_LINE_BYTES',
  besideAudit: '--beside-audit',
};

/** One input of the list every part was cut from, in scan order. */
export interface UniverseInput {
  name: string;
  sizeBytes: number;
  mtimeMs: number | null;
}

/** One piece of one input a part read: the whole input, or the byte range [start, end) of a plain file. */
export interface SegmentInfo {
  input: number;
  start: number;
  end: number;
  whole: boolean;
  /** "sha256:<hex>:<bytes>" of the bytes read (the whole file for a whole input, as `load` names inputs) */
  identity: string;
  /** the piece at byte 0 only: "sha256:<hex>:<bytes>" of the input's first HEAD_BYTES. Two parts made on their own
   * whose inputs begin alike hold one log twice (or once more after it grew): merge refuses them */
  head: string | null;
}

/** The bytes of an input's head identity (SegmentInfo.head). */
export const HEAD_BYTES = 64 * 1024;

/** What copies of one log under two names leave out, as the single scan's second read leaves it out. */
export interface CopySpec {
  format: typeof COPIES_FORMAT;
  formatVersion: number;
  /** the input list it was found in (UniverseHeader.digest) */
  universe: string;
  copies: Array<{ input: number; name: string; requests: number; counted: number; of: Array<{ input: number; requests: number }>; skip: SkipWindows }>;
}

/** The first line of a part. */
export interface PartHeader {
  format: typeof PARTIAL_FORMAT;
  formatVersion: number;
  /** audit-scan's version: parts of two versions may count differently, so they do not merge */
  version: string;
  /** the arguments of the `partial` run that wrote it (merge prints them when a part must be made again) */
  command: string[];
  shard: [number, number] | null;
  nowMs: number;
  counting: CountingOptions;
  universe: { digest: string; inputs: UniverseInput[]; problems: SourceProblem[] };
  /** per-second fingerprints were kept (no --skip-copies): merge finds copies by them, across parts made apart too */
  fingerprint: boolean;
  skipCopies: CopySpec | null;
  segments: SegmentInfo[];
  failures: InputFailure[];
}

/** The counting options of a resolved scan configuration. */
export function countingOf(cfg: {
  kubeVersion: KubeVersion | null;
  etcdVersion: string | null;
  etcdPrefix: string | null;
  objectsGiven: ReadonlyMap<string, number>;
  consistentListFromCache: boolean | null;
  watchCacheDisabled: ReadonlySet<string>;
  maxGroups: number;
  maxLineBytes: number | undefined;
  time: TimeOptions;
}, besideAudit = false): CountingOptions {
  return {
    kubeVersion: cfg.kubeVersion,
    etcdVersion: cfg.etcdVersion,
    etcdPrefix: cfg.etcdPrefix,
    objectsGiven: [...cfg.objectsGiven].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    consistentListFromCache: cfg.consistentListFromCache,
    watchCacheDisabled: [...cfg.watchCacheDisabled].sort(),
    filter: cfg.time.filter,
    bucketMs: cfg.time.bucketMs,
    gapMs: cfg.time.gapMs,
    syslogYear: cfg.time.syslogYear ?? null,
    maxGroups: cfg.maxGroups,
    maxLineBytes: cfg.maxLineBytes ?? null,
    besideAudit,
  };
}

/** The input list as every part must see it: names and sizes, in order. */
export function universeOf(sources: Source[], problems: SourceProblem[]): PartHeader['universe'] {
  const inputs = sources.map((s) => {
    if (s.path === null || s.sizeBytes === null) throw new UsageError(`partial: ${s.name}: only files can be shared out (not stdin, a pipe or a device): another process must be able to read the same bytes`);
    return { name: s.name, sizeBytes: s.sizeBytes, mtimeMs: s.mtimeMs ?? null };
  });
  const digest = createHash('sha256')
    .update(JSON.stringify(inputs.map((i) => [i.name, i.sizeBytes])))
    .digest('hex');
  return { digest: `sha256:${digest}`, inputs, problems };
}

/** "i/N" → [i, N], shards numbered 1..N. */
export function parseShard(text: string): [number, number] {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const i = m === null ? NaN : Number(m[1]);
  const n = m === null ? NaN : Number(m[2]);
  if (!(n >= 1 && n <= 100_000 && i >= 1 && i <= n)) throw new UsageError(`--shard: expected i/N with 1 ≤ i ≤ N, e.g. 3/8 (got ${JSON.stringify(text)})`);
  return [i, n];
}

/** A piece a shard reads. `last`: no piece of the input follows (its segment needs no look-back tail). */
export interface Piece {
  input: number;
  start: number;
  end: number;
  whole: boolean;
  last: boolean;
}

/** The pieces of shard `shard` ([i, N]; null: everything). The inputs, laid end to end, are cut into N shares
 * of equal bytes; a plain line-mode file that a cut falls in is cut there too (just after a newline, never
 * between the parts of a line a runtime split), other inputs go whole to the share that holds their middle.
 * Every shard computes the same cuts from the same bytes, so the shares tile the list. `seed` moves the cuts
 * (tests: AUDIT_SCAN_SHARD_SEED), to put them at other bytes. */
export async function planPieces(sources: Source[], shard: [number, number] | null, seed: number | null = null): Promise<Piece[]> {
  const [mine, n] = shard ?? [1, 1];
  const sizes = sources.map((s) => s.sizeBytes ?? 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  const rand = lcg(seed ?? 0);
  const bounds: number[] = [];
  for (let k = 1; k < n; k++) bounds.push(Math.floor((total * (k + (seed === null ? 0 : rand() * 0.8 - 0.4))) / n));
  bounds.sort((a, b) => a - b);
  const shardOf = (x: number): number => {
    let k = 0;
    while (k < bounds.length && x >= bounds[k]!) k++;
    return k + 1;
  };
  const out: Piece[] = [];
  let off = 0;
  for (let j = 0; j < sources.length; j++) {
    const size = sizes[j]!;
    const inside = bounds.filter((b) => b > off && b < off + size);
    const pieces: Array<{ start: number; end: number; owner: number }> = [];
    if (inside.length > 0 && (await isSplittable(sources[j]!))) {
      const fh = await fsp.open(sources[j]!.path!, 'r');
      try {
        const starts = [0];
        for (const b of inside) starts.push(Math.max(lineEndAfter(fh.fd, b - off, size), starts[starts.length - 1]!));
        const owners = [shardOf(off), ...inside.map(shardOf)];
        for (let p = 0; p < starts.length; p++) {
          const end = p + 1 < starts.length ? starts[p + 1]! : size;
          if (end > starts[p]!) pieces.push({ start: starts[p]!, end, owner: owners[p]! });
        }
      } finally {
        await fh.close();
      }
    }
    if (pieces.length <= 1) {
      if (shardOf(off + Math.floor(size / 2)) === mine) out.push({ input: j, start: 0, end: size, whole: true, last: true });
    } else {
      pieces.forEach((p, k) => {
        if (p.owner === mine) out.push({ input: j, start: p.start, end: p.end, whole: false, last: k === pieces.length - 1 });
      });
    }
    off += size;
  }
  return out;
}

/** A small seeded generator (the cuts of tests only). */
function lcg(seed: number): () => number {
  let s = (seed >>> 0) || 1;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** true for a plain file read line by line (not gzip, a JSON document or a CSV export): the kind a scan cuts into
 * byte ranges for its threads. */
async function isSplittable(src: Source): Promise<boolean> {
  if (src.path === null || isMustGatherMetadata(src.name)) return false;
  const fh = await fsp.open(src.path, 'r').catch(() => null);
  if (fh === null) return false;
  try {
    const head = Buffer.alloc(1 << 16);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const h = head.subarray(0, bytesRead);
    return !(h[0] === 0x1f && h[1] === 0x8b) && !sniffDocumentMode(h) && sniffCsv(h) === null;
  } finally {
    await fh.close();
  }
}

/** What a `partial` run needs besides its pieces. */
export interface PartialRun {
  sources: Source[];
  universe: PartHeader['universe'];
  pieces: Piece[];
  counting: CountingOptions;
  nowMs: number;
  engine: LineEngine | null;
  skipCopies: CopySpec | null;
  shard: [number, number] | null;
  command: string[];
  version: string;
  stdin: Readable;
}

/** Reads the pieces into segments and returns the part as JSON Lines (header, one line a segment, the
 * aggregates), and the inputs that failed. */
export async function makePartial(r: PartialRun): Promise<{ lines: string[]; failures: InputFailure[] }> {
  const c = r.counting;
  // Kept for one input too: a part made on its own may be merged with others', and copies across them are found so.
  const fingerprint = r.skipCopies === null;
  const time: TimeOptions = {
    filter: c.filter,
    bucketMs: c.bucketMs,
    gapMs: c.gapMs,
    nowMs: r.nowMs,
    syslogYear: c.syslogYear,
    fingerprint,
    ...(r.skipCopies === null ? {} : { skipCopies: r.skipCopies.copies.map((x): [number, SkipWindows] => [x.input, x.skip]) }),
    ...(c.besideAudit ? { logAsEvidence: true } : {}),
  };
  const state = new ScanState(c.etcdPrefix, null, c.maxGroups, time);
  state.engine = r.engine;
  const maxLineBytes = c.maxLineBytes ?? undefined;
  const segments: SegmentInfo[] = [];
  const lines: string[] = [];
  const failures: InputFailure[] = [];
  const run = createHash('sha256').update(`${r.universe.digest}\u0000${r.nowMs}\u0000${process.pid}\u0000${JSON.stringify(r.shard)}`).digest('hex').slice(0, 12);
  for (const p of r.pieces) {
    const src = r.sources[p.input]!;
    // Keys name events without an auditID: unique across every part, those of the same list (input and offset, as
    // a worker's are) and those made apart from it (the run's own prefix).
    const key = `p${run}.${p.input}@${p.start}`;
    let result: SegmentResult;
    let identity: string;
    if (p.whole) {
      const err = await readSourceSegment(src, state, p.input, key, { stdin: r.stdin, maxLineBytes });
      result = state.endSegment(false);
      if (err !== null) failures.push({ name: src.name, message: err });
      identity = (await fileIdentity(src.path!, 0, src.sizeBytes!)) ?? 'unreadable';
    } else {
      const read = await readRange(src, state, p, key, maxLineBytes);
      result = read.result;
      identity = read.identity;
      if (result.input.error !== null) failures.push({ name: src.name, message: result.input.error });
    }
    const head = p.start === 0 ? await fileIdentity(src.path!, 0, Math.min(HEAD_BYTES, src.sizeBytes!)) : null;
    segments.push({ input: p.input, start: p.start, end: p.end, whole: p.whole, identity, head });
    // the look-back tail as its IDs, as the part format has always held it
    lines.push(JSON.stringify({ segment: segments.length - 1, result: toJson({ ...result, tail: tailIds(result.tail) }) }));
  }
  lines.push(JSON.stringify({ aggregates: toJson(state.snapshot()) }));
  const header: PartHeader = {
    format: PARTIAL_FORMAT,
    formatVersion: PARTIAL_FORMAT_VERSION,
    version: r.version,
    command: r.command,
    shard: r.shard,
    nowMs: r.nowMs,
    counting: c,
    universe: r.universe,
    fingerprint,
    skipCopies: r.skipCopies,
    segments,
    failures,
  };
  lines.unshift(JSON.stringify(toJson(header)));
  return { lines, failures };
}

/** A byte range of a plain file as one segment, as a worker reads it (parallel/worker.ts), hashing its bytes. */
async function readRange(src: Source, state: ScanState, p: Piece, key: string, maxLineBytes: number | undefined): Promise<{ result: SegmentResult; identity: string }> {
  let beforeMs: number | null = null;
  if (p.start > 0) {
    const fh = await fsp.open(src.path!, 'r');
    try {
      beforeMs = latestTimeBefore(fh.fd, p.start);
    } finally {
      await fh.close();
    }
  }
  const inp = state.beginSegment(p.input, src.name, key, beforeMs);
  inp.fileTimeMs = src.mtimeMs ?? null;
  const feed = newSegmentFeeder(state, p.start === 0, maxLineBytes);
  const h = createHash('sha256');
  let bytes = 0;
  let error: string | null = null;
  try {
    for await (const chunk of createReadStream(src.path!, { start: p.start, end: p.end - 1, highWaterMark: 1 << 20 })) {
      h.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
      feed.push(chunk as Buffer);
    }
  } catch (err) {
    error = describeFsError(err);
  }
  feed.end();
  const result = state.endSegment(!p.last);
  if (error !== null) result.input.error = error;
  return { result, identity: `sha256:${h.digest('hex')}:${bytes}` };
}

/** "sha256:<hex>:<bytes>" of [start, end) of a file (the whole file: the identity `load` gives an input). */
async function fileIdentity(path: string, start: number, end: number): Promise<string | null> {
  if (end <= start) return `sha256:${createHash('sha256').digest('hex')}:0`;
  const h = createHash('sha256');
  let n = 0;
  try {
    for await (const c of createReadStream(path, { start, end: end - 1, highWaterMark: 1 << 20 })) {
      h.update(c as Buffer);
      n += (c as Buffer).length;
    }
  } catch {
    return null;
  }
  return `sha256:${h.digest('hex')}:${n}`;
}

/** The lines of a part, one at a time (gunzipped when gzip). */
async function* partLines(path: string): AsyncGenerator<string> {
  const raw = createReadStream(path);
  const head = await new Promise<Buffer>((resolve, reject) => {
    raw.once('readable', () => {
      const b = (raw.read(2) as Buffer | null) ?? Buffer.alloc(0);
      if (b.length > 0) raw.unshift(b);
      resolve(b);
    });
    raw.once('error', reject);
  });
  const stream = head[0] === 0x1f && head[1] === 0x8b ? raw.pipe(createGunzip()) : raw;
  raw.on('error', (e) => stream.destroy(e));
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of rl) if (line.length > 0) yield line;
  } finally {
    rl.close();
    raw.destroy();
    stream.destroy();
  }
}

/** The header of a part, checked to be one. */
export async function readPartHeader(path: string): Promise<PartHeader> {
  let first: string | undefined;
  try {
    for await (const line of partLines(path)) {
      first = line;
      break;
    }
  } catch (err) {
    throw new InputError(`${path}: ${describeFsError(err)}`);
  }
  let h: PartHeader | null = null;
  try {
    h = first === undefined ? null : (fromJson(JSON.parse(first)) as PartHeader);
  } catch {
    h = null;
  }
  if (h === null || typeof h !== 'object' || h.format !== PARTIAL_FORMAT) throw new InputError(`${path}: not a partial result (write one with: audit-scan partial INPUTS… > part.json.gz)`);
  return h;
}

/** Why two parts cannot merge, or null. `a` is the first part's header. Parts of two lists of inputs merge (made
 * apart, each on its own list: mergeParts orders their inputs canonically). */
export function partDifference(a: PartHeader, b: PartHeader, version: string): string | null {
  if (b.formatVersion !== PARTIAL_FORMAT_VERSION) return `it is of partial format ${b.formatVersion}, and this audit-scan (${version}) reads format ${PARTIAL_FORMAT_VERSION}: write it again with this version`;
  if (b.version !== version) return `it was written by audit-scan ${b.version}, and this is audit-scan ${version}: parts of two versions may count differently; write every part with one version`;
  for (const k of Object.keys(FLAG_OF) as Array<keyof CountingOptions>) {
    const x = JSON.stringify(toJson(a.counting[k]));
    const y = JSON.stringify(toJson(b.counting[k]));
    if (x !== y) return `it was counted with other options: ${FLAG_OF[k]} ${describeOption(k, b.counting)} here, ${describeOption(k, a.counting)} in the first part`;
  }
  return null;
}

function describeOption(k: keyof CountingOptions, c: CountingOptions): string {
  const v = c[k];
  if (v === null || (Array.isArray(v) && v.length === 0)) return '(not given)';
  if (k === 'kubeVersion') return `${(v as KubeVersion).major}.${(v as KubeVersion).minor}`;
  if (k === 'bucketMs' || k === 'gapMs') return `${(v as number) / 1000}s`;
  return JSON.stringify(v);
}

/** What merge found besides the state: notes for stderr, the failures and problems to report. */
export interface MergeOutcome {
  state: ScanState;
  header: PartHeader;
  /** the merged list of inputs, in the order reported: one list's own, or the canonical order of several */
  universe: PartHeader['universe'];
  /** the parts came from several lists of inputs, made apart */
  independent: boolean;
  notes: string[];
  failures: InputFailure[];
  problems: SourceProblem[];
  /** copies found and not left out (their requests count twice): what `merge --copies` writes */
  copies: CopySpec | null;
  /** the copies the parts left out (partial --skip-copies), or null */
  spec: CopySpec | null;
  /** path → header of each part merged (a repeated part left out) */
  holders: Map<string, PartHeader>;
}

/** The parts cut from one list of inputs (the shards of one --manifest, or a part made on its own) and its pieces
 * in input order. */
interface PartList {
  universe: PartHeader['universe'];
  pieces: Array<{ part: number; info: SegmentInfo }>;
}

/** One input of the merged list: where it comes from and what orders it. */
interface MergedInput {
  list: number;
  local: number;
  name: string;
  sizeBytes: number;
  mtimeMs: number | null;
  /** its identity: the SHA-256 of its bytes when one piece holds it whole (as `load` names an input, as
   * `sha256sum` prints it), else the SHA-256 of its pieces' identities */
  key: string;
  head: string | null;
}

/** The pieces of one list's parts, checked: the same piece twice is read once (a part given twice, a shard run
 * twice); any other overlap, or a byte range no part holds, is an error that names the input. */
function piecesOfList(ks: number[], headers: PartHeader[], paths: string[], keep: boolean[], notes: string[]): PartList {
  const universe = headers[ks[0]!]!.universe;
  const byKey = new Map<string, { part: number; info: SegmentInfo }>();
  // Parts made with --skip-copies are visited first, so of a shard made twice, once with it, that one is kept. (An
  // unsharded input made into two parts is refused below, with --skip-copies or without.)
  const visit = [...ks].sort((a, b) => Number(headers[a]!.skipCopies === null) - Number(headers[b]!.skipCopies === null) || a - b);
  for (const k of visit) {
    const h = headers[k]!;
    let repeated = 0;
    let other = -1;
    for (const s of h.segments) {
      const had = byKey.get(`${s.input}:${s.start}:${s.end}`);
      if (had === undefined) continue;
      if (had.info.identity !== s.identity) throw new InputError(`merge: ${paths[k]}: ${universe.inputs[s.input]!.name}: bytes ${s.start}–${s.end} differ from ${paths[had.part]}'s (${s.identity} there ${had.info.identity}): the file changed between the runs`);
      repeated++;
      other = had.part;
    }
    if (repeated > 0 && repeated < h.segments.length) throw new InputError(`merge: ${paths[k]}: shares some but not all of its pieces with another part: give parts of one --shard i/N split`);
    if (repeated > 0 && h.shard === null) {
      throw new UsageError(`merge: ${paths[k]} and ${paths[other]} hold the same input${h.segments.length > 1 ? 's' : ''} (${h.universe.inputs.map((i) => i.name).join(', ')}; the same bytes, SHA-256): one input made into a part twice would count its requests twice. Give each input's part once`);
    }
    if (repeated > 0) {
      // a shard run twice (a Job pod retried): the same bytes, read once
      keep[k] = false;
      notes.push(`audit-scan: merge: ${paths[k]} holds the same pieces as ${paths[other]} (same bytes, SHA-256): counted once, from ${paths[other]}`);
      continue;
    }
    for (const s of h.segments) byKey.set(`${s.input}:${s.start}:${s.end}`, { part: k, info: s });
  }
  const pieces = [...byKey.values()].sort((a, b) => a.info.input - b.info.input || a.info.start - b.info.start);
  universe.inputs.forEach((inp, j) => {
    let at = 0;
    for (const { info, part } of pieces.filter((x) => x.info.input === j)) {
      if (info.start !== at) throw new InputError(`merge: ${inp.name}: ${info.start > at ? `bytes ${at}–${info.start} are in no part` : `${paths[part]} reads bytes ${info.start}–${info.end} that another part read too`}: give every shard of one --shard i/N split`);
      at = info.end;
    }
    if (at !== inp.sizeBytes || (inp.sizeBytes === 0 && !pieces.some((x) => x.info.input === j))) {
      const shard = headers[ks[0]!]!.shard;
      // a shard whose files changed before another shard ran sees another list: its part stands alone, and short
      throw new InputError(`merge: ${inp.name}: ${at === 0 ? 'in no part' : `bytes ${at}–${inp.sizeBytes} are in no part`} (${universe.inputs.length} inputs in the list; ${shard === null ? '' : `parts of ${shard[1]} shards: `}is a shard's part missing?${shard === null ? '' : ' Or did the files change between the shards\' runs? Every shard of one split must see the same files'})`);
    }
  });
  return { universe, pieces };
}


/** The inputs of every list, each list's in its own order; for several lists (parts made apart), in the canonical
 * order: by identity (MergedInput.key), then name. One log in two lists (inputs that begin with the same bytes) is
 * refused: counted from both, its requests would count twice. */
function mergedInputs(lists: PartList[], paths: string[]): MergedInput[] {
  const out = lists.flatMap((l, li) =>
    l.universe.inputs.map((inp, j): MergedInput => {
      const ps = l.pieces.filter((x) => x.info.input === j);
      const whole = ps.length === 1 && ps[0]!.info.whole;
      const key = whole ? ps[0]!.info.identity : `sha256-pieces:${createHash('sha256').update(ps.map((x) => x.info.identity).join(',')).digest('hex')}:${inp.sizeBytes}`;
      return { list: li, local: j, name: inp.name, sizeBytes: inp.sizeBytes, mtimeMs: inp.mtimeMs, key, head: ps.find((x) => x.info.start === 0)?.info.head ?? null };
    }),
  );
  if (lists.length === 1) return out;
  const partOf = (m: MergedInput): string => paths[lists[m.list]!.pieces.find((x) => x.info.input === m.local)!.part]!;
  const seen = new Map<string, MergedInput>();
  for (const m of out) {
    if (m.sizeBytes === 0 || m.head === null) continue;
    const had = seen.get(m.head);
    if (had !== undefined && had.list !== m.list) {
      const what = had.key === m.key ? 'are the same bytes' : `begin with the same ${Math.min(HEAD_BYTES, m.sizeBytes, had.sizeBytes)} bytes`;
      throw new UsageError(`merge: ${partOf(m)} and ${partOf(had)} hold one log twice: ${m.name} there and ${had.name} here ${what} (${m.head}): the same log read twice, or read again after it grew; its requests would count twice. Merge one part of each log`);
    }
    seen.set(m.head, m);
  }
  return out.sort((a, b) => cmp(a.key, b.key) || cmp(a.name, b.name) || a.list - b.list || a.local - b.local);
}

/** Merges parts into one state, as one scan of their whole input list: checks them, orders their segments,
 * reconciles them in input order and merges the aggregates, then ends the scan (finishPending). Parts of one list
 * (the shards of one --manifest) keep its order; parts made apart, each on its own inputs (each apiserver node its
 * own log), merge in any order into the canonical order of mergedInputs, their input indices renumbered
 * (relabel.ts). One part is read at a time: memory grows with the groups and the requests open at the cuts, not
 * with the requests; a segment read before its turn (a part whose inputs the canonical order interleaves with
 * another's) waits, and holds only its edges. */
export async function mergeParts(paths: string[], version: string, engine: LineEngine | null = null): Promise<MergeOutcome> {
  if (paths.length === 0) throw new UsageError('merge: no parts given (audit-scan merge part-*.json.gz)');
  const headers: PartHeader[] = [];
  for (const p of paths) headers.push(await readPartHeader(p));
  const first = headers[0]!;
  const firstDiff = partDifference(first, first, version);
  if (firstDiff !== null) throw new UsageError(`merge: ${paths[0]}: ${firstDiff}`);
  for (let k = 1; k < headers.length; k++) {
    const d = partDifference(first, headers[k]!, version);
    if (d !== null) throw new UsageError(`merge: ${paths[k]}: ${d}`);
  }
  const notes: string[] = [];
  const keep: boolean[] = headers.map(() => true);
  // The shards of one split share its list (names and sizes). A part made whole, on its own, is a list of its own
  // by its bytes too: two apiserver nodes' logs at the same path may have the same size.
  const byList = new Map<string, number[]>();
  headers.forEach((h, k) => {
    const key = h.shard === null ? `${h.universe.digest}\u0000${h.segments.map((x) => x.identity).join(',')}` : h.universe.digest;
    byList.set(key, [...(byList.get(key) ?? []), k]);
  });
  const lists = [...byList.values()].map((ks) => piecesOfList(ks, headers, paths, keep, notes));
  const independent = lists.length > 1;
  if (independent) {
    notes.push(`audit-scan: merge: ${lists.length} lists of inputs, made apart: their inputs are merged in canonical order, by the SHA-256 of each one's bytes (docs/scale-out.md)`);
    const skipping = headers.findIndex((h, k) => keep[k] && h.skipCopies !== null);
    if (skipping >= 0) throw new UsageError(`merge: ${paths[skipping]}: made with --skip-copies, which leaves out copies found among one list's inputs; parts of several lists merge only without it`);
  }
  const inputs = mergedInputs(lists, paths);
  const globalOf = lists.map(() => new Map<number, number>());
  inputs.forEach((m, g) => globalOf[m.list]!.set(m.local, g));
  const listOfPart = new Map<number, number>();
  lists.forEach((l, li) => l.pieces.forEach((x) => listOfPart.set(x.part, li)));
  const listed = inputs.map((m) => ({ name: m.name, sizeBytes: m.sizeBytes, mtimeMs: m.mtimeMs }));
  const problems = [...new Map(lists.flatMap((l) => l.universe.problems).map((pr): [string, SourceProblem] => [JSON.stringify(pr), pr])).values()];
  const universe: PartHeader['universe'] = independent
    ? { digest: `sha256:${createHash('sha256').update(JSON.stringify(listed.map((i) => [i.name, i.sizeBytes]))).digest('hex')}`, inputs: listed, problems }
    : first.universe;
  // Copies left out by --skip-copies: every part holding a copy's bytes must have left them out the same way.
  const spec = headers.find((h, k) => keep[k] && h.skipCopies !== null)?.skipCopies ?? null;
  if (spec !== null) {
    const specText = JSON.stringify(toJson(spec));
    const affected = new Set(spec.copies.map((c) => c.input));
    headers.forEach((h, k) => {
      if (!keep[k]) return;
      if (h.skipCopies !== null && JSON.stringify(toJson(h.skipCopies)) !== specText) throw new UsageError(`merge: ${paths[k]}: made with another --skip-copies file than the other parts`);
      const holds = h.segments.find((s) => affected.has(s.input));
      if (h.skipCopies === null && holds !== undefined) throw new UsageError(`merge: ${paths[k]}: holds ${universe.inputs[holds.input]!.name}, a copy the other parts leave out; make it again with --skip-copies: ${commandOf(h, '<copies.json>', paths[k]!)}`);
    });
  }
  const time: TimeOptions = {
    filter: first.counting.filter,
    bucketMs: first.counting.bucketMs,
    gapMs: first.counting.gapMs,
    nowMs: first.nowMs,
    syslogYear: first.counting.syslogYear,
    fingerprint: spec === null && universe.inputs.length > 1,
    ...(spec === null ? {} : { skipCopies: spec.copies.map((x): [number, SkipWindows] => [x.input, x.skip]) }),
    ...(first.counting.besideAudit ? { logAsEvidence: true } : {}),
  };
  const state = new ScanState(first.counting.etcdPrefix, null, first.counting.maxGroups, time);
  state.engine = engine;
  for (const inp of universe.inputs) state.addInput(inp.name);
  // Every piece's turn: input order in the merged list, then bytes.
  const turns = lists.flatMap((l, li) => l.pieces.map((x) => ({ ...x, input: globalOf[li]!.get(x.info.input)! }))).sort((a, b) => a.input - b.input || a.info.start - b.info.start);
  const turnOf = new Map<SegmentInfo, number>(turns.map((x, i) => [x.info, i]));
  // Parts in the order of their first piece's turn: the parts of one list are contiguous runs of it (a shard is a
  // share of bytes laid end to end), and so is a part made apart, unless the canonical order interleaves its inputs.
  const firstTurn = (k: number): number => Math.min(...headers[k]!.segments.map((s) => turnOf.get(s)!));
  const order = headers.map((_, k) => k).filter((k) => keep[k] && headers[k]!.segments.length > 0);
  order.sort((a, b) => firstTurn(a) - firstTurn(b));
  let next = 0;
  const waiting = new Map<number, SegmentResult>();
  const reconcileDue = (): void => {
    for (let r = waiting.get(next); r !== undefined; r = waiting.get(next)) {
      waiting.delete(next++);
      state.reconcile(r);
    }
  };
  for (const k of order) {
    const map = globalOf[listOfPart.get(k)!]!;
    const to = (i: number): number => map.get(i)!;
    for await (const line of partLines(paths[k]!)) {
      const v = fromJson(JSON.parse(line)) as { segment?: number; result?: SegmentResult; aggregates?: StateSnapshot; format?: string };
      if (v.format !== undefined) continue;
      if (v.result !== undefined) {
        const turn = turnOf.get(headers[k]!.segments[v.segment!]!);
        if (turn === undefined) throw new InputError(`merge: ${paths[k]}: a piece its header does not list (segment ${v.segment}): is the part damaged?`);
        const r = { ...v.result, tail: idTailOf(v.result.tail as unknown as string[]) };
        waiting.set(turn, independent ? relabelSegment(r, to) : r);
        reconcileDue();
      } else if (v.aggregates !== undefined) {
        state.mergeSnapshot(independent ? relabelSnapshot(v.aggregates, to) : v.aggregates);
      }
    }
  }
  if (next !== turns.length) throw new InputError(`merge: a part ended before its last piece (${next} of ${turns.length} pieces read): is a part cut short?`);
  // One scan of audit and the apiserver's own log counts the log's requests as evidence for the audit's groups,
  // never twice (scan.ts reads them again so); a part cannot know what the others hold, so it is told.
  const audit = state.inputs.some((i) => i.auditEvents > 0);
  const logs = state.inputs.filter(holdsLogRequests).map((i) => i.name);
  if (!first.counting.besideAudit && audit && logs.length > 0) {
    throw new UsageError(`merge: the parts hold audit events and the apiserver's own log (${logs.join(', ')}), whose requests they counted: one scan keeps the log's requests as evidence for the audit's groups, never counting them twice. Make every part again with partial --beside-audit`);
  }
  if (first.counting.besideAudit && !audit && logs.length > 0) {
    throw new UsageError(`merge: the parts were made with --beside-audit, but none holds audit events: the apiserver log's requests (${logs.join(', ')}) were kept as evidence only. Make them again without --beside-audit`);
  }
  state.finishPending();
  const failures = headers.filter((_, k) => keep[k]).flatMap((h) => h.failures);
  let copies: CopySpec | null = null;
  if (spec === null && time.fingerprint === true) {
    const found = findCopies(state.inputs.map((i) => i.fingerprint));
    if (found.size > 0) {
      copies = { format: COPIES_FORMAT, formatVersion: PARTIAL_FORMAT_VERSION, universe: universe.digest, copies: [] };
      for (const [j, c] of found) copies.copies.push({ input: j, name: universe.inputs[j]!.name, requests: c.requests, counted: fingerprintTotal(state.inputs[j]!.fingerprint), of: c.of, skip: c.skip });
    }
  }
  const holders = new Map(paths.map((p, k): [string, PartHeader] => [p, headers[k]!]).filter((_, k) => keep[k]));
  return { state, header: first, universe, independent, notes, failures, problems, copies, spec, holders };
}

/** The `partial` command that made part `h` again, leaving out what `copiesFile` says. */
export function commandOf(h: PartHeader, copiesFile: string, partPath: string): string {
  const args = h.command.filter((_, i, a) => a[i] !== '--skip-copies' && a[i - 1] !== '--skip-copies');
  return ['audit-scan', 'partial', '--skip-copies', copiesFile, ...args].map(shellQuote).join(' ') + ` > ${shellQuote(partPath)}`;
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Reads a copies file (`merge --copies` wrote it) for the input list `universe`. */
export async function readCopySpec(path: string, universe: string): Promise<CopySpec> {
  let spec: CopySpec;
  try {
    spec = fromJson(JSON.parse(await fsp.readFile(path, 'utf8'))) as CopySpec;
  } catch (err) {
    throw new InputError(`--skip-copies: ${path}: ${describeFsError(err)}`);
  }
  if (spec === null || typeof spec !== 'object' || spec.format !== COPIES_FORMAT) throw new InputError(`--skip-copies: ${path}: not a copies file (audit-scan merge --copies PARTS… > copies.json writes one)`);
  if (spec.formatVersion !== PARTIAL_FORMAT_VERSION) throw new InputError(`--skip-copies: ${path}: of format ${spec.formatVersion}; this audit-scan reads ${PARTIAL_FORMAT_VERSION}`);
  if (spec.universe !== universe) throw new InputError(`--skip-copies: ${path}: found in another list of inputs than this one`);
  return spec;
}
