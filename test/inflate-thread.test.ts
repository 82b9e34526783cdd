// gzip inflated on a thread of its own (src/input/inflate-thread.ts), against zlib on this thread (readBytes below
// its threshold) and zlib's one-shot gunzipSync: the same bytes, the same errors, whatever the reads.
import { describe, expect, it } from 'vitest';
import { PassThrough, Readable } from 'node:stream';
import { once } from 'node:events';
import { createReadStream, existsSync, mkdtempSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { readBytes } from '../src/input/sources.js';
import { inflateOffThread } from '../src/input/inflate-thread.js';
import { mulberry32 } from '../fixtures/prng.mjs';

/** About `mb` MB of audit-like lines that compress about 4:1 (random IDs), so a stream fills many zlib buffers. */
function lines(mb: number): Buffer {
  const rand = mulberry32(7);
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < mb << 20; i++) {
    const l = `{"auditID":"${Math.floor(rand() * 1e12).toString(36)}-${i}","verb":"list","requestURI":"/api/v1/pods?limit=${Math.floor(rand() * 500)}"}\n`;
    out.push(l);
    n += l.length;
  }
  return Buffer.from(out.join(''));
}

/** A stream of `data` in pieces of the sizes given, in turn (each a buffer of its own). */
function pieces(data: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, k = 0; at < data.length; k++) {
    const n = sizes[k % sizes.length]!;
    out.push(Buffer.from(data.subarray(at, at + n)));
    at += n;
  }
  return out;
}

/** Everything the reader yields, and the message of the error it ends with (null if none). */
async function drain(gen: AsyncGenerator<Buffer>): Promise<{ bytes: Buffer; error: string | null; code: string | null }> {
  const got: Buffer[] = [];
  try {
    for await (const b of gen) got.push(Buffer.from(b));
    return { bytes: Buffer.concat(got), error: null, code: null };
  } catch (err) {
    return { bytes: Buffer.concat(got), error: (err as Error).message, code: (err as NodeJS.ErrnoException).code ?? null };
  }
}

/** readBytes on the thread (threshold 0) and on this thread (threshold past the input). */
async function both(data: Buffer, sizes: number[]) {
  const thread = await drain(readBytes(Readable.from(pieces(data, sizes)), () => {}, false, 0));
  const here = await drain(readBytes(Readable.from(pieces(data, sizes)), () => {}, false, Number.MAX_SAFE_INTEGER));
  return { thread, here };
}

describe('gzip inflated on a thread of its own', () => {
  const text = lines(6);
  const gz = gzipSync(text);

  it.each([
    ['1 MB reads', [1 << 20]],
    ['odd reads', [1, 70001, 3, 1 << 20, 4096]],
    ['one read', [gz.length]],
  ])('gives the bytes gunzipSync gives, read in %s', async (_name, sizes) => {
    const { thread, here } = await both(gz, sizes);
    expect(thread.error).toBeNull();
    expect(thread.bytes.equals(text)).toBe(true);
    expect(here.bytes.equals(text)).toBe(true);
  });

  it('reads several members, and a member of nothing', async () => {
    const multi = Buffer.concat([gzipSync(text.subarray(0, 1_000_000)), gzipSync(Buffer.alloc(0)), gzipSync(text.subarray(1_000_000))]);
    const { thread } = await both(multi, [65536, 3]);
    expect(thread.error).toBeNull();
    expect(thread.bytes.equals(gunzipSync(multi))).toBe(true);
  });

  it("leaves the caller's buffers whole (they are copied, not transferred, unless owned)", async () => {
    const chunks = pieces(gz, [1 << 20]);
    const lengths = chunks.map((c) => c.length);
    const r = await drain(inflateOffThread(chunks[0]!, Readable.from(chunks.slice(1))[Symbol.asyncIterator](), false));
    expect(r.bytes.equals(text)).toBe(true);
    expect(chunks.map((c) => c.length)).toEqual(lengths);
  });

  it('takes owned reads without a copy, and still gives every byte', async () => {
    const chunks = pieces(gz, [1 << 20]);
    const r = await drain(inflateOffThread(chunks[0]!, Readable.from(chunks.slice(1))[Symbol.asyncIterator](), true));
    expect(r.bytes.equals(text)).toBe(true);
    // the reads of a full buffer of their own went to the worker: detached here
    expect(chunks.slice(0, -1).every((c) => c.buffer.byteLength === 0)).toBe(true);
  });

  it.each([
    ['cut in the middle', gz.subarray(0, gz.length >> 1)],
    ['followed by bytes that are not gzip', Buffer.concat([gz, Buffer.from('not gzip at all, appended by a broken rotation')])],
    ['followed by a few bytes', Buffer.concat([gz, Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0])])],
    // zlib ends the stream at the garbage, before its flush writes into its last buffer (a transfer of that buffer
    // at the end crashed the process: the flush wrote into a detached buffer)
    ['a short stream followed by bytes that are not gzip', Buffer.concat([gzipSync(text.subarray(0, 5000)), Buffer.from('\0\0GARBAGE')])],
    ['a one-line stream followed by bytes that are not gzip', Buffer.concat([gzipSync(text.subarray(0, text.indexOf(10) + 1)), Buffer.from('\0\0GARBAGE')])],
    ['corrupt in the middle', Buffer.concat([gz.subarray(0, 400_000), Buffer.alloc(5000, 0x55), gz.subarray(405_000)])],
  ])('fails as zlib on this thread does when %s: the same bytes before the same error', async (_name, data) => {
    const { thread, here } = await both(data, [1 << 20]);
    expect(thread.error).not.toBeNull();
    expect(thread.error).toBe(here.error);
    expect(thread.code).toBe(here.code);
    expect(thread.bytes.equals(here.bytes)).toBe(true);
    // what came before the error is the start of the text
    expect(text.subarray(0, thread.bytes.length).equals(thread.bytes)).toBe(true);
  });

  it('gives zlib its buffers back when the reader keeps nothing of them, and gives the same bytes', async () => {
    const big = lines(16);
    const chunks = pieces(gzipSync(big), [1 << 20]);
    const seen = { mostWaiting: 0, reused: -1 };
    const r = await drain(inflateOffThread(chunks[0]!, Readable.from(chunks.slice(1))[Symbol.asyncIterator](), false, { seen, recycle: { on: true } }));
    expect(r.error).toBeNull();
    expect(r.bytes.equals(big)).toBe(true);
    // 16 buffers put out, a few in flight at a time: zlib wrote into the ones given back
    expect(seen.reused).toBeGreaterThan(0);
    const off = { mostWaiting: 0, reused: -1 };
    const r2 = await drain(inflateOffThread(chunks[0]!, Readable.from(chunks.slice(1))[Symbol.asyncIterator](), false, { seen: off }));
    expect(r2.bytes.equals(big)).toBe(true);
    expect(off.reused).toBe(0);
  });

  it('gives back only what was read while the reader kept its promise: chunks held before it are left whole', async () => {
    const big = lines(16);
    const chunks = pieces(gzipSync(big), [1 << 20]);
    const recycle = { on: false };
    const gen = inflateOffThread(chunks[0]!, Readable.from(chunks.slice(1))[Symbol.asyncIterator](), false, { recycle });
    // held, not copied, as a reader that reads ahead holds them (scan.ts readStreamParallel)
    const held: Buffer[] = [];
    for (let i = 0; i < 3; i++) held.push((await gen.next()).value as Buffer);
    const heldCopy = Buffer.concat(held);
    recycle.on = true;
    const rest = await drain(gen);
    expect(Buffer.concat(held).equals(heldCopy)).toBe(true);
    expect(Buffer.concat([heldCopy, rest.bytes]).equals(big)).toBe(true);
  });

  it.each([
    ['cut in the middle', gz.subarray(0, gz.length >> 1)],
    ['followed by bytes that are not gzip', Buffer.concat([gz, Buffer.from('not gzip at all, appended by a broken rotation')])],
  ])('with buffers given back, fails as without when %s', async (_name, data) => {
    const given = await drain(readBytes(Readable.from(pieces(data, [1 << 20])), () => {}, false, 0, { recycle: { on: true } }));
    const { thread } = await both(data, [1 << 20]);
    expect(given.error).not.toBeNull();
    expect(given.error).toBe(thread.error);
    expect(given.bytes.equals(thread.bytes)).toBe(true);
  });

  describe('a gzip file the inflate thread reads on its own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'inflate-file-'));
    const file = join(dir, 'audit.log.gz');
    writeFileSync(file, gz);
    const openFds = (): number => readdirSync('/proc/self/fd').length;
    const fromFile = async (path: string, raw = createReadStream(path, { highWaterMark: 1 << 20 })) => {
      try {
        return await drain(readBytes(raw, () => {}, true, 0, { recycle: { on: true }, path }));
      } finally {
        raw.destroy();
      }
    };

    it('gives the bytes gunzipSync gives, and closes what it opened', async () => {
      const before = existsSync('/proc/self/fd') ? openFds() : 0;
      const r = await fromFile(file);
      expect(r.error).toBeNull();
      expect(r.bytes.equals(text)).toBe(true);
      await new Promise((res) => setTimeout(res, 50)); // the stream's own close
      if (existsSync('/proc/self/fd')) expect(openFds()).toBe(before);
    });

    it.each([
      ['cut in the middle', gz.subarray(0, gz.length >> 1)],
      ['followed by bytes that are not gzip', Buffer.concat([gz, Buffer.from('not gzip at all, appended by a broken rotation')])],
      ['corrupt in the middle', Buffer.concat([gz.subarray(0, 400_000), Buffer.alloc(5000, 0x55), gz.subarray(405_000)])],
    ])('fails as the stream does when %s', async (name, data) => {
      const bad = join(dir, `${name.replace(/ /g, '-')}.gz`);
      writeFileSync(bad, data);
      const r = await fromFile(bad);
      const { thread } = await both(data, [1 << 20]);
      expect(r.error).not.toBeNull();
      expect(r.error).toBe(thread.error);
      expect(r.code).toBe(thread.code);
      expect(r.bytes.equals(thread.bytes)).toBe(true);
    });

    it('reads the file it opened, not one rotated into its place since', async () => {
      const live = join(dir, 'live.log.gz');
      writeFileSync(live, gz);
      const raw = createReadStream(live, { highWaterMark: 1 << 20 });
      await once(raw, 'open');
      const other = join(dir, 'other.log.gz');
      writeFileSync(other, gzipSync(lines(7)));
      renameSync(other, live);
      const r = await fromFile(live, raw);
      expect(r.error).toBeNull();
      expect(r.bytes.equals(text)).toBe(true);
    });
  });

  it('holds a few MB when the scan is slow, however well the stream compresses (64 MB in 0.3 MB of gzip)', async () => {
    const line = Buffer.from(text.subarray(0, text.indexOf(10) + 1));
    const block = Buffer.concat(Array.from({ length: Math.ceil((1 << 20) / line.length) }, () => line));
    // compressed a block at a time, so that no 64 MB buffer is garbage here while memory is measured
    const z = createGzip({ level: 1 });
    const parts: Buffer[] = [];
    z.on('data', (c: Buffer) => parts.push(c));
    const finished = new Promise((r) => z.on('end', r));
    for (let i = 0; i < 64; i++) z.write(block);
    z.end();
    await finished;
    const big = Buffer.concat(parts);
    expect(big.length).toBeLessThan(1 << 20); // one write of zlib's holds it all
    const seen = { mostWaiting: 0 };
    const gen = inflateOffThread(big, Readable.from([])[Symbol.asyncIterator](), false, { seen });
    const first = await gen.next();
    expect(first.done).toBe(false);
    // a scan busy elsewhere: the worker may inflate meanwhile, but only up to its few buffers
    await new Promise((r) => setTimeout(r, 400));
    expect(seen.mostWaiting).toBeGreaterThan(0);
    expect(seen.mostWaiting).toBeLessThanOrEqual(6);
    let n = first.value!.length;
    for await (const b of { [Symbol.asyncIterator]: () => gen }) n += b.length;
    expect(n).toBe(64 * block.length);
  });

  it('with no threshold (--follow on stdin), yields what a live stream has sent, without reading ahead', async () => {
    const z = createGzip();
    const sent: Buffer[] = [];
    z.on('data', (c: Buffer) => sent.push(c));
    const first = text.subarray(0, text.indexOf(10) + 1);
    z.write(first);
    await new Promise<void>((r) => z.flush(r)); // a sync flush: the line can be inflated, the stream goes on
    const live = new PassThrough();
    live.write(Buffer.concat(sent));
    const gen = readBytes(live, () => {}, false, Infinity);
    const got = await gen.next();
    expect(got.done).toBe(false);
    expect(Buffer.from(got.value!).equals(first)).toBe(true);
    live.destroy();
    await gen.return(undefined);
  });

  it('stops the worker when the reader stops early, and the next read works', async () => {
    const gen = readBytes(Readable.from(pieces(gz, [1 << 20])), () => {}, false, 0);
    const first = await gen.next();
    expect(first.done).toBe(false);
    await gen.return(undefined);
    const again = await drain(readBytes(Readable.from(pieces(gz, [1 << 20])), () => {}, false, 0));
    expect(again.bytes.equals(text)).toBe(true);
  });
});
