// The auditID dedup in the engine's module (src/decode/engine/assembly/dedup.ts) against a model of the rule
// admit() keeps in JavaScript (aggregate/dedup.ts): a Set and a ring of the last final-stage IDs, the open requests.
// Small rings (so that IDs fall out of them all the time), several states at once, IDs of every kind of string,
// and at the end nothing left held. A scan past the real ring (65,536 IDs) checks the same with figures worked by
// hand.
import { describe, expect, it } from 'vitest';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEDUP_DROP, DEDUP_HOLD, DEDUP_NEW, DEDUP_WAS_PENDING, LineEngine, loadEngine } from '../src/decode/engine/engine.js';
import { auditLine, spawnCli } from './support.js';
import { ScanState } from '../src/aggregate/scan-state.js';
import { newSegmentFeeder } from '../src/segment/feed.js';
import { fingerprintHash } from '../src/aggregate/fingerprint.js';
import { mulberry32 } from '../fixtures/prng.mjs';
import { keyHash, tailIds } from '../src/decode/id-keys.js';

/** The rule, as admit() has it (aggregate/dedup.ts), for one segment. */
class Model {
  recent = new Set<string>();
  ring: string[] = [];
  pending = new Set<string>();
  constructor(private readonly cap: number) {}
  admit(id: string, terminal: boolean): number {
    if (this.recent.has(id)) return DEDUP_DROP;
    if (!terminal) {
      this.pending.add(id);
      return DEDUP_HOLD;
    }
    this.ring.push(id);
    this.recent.add(id);
    if (this.ring.length > this.cap) this.recent.delete(this.ring.shift()!);
    return this.pending.delete(id) ? DEDUP_WAS_PENDING : DEDUP_NEW;
  }
  forget(id: string): void {
    this.pending.delete(id);
  }
}

function freshEngine(): LineEngine {
  const r = loadEngine();
  if (r.engine === null) throw new Error(r.reason);
  return r.engine;
}

/** A deterministic generator (LCG). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

// IDs that must stay apart: a lone surrogate and U+FFFD (which UTF-8 would make the same bytes), an empty ID, IDs
// sharing a long prefix, every size class up to a few KB, escapes' results, non-ASCII.
const SPECIAL = ['', '\ud800x', '\ufffdx', '\udc00', '\ufffd', 'é', 'e\u0301', '😀', '\ud83d', 'a'.repeat(16), 'a'.repeat(17), 'a'.repeat(4097), 'a'.repeat(4096) + 'b', '"\\\n', '\u0000', 'Ω'.repeat(40)];

function idPool(r: () => number, n: number): string[] {
  const ids = [...SPECIAL];
  for (let i = 0; ids.length < n; i++) {
    const k = Math.floor(r() * 4);
    ids.push(k === 0 ? `${(i * 2654435761) % 4294967296}`.padStart(8, '0') + '-0000-4000-8000-00000000000' + (i % 10) : k === 1 ? `id-${i}` : k === 2 ? `${'x'.repeat(Math.floor(r() * 300))}${i}` : `ñ${i}`);
  }
  return ids;
}

describe('the engine module dedup (assembly/dedup.ts)', () => {
  it.each([1, 2, 3, 5, 64])('gives admit()\'s verdicts, tails and forgets, ring of %i, three states at once', (cap) => {
    const eng = freshEngine();
    const r = rng(cap * 7919);
    const ids = idPool(r, 300);
    const states = [0, 1, 2].map(() => ({ s: eng.dedupOpen(cap), m: new Model(cap) }));
    let verdicts = [0, 0, 0, 0];
    for (let step = 0; step < 20000; step++) {
      const k = Math.floor(r() * states.length);
      const st = states[k]!;
      const id = ids[Math.floor(r() * ids.length)]!;
      const op = r();
      if (op < 0.04) {
        st.m.forget(id);
        eng.dedupForget(st.s, id);
      } else if (op < 0.045) {
        // a segment ends: its tail, then a new state (the module reuses the closed one)
        expect(tailIds(eng.dedupTail(st.s))).toEqual(st.m.ring);
        eng.dedupClose(st.s);
        states[k] = { s: eng.dedupOpen(cap), m: new Model(cap) };
      } else {
        const terminal = op < 0.7;
        const want = st.m.admit(id, terminal);
        const got = eng.dedupString(st.s, id, terminal);
        if (got !== want) throw new Error(`step ${step}: ${JSON.stringify(id)} terminal=${terminal}: got ${got}, want ${want}`);
        verdicts[got]!++;
      }
    }
    // every verdict came up, so each branch was held to the model
    expect(verdicts.every((n) => n > 50)).toBe(true);
    for (const st of states) {
      expect(tailIds(eng.dedupTail(st.s))).toEqual(st.m.ring);
      eng.dedupClose(st.s);
    }
    expect(eng.dedupLive()).toBe(0);
    verdicts = [0, 0, 0, 0];
  });

  it('hashes a tail\'s keys as the look-back does (id-keys.ts keyHash), long, short, empty and non-UTF-8 keys', () => {
    const eng = freshEngine();
    const s = eng.dedupOpen(64);
    const ids = ['', 'a', 'ñ', '\ud800x', 'x'.repeat(47), 'x'.repeat(48), 'x'.repeat(49), 'x'.repeat(300), '5f1c2d3e-0000-4000-8000-000000000001'];
    for (const id of ids) expect(eng.dedupString(s, id, true)).toBe(DEDUP_NEW);
    const t = eng.dedupTail(s);
    expect(tailIds(t)).toEqual(ids);
    const want = ids.map((_, i) => keyHash(t.bytes, i === 0 ? 0 : t.ends[i - 1]!, t.ends[i]!));
    expect([...t.hashes!]).toEqual(want);
    expect(new Set(want).size).toBe(ids.length);
    eng.dedupClose(s);
  });

  it('keeps a lone surrogate and U+FFFD apart, and gives both back in the tail as they were', () => {
    const eng = freshEngine();
    const s = eng.dedupOpen(8);
    expect(eng.dedupString(s, '\ud800x', true)).toBe(DEDUP_NEW);
    expect(eng.dedupString(s, '\ufffdx', true)).toBe(DEDUP_NEW);
    expect(eng.dedupString(s, '\ud800x', true)).toBe(DEDUP_DROP);
    expect(tailIds(eng.dedupTail(s))).toEqual(['\ud800x', '\ufffdx']);
    eng.dedupClose(s);
    expect(eng.dedupLive()).toBe(0);
  });

  it('grows its table and pool past their first sizes and gives everything back', () => {
    const eng = freshEngine();
    const s = eng.dedupOpen(50000);
    for (let i = 0; i < 60000; i++) expect(eng.dedupString(s, `id-${i}`, i % 3 !== 0)).toBe(i % 3 !== 0 ? DEDUP_NEW : DEDUP_HOLD);
    // 40,000 final (all in the ring), 20,000 open
    expect(eng.dedupLive()).toBe(60000);
    for (let i = 0; i < 60000; i += 3) expect(eng.dedupString(s, `id-${i}`, true)).toBe(DEDUP_WAS_PENDING);
    // 60,000 final through a ring of 50,000: the first 10,000 of them (id-1, id-2, id-4, …) are forgotten
    expect(eng.dedupLive()).toBe(50000);
    const tail = tailIds(eng.dedupTail(s));
    expect(tail.length).toBe(50000);
    expect(tail[49999]).toBe('id-59997');
    expect(eng.dedupString(s, 'id-1', true)).toBe(DEDUP_NEW);
    expect(eng.dedupString(s, 'id-59997', true)).toBe(DEDUP_DROP);
    eng.dedupClose(s);
    expect(eng.dedupLive()).toBe(0);
  });

  // The table is made for a full ring and 4,096 open requests (131,072 slots for a ring of 65,536, grown at three
  // quarters full): open requests past that make it grow, with the ring full.
  it('grows its table when open requests go past what it was made for', () => {
    const eng = freshEngine();
    const s = eng.dedupOpen(65536);
    // odd IDs final, even ones open: 60,000 of each, none forgotten yet (the ring holds 65,536)
    for (let i = 0; i < 120000; i++) expect(eng.dedupString(s, `id-${i}`, i % 2 === 1)).toBe(i % 2 === 1 ? DEDUP_NEW : DEDUP_HOLD);
    expect(eng.dedupLive()).toBe(120000);
    for (let i = 0; i < 120000; i += 2) expect(eng.dedupString(s, `id-${i}`, i % 4 === 0)).toBe(i % 4 === 0 ? DEDUP_WAS_PENDING : DEDUP_HOLD);
    // 30,000 of the open ones final: 90,000 final through the ring, the first 24,464 final (odd IDs up to id-48927)
    // forgotten; 30,000 still open
    expect(eng.dedupLive()).toBe(65536 + 30000);
    expect(eng.dedupString(s, 'id-48927', true)).toBe(DEDUP_NEW); // forgotten: counted again (and the oldest, id-48929, goes)
    expect(eng.dedupString(s, 'id-48931', true)).toBe(DEDUP_DROP);
    expect(eng.dedupString(s, 'id-2', false)).toBe(DEDUP_HOLD); // still open
    expect(eng.dedupString(s, 'id-2', true)).toBe(DEDUP_WAS_PENDING);
    eng.dedupClose(s);
    expect(eng.dedupLive()).toBe(0);
  });
});

describe('dedup across the 65,536-ID ring of a scan', () => {
  it('drops a copy inside the ring, counts one outside it again, on every path', async () => {
    // 70,000 requests with their own IDs, 2,000 a second; then a copy of request 69,000 (inside the last 65,536: a
    // duplicate) and of request 4,000 (fallen out of the ring, which holds 4,464 to 69,999: counted again). Not of
    // request 0: the requests of the segment's first second are its head, held by ID for reconcile(), where a
    // copy replaces the first. By hand: 70,001 requests, 1 duplicate. (Cut in two by -j 2, the copy of 4,000 looks
    // old to the second part and is checked against the first part's last 65,536 IDs, which hold it: 70,000 and 2.
    // That predates the module's dedup, and both dedups give it.)
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-dedup-'));
    const line = (i: number): string =>
      auditLine({ auditID: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, requestURI: '/api/v1/namespaces/default/configmaps/c', verb: 'get', objectRef: { resource: 'configmaps', namespace: 'default', name: 'c', apiVersion: 'v1' }, requestReceivedTimestamp: `2026-11-30T10:00:${String(Math.floor(i / 2000)).padStart(2, '0')}.000000Z`, stageTimestamp: `2026-11-30T10:00:${String(Math.floor(i / 2000)).padStart(2, '0')}.001000Z` });
    const lines: string[] = [];
    for (let i = 0; i < 70000; i++) lines.push(line(i));
    lines.push(line(69000), line(4000));
    const f = join(dir, 'ring.log');
    writeFileSync(f, lines.join('\n') + '\n');
    const outs: string[] = [];
    for (const [args, env] of [
      [['-j', '1'], {}],
      [['-j', '1'], { AUDIT_SCAN_DEDUP: 'js' }],
      [['-j', '1', '--engine', 'js'], {}],
    ] as Array<[string[], Record<string, string>]>) {
      const r = await spawnCli(['-o', 'json', ...args, f], null, { env });
      expect(r.code).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.inputs[0].duplicateEvents).toBe(1);
      expect(j.totals.requests).toBe(70001);
      outs.push(r.stdout);
    }
    expect(outs[1]).toBe(outs[0]);
    expect(outs[2]).toBe(outs[0]);
  }, 120_000);
});

// The lines the module admits on its own (assembly/engine.ts admitFast) and where it stops for the state.
describe('lines admitted in the module (admitFast)', () => {
  const ev = (id: string, stage: string, recv: string, st = recv): string =>
    auditLine({ auditID: id, stage, requestReceivedTimestamp: `2026-11-30T10:00:${recv}Z`, stageTimestamp: `2026-11-30T10:00:${st}Z` });

  /** One segment of `lines` through the engine, as a scan reads it; its result and the state. */
  function segment(lines: string[]) {
    const st = new ScanState('/registry');
    st.engine = loadEngine().engine;
    st.beginInput('x');
    const feed = newSegmentFeeder(st, true, undefined);
    feed.push(Buffer.from(lines.join('\n') + '\n'));
    feed.end();
    const r = st.endSegment();
    st.reconcile(r);
    st.finishPending();
    return { st, r };
  }

  it('admits a final event whose earlier stage the state holds, and the state drops that one: 3 requests, not 4', () => {
    // b's RequestReceived is held in the module's run (listed for the state, which holds its event); its
    // ResponseComplete, past the head, is admitted in the same run and listed after it (LineEngine.fastOpenAt)
    const { st, r } = segment([ev('a', 'ResponseComplete', '00.000000'), ev('b', 'RequestReceived', '05.000000'), ev('b', 'ResponseComplete', '05.000000'), ev('c', 'ResponseComplete', '06.000000')]);
    expect(r.leftovers.size).toBe(0);
    expect(r.input.duplicateEvents).toBe(0); // an earlier stage is not a final event's copy
    expect(st.counters.requests).toBe(3);
  });

  it('holds the later of two earlier stages, and drops one logged after its final stage, as the state does', () => {
    // b: RequestReceived then ResponseStarted, no final stage: one open request, held as its ResponseStarted.
    // c's RequestReceived comes after c's ResponseComplete: dropped, not held
    const { st, r } = segment([ev('a', 'ResponseComplete', '00.000000'), ev('b', 'RequestReceived', '05.000000'), ev('c', 'ResponseComplete', '05.500000'), ev('b', 'ResponseStarted', '05.000000', '06.000000'), ev('c', 'RequestReceived', '05.500000')]);
    expect([...r.leftovers.keys()]).toEqual(['b']);
    expect(r.leftovers.get('b')!.stage).toBe('ResponseStarted');
    expect(r.leftovers.get('b')!.stageMs).toBe(Date.UTC(2026, 10, 30, 10, 0, 6));
    expect(st.counters.requests).toBe(3); // a, c, and b counted open at the end
  });

  it('leaves out of the list a request held and completed in one run, and keeps the order of the requests held before', () => {
    // Run 1 holds d and g; the declined line ends it. Run 2: b's three stages (struck out, never the state's), d's
    // ResponseStarted (held before this run: the state moves it last) and its final stage (the state drops it), e
    // held, g's ResponseStarted (moved last), f's two stages (struck out), c. Open at the end: e, then g.
    const { st, r } = segment([
      ev('a', 'ResponseComplete', '00.000000'),
      ev('d', 'RequestReceived', '05.000000'),
      ev('g', 'RequestReceived', '05.000000'),
      'not an audit line',
      ev('b', 'RequestReceived', '05.000000'),
      ev('b', 'ResponseStarted', '05.000000', '06.000000'),
      ev('b', 'ResponseComplete', '05.000000', '07.000000'),
      ev('d', 'ResponseStarted', '05.000000', '06.000000'),
      ev('d', 'ResponseComplete', '05.000000', '07.000000'),
      ev('e', 'RequestReceived', '05.000000'),
      ev('g', 'ResponseStarted', '05.000000', '06.000000'),
      ev('f', 'RequestReceived', '05.000000'),
      ev('f', 'ResponseComplete', '05.000000', '06.000000'),
      ev('c', 'ResponseComplete', '06.000000'),
    ]);
    expect([...r.leftovers.keys()]).toEqual(['e', 'g']);
    expect(r.leftovers.get('g')!.stage).toBe('ResponseStarted');
    expect(r.input.duplicateEvents).toBe(0);
    expect(st.counters.requests).toBe(7); // a, b, d, f, c, and e and g counted open at the end
  });

  it.skipIf(process.env.AUDIT_SCAN_MUTATION === '1')('holds no more earlier stages in a run than the state may: the oldest of 250,001 is evicted, and again', () => {
    // As bounded.test.ts's events one by one, here as lines. Holding w250000 evicts w0 (counted); w0's
    // ResponseStarted then opens it again and evicts w1 (counted). After a line the engine declines (a run ends
    // there), w0's final stage completes the open w0 and w1's is counted anew; 249,999 are left open. Had the
    // module held w250000 and w0's ResponseStarted in one run, the state's eviction of w0 would come after the
    // module saw it open, and w0 would be counted three times.
    const lines = [ev('first', 'ResponseComplete', '00.000000')];
    const rr = ev('ID', 'RequestReceived', '01.000000');
    for (let i = 0; i <= 250_000; i++) lines.push(rr.replace('"ID"', `"w${i}"`));
    lines.push(ev('w0', 'ResponseStarted', '01.000000', '01.500000'), 'not an audit line', ev('w0', 'ResponseComplete', '01.000000', '02.000000'), ev('w1', 'ResponseComplete', '01.000000', '02.000000'));
    const { st, r } = segment(lines);
    expect(st.counters.pendingEvicted).toBe(2);
    expect(r.leftovers.size).toBe(249_999);
    expect(r.leftovers.has('w0')).toBe(false);
    expect(r.leftovers.has('w1')).toBe(false);
    expect(st.counters.requests).toBe(1 + 2 + 2 + 249_999); // first, the two evicted, w0 and w1 final, the open ones
  }, 60_000);

  it('takes the head from the first event\'s stage time, as timeOf() does, not its received time', () => {
    // the first event was received at :00 and logged at :03 (3 s): the segment began at :03, so a request received
    // at :03.5 is in its head (held for reconcile); one received at :04.5 is not
    const { r } = segment([ev('a', 'ResponseComplete', '00.000000', '03.000000'), ev('b', 'ResponseComplete', '03.500000'), ev('c', 'ResponseComplete', '04.500000')]);
    expect([...r.head.keys()].sort()).toEqual(['a', 'b']);
    // a first event logged before it was received (a clock step): the segment began at its stage time (:03), it is
    // past the head itself, b (:03.5) is in it, c (:04.5) is not
    const skew = segment([ev('a', 'ResponseComplete', '05.000000', '03.000000'), ev('b', 'ResponseComplete', '03.500000'), ev('c', 'ResponseComplete', '04.500000')]);
    expect([...skew.r.head.keys()].sort()).toEqual(['b']);
  });

  it('counts a copy once and the state hears of it', () => {
    const { st, r } = segment([ev('a', 'ResponseComplete', '00.000000'), ev('b', 'ResponseComplete', '05.000000'), ev('b', 'ResponseComplete', '05.000000'), ev('c', 'ResponseComplete', '06.000000')]);
    expect(r.input.duplicateEvents).toBe(1);
    expect(st.counters.requests).toBe(3);
  });
});

describe('the look-back across many segments (a stream cut into chunks)', () => {
  it('drops copies of events many segments back, as one thread does, from stdin and a gzip file', async () => {
    // 12,000 requests, 20 a second, then copies of 400 of them at distances from 7 to 11,000 requests back. The
    // stream is cut every 40 KB (about 130 lines), so a copy is checked against the window of earlier segments'
    // tails, many of them, the oldest cut part way. By hand: 12,000 requests, 400 copies dropped.
    const line = (i: number): string => {
      const t = new Date(Date.UTC(2026, 10, 30, 10) + i * 50).toISOString().replace('Z', '000Z');
      return auditLine({ auditID: `id-${i}`, requestURI: '/api/v1/pods?limit=500', requestReceivedTimestamp: t, stageTimestamp: t });
    };
    const lines: string[] = [];
    let copies = 0;
    for (let i = 0; i < 12000; i++) {
      lines.push(line(i));
      if (i % 30 === 29 && copies < 400) {
        const back = 7 + ((copies * 2749) % Math.min(i, 11000));
        lines.push(line(i - back));
        copies++;
      }
    }
    expect(copies).toBe(400);
    const text = lines.join('\n') + '\n';
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-lookback-'));
    const gz = join(dir, 'a.log.gz');
    writeFileSync(gz, gzipSync(text));
    const runs = [
      await spawnCli(['-o', 'json', '-j', '1', '-'], text),
      await spawnCli(['-o', 'json', '-j', '2', '-'], text, { env: { AUDIT_SCAN_MIN_SPLIT_BYTES: String(40 << 10) } }),
      await spawnCli(['-o', 'json', '-j', '3', gz], null, { env: { AUDIT_SCAN_MIN_SPLIT_BYTES: String(40 << 10) } }),
    ];
    for (const r of runs) {
      expect(r.code).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.totals.requests).toBe(12000);
      expect(j.inputs[0].duplicateEvents).toBe(400);
    }
  }, 120_000);
});

// A scan lane's state (a worker's, the main thread's lane) keeps the aggregator's counts from segment to segment
// (ScanState.foldLate), and folds them when a segment of another input begins: counts stay with their input.
describe('a lane that folds the aggregator late', () => {
  const at = (i: number, base: number): string => new Date(Date.UTC(2026, 10, 30, 10) + base + i * 250).toISOString().replace('Z', '000Z');
  const lines = (prefix: string, n: number, base: number, ua: string): string[] =>
    Array.from({ length: n }, (_, i) => auditLine({ auditID: `${prefix}-${i}`, userAgent: ua, requestReceivedTimestamp: at(i, base), stageTimestamp: at(i, base) }));

  /** Segments of inputs 0, 0, 1, 0 read by one state, as a lane is handed ranges; the merged aggregates. */
  function run(foldLate: boolean) {
    const lane = new ScanState('/registry');
    lane.engine = loadEngine().engine;
    lane.foldLate = foldLate;
    const main = new ScanState('/registry');
    main.addInput('a');
    main.addInput('b');
    const parts: Array<[number, string[]]> = [
      [0, lines('a', 300, 0, 'a/1')],
      [0, lines('a2', 200, 120_000, 'a/1')],
      [1, lines('b', 100, 3_600_000, 'b/1')],
      [0, lines('a3', 50, 240_000, 'a/1')],
    ];
    const results = parts.map(([input, ls], k) => {
      lane.beginSegment(input, input === 0 ? 'a' : 'b', `w${k}`);
      const feed = newSegmentFeeder(lane, k === 0 || input === 1, undefined);
      feed.push(Buffer.from(ls.join('\n') + '\n'));
      feed.end();
      return lane.endSegment();
    });
    main.mergeSnapshot(structuredClone(lane.snapshot()));
    return { main, results };
  }

  it('gives each input the requests read from it, as a state that folds at every segment end does', () => {
    const late = run(true);
    const each = run(false);
    const total = (m: ScanState, i: number): number => [...(m.time.inputRequests.get(i)?.buckets.values() ?? [])].reduce((a, b) => a + b, 0);
    // the segments' heads are the main state's to count at reconcile; the rest is the lane's
    const heads = (r: ReturnType<typeof run>, i: number): number => r.results.filter((s) => s.inputIndex === i).reduce((n, s) => n + s.head.size, 0);
    expect(total(late.main, 0) + heads(late, 0)).toBe(550);
    expect(total(late.main, 1) + heads(late, 1)).toBe(100);
    for (const i of [0, 1]) expect(total(late.main, i)).toBe(total(each.main, i));
    expect(late.main.counters.requests).toBe(each.main.counters.requests);
  });
});

// With two inputs or more, the aggregator also sums the copy fingerprint (src/aggregate/fingerprint.ts) per second:
// the module's hashes of an auditID must be the host's to the bit, or a copy would go unseen.
describe('the copy fingerprint in the module', () => {
  it('hashes ASCII IDs as fingerprint.ts does', () => {
    const eng = loadEngine().engine!;
    const rnd = mulberry32(26);
    const ids = ['', 'a', '(no auditID', 'ffffffff-ffff-4fff-8fff-ffffffffffff', '~'.repeat(300)];
    for (let k = 0; k < 200; k++) ids.push(Array.from({ length: Math.floor(rnd() * 80) }, () => String.fromCharCode(32 + Math.floor(rnd() * 95))).join(''));
    for (const id of ids) expect(eng.fingerprintHash(id)).toEqual(fingerprintHash(id));
  });

  it('finds a copy among inputs, and counts as the JavaScript path does, IDs not ASCII and host-named ones too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fp-'));
    const at = (i: number): string => new Date(Date.UTC(2026, 10, 30, 10) + i * 300).toISOString().replace('Z', '000Z');
    // IDs of three kinds: ASCII, with a character past ASCII (the module leaves those to the host), and one that
    // reads as a name the host gives (countRequest does not fingerprint those)
    const id = (i: number): string => (i % 17 === 0 ? `é-${i}` : i % 29 === 0 ? `(no auditID x${i})` : `id-${i}`);
    const a = Array.from({ length: 600 }, (_, i) => auditLine({ auditID: id(i), requestReceivedTimestamp: at(i), stageTimestamp: at(i) }));
    const b = Array.from({ length: 300 }, (_, i) => auditLine({ auditID: `b-${i}`, userAgent: 'b/1', requestReceivedTimestamp: at(2000 + i), stageTimestamp: at(2000 + i) }));
    writeFileSync(join(dir, 'a.log'), a.join('\n') + '\n');
    // whole seconds of a, as a JSON document: read by the JavaScript path, so its hashes must meet the module's
    writeFileSync(join(dir, 'excerpt.json'), JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: a.slice(100, 400).map((l) => JSON.parse(l)) }));
    writeFileSync(join(dir, 'b.log'), b.join('\n') + '\n');
    const files = ['a.log', 'excerpt.json', 'b.log'].map((f) => join(dir, f));
    const wasm = await spawnCli(['-o', 'json', ...files]);
    const js = await spawnCli(['-o', 'json', '--engine', 'js', ...files]);
    expect(wasm.code).toBe(0);
    expect(wasm.stdout).toBe(js.stdout);
    expect(wasm.stderr).toBe(js.stderr);
    expect(wasm.stderr).toMatch(/excerpt\.json: a copy of .*a\.log: 290 of its 290 requests/); // the seconds whole in both
    expect(JSON.parse(wasm.stdout).totals.requests).toBe(900);
  });
});
