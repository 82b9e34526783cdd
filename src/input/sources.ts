/*! Inputs: paths, '-' (stdin) and directories (every file inside, symlink loops cut) → Source objects whose
 * bytes are read as a stream; gzip is detected by its magic bytes (1f 8b), not by the file name. */

import { closeSync, createReadStream, fstatSync, openSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { inflateOffThread, inflateThreadMin, type Recycle } from './inflate-thread.js';

/** One input to read. */
export interface Source {
  name: string;
  path: string | null; // null for stdin
  sizeBytes: number | null;
  /** the file's modification time (when a metrics dump without timestamps was taken); null for stdin */
  mtimeMs?: number | null;
}

/** A path that could not be listed or opened; reported, and the scan goes on. */
export interface SourceProblem {
  name: string;
  message: string;
}

/** Expands the command-line arguments into sources, in argument order (directory entries sorted by name).
 * `keepMissing` (--follow): a path that does not exist yet is a source to wait for, not a problem. */
export async function expandSources(args: string[], o: { keepMissing?: boolean } = {}): Promise<{ sources: Source[]; problems: SourceProblem[] }> {
  const sources: Source[] = [];
  const problems: SourceProblem[] = [];
  const seenFiles = new Set<string>();
  const walk = async (p: string, ancestors: Set<string>): Promise<void> => {
    let st;
    try {
      st = await fsp.stat(p);
    } catch (err) {
      if (o.keepMissing && (err as NodeJS.ErrnoException).code === 'ENOENT' && ancestors.size === 0) sources.push({ name: p, path: p, sizeBytes: null });
      else problems.push({ name: p, message: describeFsError(err) });
      return;
    }
    if (st.isDirectory()) {
      let real: string;
      try {
        real = await fsp.realpath(p);
      } catch (err) {
        problems.push({ name: p, message: describeFsError(err) });
        return;
      }
      if (ancestors.has(real)) {
        problems.push({ name: p, message: 'symlink loop, not followed' });
        return;
      }
      let entries: string[];
      try {
        entries = (await fsp.readdir(p)).sort();
      } catch (err) {
        problems.push({ name: p, message: describeFsError(err) });
        return;
      }
      const next = new Set(ancestors).add(real);
      for (const e of entries) await walk(join(p, e), next);
      return;
    }
    if (!st.isFile() && !st.isFIFO()) {
      problems.push({ name: p, message: 'not a regular file' });
      return;
    }
    // The same file named twice (or reached twice through links) is read once.
    const id = `${st.dev}:${st.ino}`;
    if (st.isFile() && seenFiles.has(id)) {
      problems.push({ name: p, message: 'same file as an earlier input, read once' });
      return;
    }
    seenFiles.add(id);
    sources.push({ name: p, path: p, sizeBytes: st.isFile() ? st.size : null, mtimeMs: st.isFile() ? st.mtimeMs : null });
  };
  for (const a of args) {
    if (a === '-') sources.push({ name: '(stdin)', path: null, sizeBytes: null });
    else await walk(a, new Set());
  }
  return { sources, problems };
}

/** A readable error message for fs failures, e.g. "permission denied". */
export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'symlink loop';
    case 'EIO':
      return 'input/output error while reading (EIO: the disk, the file system or the device failed)';
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
      return /header check|unknown compression/.test(e.message)
        ? `trailing data after the gzip stream (${e.message}); up to 1 MB of the lines just before it may be missing`
        : `corrupt gzip data (${e.message})`;
    default:
      return e?.message ?? String(err);
  }
}

/** A descriptor of the file at `path`, opened for reading, if it is a regular file and the one `raw` (a file
 * stream) has open: not another rotated into its place since, and not a FIFO (`<(zcat …)`), which has no offsets
 * to read at. null when it is not, or cannot be told. */
function sameFile(path: string, raw: Readable): number | null {
  const open = (raw as Readable & { fd?: unknown }).fd;
  if (typeof open !== 'number') return null;
  let fd: number | null = null;
  try {
    const was = fstatSync(open);
    // (a FIFO's path is not opened again)
    if (!was.isFile()) return null;
    fd = openSync(path, 'r');
    const now = fstatSync(fd);
    if (now.dev === was.dev && now.ino === was.ino) return fd;
  } catch {
    // read as a stream, as before
  }
  if (fd !== null) closeSync(fd);
  return null;
}

/** Opens a source's byte stream. `stdin` is used for '-'. */
export function openRaw(src: Source, stdin: Readable): Readable {
  return src.path === null ? stdin : createReadStream(src.path, { highWaterMark: 1 << 20 });
}

/** Reads chunks of `it` into `into` until it holds `atLeast` bytes (what it holds already counts); `each` sees each
 * chunk read. Returns true when the stream ended first. A read that fails throws, with what came before it in
 * `into`. */
export async function readAhead(it: AsyncIterator<Buffer>, into: Buffer[], atLeast: number, each?: (b: Buffer) => void): Promise<boolean> {
  let bytes = 0;
  for (const b of into) bytes += b.length;
  while (bytes < atLeast) {
    const n = await it.next();
    if (n.done) return true;
    into.push(n.value);
    bytes += n.value.length;
    each?.(n.value);
  }
  return false;
}

/** Yields a source's decoded bytes: gunzipped when the first two bytes are gzip's magic. Multi-member gzip works.
 * `owned`: the stream's chunks are this reader's (a file opened by openRaw), so gzip data is handed to the inflate
 * thread without a copy; a stream from elsewhere (stdin, a caller's) may hold on to its buffers. `o.recycle`: the
 * caller's promise to keep nothing of a chunk once it asks for the next (inflate-thread.ts Recycle). `o.path`: the
 * file `raw` reads from its start (openRaw): the inflate thread reads a gzip file's rest itself. */
export async function* readBytes(raw: Readable, onGzip: () => void, owned = false, threadMin = inflateThreadMin(), o: { recycle?: Recycle; path?: string } = {}): AsyncGenerator<Buffer> {
  const it = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let first = await it.next();
  // Make sure two bytes are available for the magic check.
  while (!first.done && first.value.length < 2) {
    const more = await it.next();
    if (more.done) break;
    first = { done: false, value: Buffer.concat([first.value, more.value]) };
  }
  if (first.done) return;
  const head = first.value as Buffer;
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    onGzip();
    // Read ahead to the threshold: a stream that ends before it stays on this thread. Infinity: this thread, with
    // no read-ahead (a live stream, --follow, must not wait for a megabyte).
    const lead = [head];
    const onThread = threadMin === Infinity || (await readAhead(it, lead, threadMin));
    const start = lead.length === 1 ? head : Buffer.concat(lead);
    if (!onThread) {
      const fd = o.path === undefined ? null : sameFile(o.path, raw);
      yield* inflateOffThread(start, it, owned, { recycle: o.recycle, file: fd === null ? undefined : { fd, at: start.length } });
      return;
    }
    const gunzip = createGunzip({ chunkSize: 1 << 20 });
    let fed = 0;
    const feed = async (): Promise<void> => {
      try {
        // Feed zlib in 1 MB slices, each awaited. When a stream ends in garbage, zlib fails in the call that reaches
        // it and drops that call's output: at most one output chunk (chunkSize, 1 MB of lines), whatever the slice.
        // Slices of 64 KB lost the same lines (checked on 20,000 lines and junk; test/robustness.test.ts holds the
        // bound) and made zlib wait on the main thread more often: a gzip read on one thread took 1/0.79 the time.
        const write = (buf: Buffer): Promise<void> =>
          new Promise((resolve, reject) => {
            gunzip.write(buf, (err) => (err ? reject(err) : resolve()));
          });
        const feedAll = async (buf: Buffer): Promise<void> => {
          fed += buf.length;
          for (let i = 0; i < buf.length; i += 1 << 20) await write(buf.subarray(i, Math.min(buf.length, i + (1 << 20))));
        };
        await feedAll(start);
        for (;;) {
          const n = await it.next();
          if (n.done) break;
          await feedAll(n.value);
        }
        gunzip.end();
      } catch (err) {
        gunzip.destroy(err as Error);
      }
    };
    void feed();
    for await (const chunk of gunzip) yield chunk as Buffer;
    // zlib stops at the end of the last gzip member; bytes after it (padding, garbage) are not data.
    const trailing = fed - gunzip.bytesWritten;
    if (trailing > 0) throw new Error(`${trailing} bytes of trailing data after the gzip stream were ignored`);
    return;
  }
  yield head;
  for (;;) {
    const n = await it.next();
    if (n.done) return;
    yield n.value;
  }
}
