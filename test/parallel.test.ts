// Results must not depend on the thread count or on where files and streams are cut (issue 3).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { run } from '../src/cli/main.js';
import { auditLine, ROOT } from './support.js';
import { mulberry32 } from '../fixtures/prng.mjs';

/** Runs the CLI in-process. With `pieces`, stdin arrives in writes of those sizes, one per event-loop turn, so
 * the reads land on other byte offsets than one whole write gives. */
async function scan(args: string[], splitBytes: number, stdin: Buffer | null = null, pieces: number[] | null = null, env: Record<string, string> = {}): Promise<string> {
  let out = '';
  const stdout = new Writable({ write: (c, _e, cb) => ((out += c), cb()) });
  const stderr = new Writable({ write: (_c, _e, cb) => cb() });
  const input = new PassThrough();
  const data = stdin ?? Buffer.alloc(0);
  if (pieces === null) {
    input.end(data);
  } else {
    void (async () => {
      for (let at = 0, k = 0; at < data.length; k++) {
        const n = pieces[k % pieces.length]!;
        input.write(data.subarray(at, at + n));
        at += n;
        await new Promise((r) => setImmediate(r));
      }
      input.end();
    })();
  }
  const code = await run(['-o', 'json', ...args], { stdin: input, stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, columns: undefined, env: { AUDIT_SCAN_MIN_SPLIT_BYTES: String(splitBytes), ...env } });
  expect(code).toBe(0);
  return out;
}

describe('threads', () => {
  it('gives byte-identical JSON on the demo with 1, 2 and 3 threads, cut every 64 KB', async () => {
    const one = await scan(['-j', '1', 'fixtures/demo'], 1 << 16);
    for (const j of ['2', '3']) {
      const other = await scan(['-j', j, 'fixtures/demo'], 1 << 16);
      expect(JSON.parse(other)).toEqual(JSON.parse(one));
      expect(other === one).toBe(true);
    }
  });

  it('gives the same counts for a gzip stream on stdin cut into chunks', async () => {
    const text = readFileSync(`${ROOT}/fixtures/demo/apiserver-b-audit.log`);
    const etcd = readFileSync(`${ROOT}/fixtures/demo/etcd-master-1.log`);
    const both = gzipSync(Buffer.concat([text.subarray(0, text.lastIndexOf(10) + 1), etcd]));
    const one = JSON.parse(await scan(['-j', '1', '-'], 1 << 15, both));
    const two = JSON.parse(await scan(['-j', '2', '-'], 1 << 15, both));
    expect(two).toEqual(one);
    expect(one.totals).toMatchObject({ etcdSlowRanges: 1300, etcdInternalRanges: 6 });
  });
});

describe('lines a container runtime split in parts (issue 15)', () => {
  // 40 events of about 20 KiB: containerd and Docker write each as a 16 KiB part and the rest, so nearly every
  // cut lands inside a split line; a cut between the parts would hand them to two workers and lose the event.
  const events = Array.from({ length: 40 }, (_, i) => auditLine({ auditID: `big-${i}`, requestURI: `/api/v1/pods?fieldSelector=spec.nodeName%3Dn${i % 7}`, user: { username: 'system:serviceaccount:vector:vector' }, userAgent: 'vector/0.34.1', requestReceivedTimestamp: `2026-11-30T12:00:${String(i).padStart(2, '0')}.000000Z`, stageTimestamp: `2026-11-30T12:00:${String(i).padStart(2, '0')}.100000Z`, annotations: { pad: 'x'.repeat(20000 + i * 37) } }));
  const PART = 16 * 1024;
  const ts = (i: number, j: number) => `2026-11-30T12:00:${String(i).padStart(2, '0')}.10000000${j}Z`;
  const cri = events.map((l, i) => `${ts(i, 0)} stdout P ${l.slice(0, PART)}\n${ts(i, 1)} stdout F ${l.slice(PART)}\n`).join('');
  const docker = events.map((l, i) => `${JSON.stringify({ log: l.slice(0, PART), stream: 'stdout', time: ts(i, 0) })}\n${JSON.stringify({ log: l.slice(PART) + '\n', stream: 'stdout', time: ts(i, 1) })}\n`).join('');
  it.each([['cri', cri], ['docker', docker]])('%s: the same report on 1, 2 and 3 threads, from a file and from stdin', async (_w, text) => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-parts-'));
    const file = join(dir, 'pod.log');
    writeFileSync(file, text);
    const one = JSON.parse(await scan(['-j', '1', file], 4096));
    expect(one.inputs[0]).toMatchObject({ lines: 80, auditEvents: 40, otherLines: 40, skippedLines: 0 });
    expect(one.totals.requests).toBe(40);
    for (const j of ['2', '3']) {
      const other = JSON.parse(await scan(['-j', j, file], 4096));
      expect(other).toEqual(one);
      const piped = JSON.parse(await scan(['-j', j, '-'], 4096, Buffer.from(text), [5000, 70001, 3]));
      // stdin and the file are different inputs, so different apiservers (issue 23): the rest is the same
      const same = (r: any) => ({ ...r, inputs: [], apiservers: null, method: { ...r.method, apiservers: null } });
      expect(same(piped)).toEqual(same(one));
      expect(piped.inputs[0]).toMatchObject({ lines: 80, auditEvents: 40, otherLines: 40, skippedLines: 0 });
    }
  });
});

describe('events without an auditID', () => {
  it('count once each, whatever the thread count: a worker does not take another worker\'s for the same request', async () => {
    // 1,000 requests seen only at RequestReceived and 1,000 only at ResponseComplete, none with an auditID, all
    // in the same second (so every final one is near its segment's start): 2,000 requests, nothing to pair.
    const lines: string[] = [];
    for (let i = 0; i < 1000; i++) {
      for (const stage of ['RequestReceived', 'ResponseComplete']) {
        const e: Record<string, unknown> = JSON.parse(auditLine({ stage, verb: 'get', requestURI: `/api/v1/namespaces/a/pods/p${i}`, objectRef: { resource: 'pods', namespace: 'a', name: `p${i}` } }));
        delete e.auditID;
        lines.push(JSON.stringify(e));
      }
    }
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-noid-'));
    const file = join(dir, 'noid.log');
    writeFileSync(file, lines.join('\n') + '\n');
    const one = JSON.parse(await scan(['-j', '1', file], 1 << 14));
    expect(one.totals).toMatchObject({ requests: 2000, getRequests: 2000 });
    for (const j of ['2', '3']) {
      const other = JSON.parse(await scan(['-j', j, file], 1 << 14));
      expect(other.totals).toEqual(one.totals);
    }
  });
});

describe('cuts between segments', () => {
  const ev = (i: number, stage: string) =>
    auditLine({ auditID: `id-${i}`, stage, verb: 'get', requestURI: `/api/v1/namespaces/a/pods/p${i}`, objectRef: { resource: 'pods', namespace: 'a', name: `p${i}` }, requestReceivedTimestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), stageTimestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000 + 5).toISOString() });
  const write = (name: string, lines: string[]): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'audit-scan-cuts-')), name);
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  };

  it('count a final event written twice once, also when a cut falls between the copies', async () => {
    // 3,000 requests, each final line written twice in a row (a shipper retrying): 3,000 requests, 3,000 copies.
    const file = write('twice.log', Array.from({ length: 3000 }, (_, i) => [ev(i, 'ResponseComplete'), ev(i, 'ResponseComplete')]).flat());
    for (const j of ['1', '2', '3']) {
      const r = JSON.parse(await scan(['-j', j, file], 1 << 14));
      expect(r.totals.requests).toBe(3000);
      expect(r.inputs[0].duplicateEvents).toBe(3000);
    }
  });

  it('drop an earlier stage logged after its final one, also across a cut', async () => {
    // Each request's ResponseComplete is followed by its RequestReceived: 2,000 requests, no open ones.
    const file = write('late-stage.log', Array.from({ length: 2000 }, (_, i) => [ev(i, 'ResponseComplete'), ev(i, 'RequestReceived')]).flat());
    for (const j of ['1', '2', '3']) {
      const r = JSON.parse(await scan(['-j', j, file], 1 << 14));
      expect(r.totals.requests).toBe(2000);
    }
  });

  it('cut a stream where its bytes say, not where its reads ended: same output for any read sizes', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => [ev(i, 'RequestReceived'), ev(i, 'ResponseComplete'), ...(i % 7 === 0 ? [ev(i, 'ResponseComplete')] : [])]).flat();
    const text = Buffer.from(lines.join('\n') + '\n');
    const one = await scan(['-j', '1', '-'], 1 << 14, text);
    expect(JSON.parse(one).totals.requests).toBe(3000);
    for (const pieces of [[4096], [1000, 17, 30000, 5], [65536, 1]]) {
      expect(await scan(['-j', '2', '-'], 1 << 14, text, pieces)).toBe(one);
    }
  });
});

describe('random logs in time order', () => {
  // Requests with and without RequestReceived, final stages logged late, final lines replayed later (a shipper's
  // retry), events without an auditID, pauses of 40 s and garbage lines; seeded. Cut every 4 KB, the answer must
  // be the same with 1, 2 and 3 threads, and from a pipe.
  function randomLog(seed: number): Buffer {
    const r = mulberry32(seed);
    const lines: string[] = [];
    const later: Array<() => string> = [];
    let t = Date.UTC(2026, 0, 1);
    const line = (id: string | null, stage: string, verb: string, i: number, received: number, at: number) => {
      const e: Record<string, unknown> = JSON.parse(
        auditLine({ auditID: id, stage, verb, requestURI: verb === 'list' ? `/api/v1/pods?fieldSelector=spec.nodeName%3Dn${i % 5}` : `/api/v1/namespaces/a/pods/p${i}`, user: { username: `system:node:n${i % 5}` }, objectRef: verb === 'list' ? { resource: 'pods' } : { resource: 'pods', namespace: 'a', name: `p${i}` }, requestReceivedTimestamp: new Date(received).toISOString(), stageTimestamp: new Date(at).toISOString() }),
      );
      if (id === null) delete e.auditID;
      if (stage === 'RequestReceived') delete e.responseStatus;
      return JSON.stringify(e);
    };
    const n = 300 + Math.floor(r() * 300);
    for (let i = 0; i < n; i++) {
      t += Math.floor(r() * (r() < 0.02 ? 40_000 : 300));
      const verb = ['list', 'get', 'watch'][Math.floor(r() * 3)]!;
      const id = r() < 0.05 ? null : `id-${i}`;
      const received = t;
      const k = r();
      if (k < 0.3) lines.push(line(id, 'RequestReceived', verb, i, received, received));
      if (k < 0.15) {
        later.push(() => line(id, 'ResponseComplete', verb, i, received, t + 6));
      } else {
        const fin = line(id, 'ResponseComplete', verb, i, received, t + 5);
        lines.push(fin);
        if (r() < 0.1) later.push(() => fin);
      }
      while (later.length > 0 && r() < 0.4) lines.push(later.splice(Math.floor(r() * later.length), 1)[0]!());
      if (r() < 0.01) lines.push('garbage {');
    }
    return Buffer.from(lines.join('\n') + '\n');
  }

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i', async (seed) => {
    const bytes = randomLog(seed);
    const file = join(mkdtempSync(join(tmpdir(), 'audit-scan-random-')), 'random.log');
    writeFileSync(file, bytes);
    const one = await scan(['-j', '1', file], 1 << 12);
    for (const j of ['2', '3']) expect(await scan(['-j', j, file], 1 << 12)).toBe(one);
    const piped = await scan(['-j', '2', '-'], 1 << 12, bytes, [3000, 77]);
    expect(piped).toBe(await scan(['-j', '1', '-'], 1 << 12, bytes));
  });
});

describe('lines over the length cap in a stream', () => {
  it('are counted as skipped without being held, as on one thread, also the last one without a newline', async () => {
    // 60 events; after every 20th, a 25,000-byte line (the cap is 10,000); the input ends in a fourth one.
    const long = (i: number) => auditLine({ auditID: `long-${i}`, userAgent: 'x'.repeat(25_000) });
    const lines: string[] = [];
    for (let i = 0; i < 60; i++) {
      lines.push(auditLine({ auditID: `e${i}` }));
      if (i % 20 === 19) lines.push(long(i));
    }
    const bytes = Buffer.from(lines.join('\n') + '\n' + long(99));
    const env = { AUDIT_SCAN_MAX_LINE_BYTES: '10000' };
    const one = await scan(['-j', '1', '-'], 1 << 12, bytes, null, env);
    const r = JSON.parse(one);
    expect(r.totals.requests).toBe(60);
    expect(r.inputs[0]).toMatchObject({ lines: 64, skippedLines: 4 });
    expect(Object.values(r.inputs[0].skipReasons as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(4);
    expect(Object.keys(r.inputs[0].skipReasons).every((k) => /^line too long \(25\d{3} bytes\)$/.test(k))).toBe(true);
    for (const pieces of [[4096], [1000, 17, 30000, 5]]) expect(await scan(['-j', '2', '-'], 1 << 12, bytes, pieces, env)).toBe(one);
  });
});

describe('ranges read into the engine\'s input (scanRange)', () => {
  it('give the single thread\'s JSON with a line longer than the input, short lines past a batch, and no last newline', async () => {
    // A range's reads go into the engine's 1 MB input and its whole lines are scanned there. Here: a 1.4 MB
    // RequestResponse list (3,000 items; longer than the input: it goes through the held line), 40,000 lines of
    // "{}" (more lines than one batch has records: the rest of the input is read from a copy), requests with
    // earlier stages around them, and a last event without its newline.
    const items = Array.from({ length: 3000 }, (_, i) => ({ metadata: { name: `p${i}`, namespace: 'default', labels: { app: 'x'.repeat(400) } } }));
    const big = auditLine({ auditID: 'big', level: 'RequestResponse', requestURI: '/api/v1/pods?limit=5000', responseObject: { kind: 'PodList', apiVersion: 'v1', metadata: {}, items } });
    expect(big.length).toBeGreaterThan(1_300_000);
    const lines: string[] = [];
    const at = (i: number) => `2026-11-30T10:00:${String(10 + Math.floor(i / 100)).padStart(2, '0')}.${String(i % 100).padStart(2, '0')}0000Z`;
    // (a user agent of its own for each request: 1 MB of new strings, so the module's memory grows during a scan
    // and the reader's view of the input is detached)
    const ua = (i: number) => `client-${i}/${'v'.repeat(240)}`;
    const pair = (i: number) => [auditLine({ auditID: `r${i}`, stage: 'RequestReceived', userAgent: ua(i), requestReceivedTimestamp: at(i), stageTimestamp: at(i) }), auditLine({ auditID: `r${i}`, userAgent: ua(i), requestReceivedTimestamp: at(i), stageTimestamp: at(i + 1) })];
    for (let i = 0; i < 1500; i++) lines.push(...pair(i));
    lines.push(big);
    for (let i = 1500; i < 3000; i++) lines.push(...pair(i));
    for (let i = 0; i < 40_000; i++) lines.push('{}');
    for (let i = 3000; i < 4000; i++) lines.push(...pair(i));
    const dir = mkdtempSync(join(tmpdir(), 'window-'));
    const f = join(dir, 'audit.log');
    writeFileSync(f, lines.join('\n') + '\n' + auditLine({ auditID: 'last', requestReceivedTimestamp: at(4000), stageTimestamp: at(4000) }));
    const one = await scan(['-j', '1', f], 1 << 16);
    const r = JSON.parse(one);
    expect(r.totals.requests).toBe(4000 + 2);
    expect(r.inputs[0].lines).toBe(2 * 4000 + 1 + 40_000 + 1);
    expect(await scan(['-j', '1', '--engine', 'js', f], 1 << 16)).toBe(one);
    for (const j of ['2', '3']) expect(await scan(['-j', j, f], 1 << 16)).toBe(one);
  }, 60_000);
});
