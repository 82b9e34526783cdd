// Slow etcd reads, straight through EtcdReads: which lines are one read, what a merged read keeps, when a held
// read is let go, how segments join at a cut, and what each aggregate and key label holds.
import { describe, expect, it } from 'vitest';
import { EtcdReads, internalReason, mergeAgg, type EtcdAgg, type EtcdRead, type EtcdSegmentEdges } from '../../src/aggregate/etcd-reads.js';
import { describeEtcdKey } from '../../src/model/etcd-key.js';
import type { EtcdRangeEntry } from '../../src/decode/etcd-line.js';

const T = Date.UTC(2026, 10, 30, 12, 0, 0);
function entry(f: Partial<EtcdRangeEntry> = {}): EtcdRangeEntry {
  return { kind: 'range', via: 'apply', tsMs: T, tookMs: 120, key: '/registry/pods/', rangeEnd: '/registry/pods0', limit: 0, countOnly: false, keysOnly: false, revision: 0, objects: 7000, totalKeys: null, bytes: 13_300_000, error: null, ...f };
}
/** Runs entries through one stream and returns what was emitted, in order. */
function run(entries: EtcdRangeEntry[], prefix: string | null = '/registry'): { reads: EtcdRead[]; r: EtcdReads } {
  const r = new EtcdReads(prefix);
  const reads: EtcdRead[] = [];
  r.sink = (x) => reads.push(x);
  for (const e of entries) r.add(e);
  r.flush();
  return { reads, r };
}
const count = (entries: EtcdRangeEntry[]) => run(entries).reads.length;

/** Where the lines meet the merger: all in a segment's head (before its first pause), after the head has closed
 * (a line 1 s earlier opens and closes it), or the first line at the end of one segment and the rest at the
 * start of the next, joined at the cut. Returns the reads of `entries` (not of the opening line), in order. */
type Mode = 'head' | 'held' | 'cut';
const OPENER = (): EtcdRangeEntry => entry({ tsMs: T - 1000, key: '/registry/opener/', rangeEnd: '/registry/opener0' });
function runIn(mode: Mode, entries: EtcdRangeEntry[]): EtcdRead[] {
  if (mode === 'head') return run(entries).reads;
  if (mode === 'held') return run([OPENER(), ...entries]).reads.filter((x) => x.key !== '/registry/opener/');
  const a = new EtcdReads('/registry');
  a.add(OPENER());
  a.add(entries[0]!);
  const ea = a.endSegment();
  const b = new EtcdReads('/registry');
  for (const e of entries.slice(1)) b.add(e);
  const eb = b.endSegment();
  return joinTwo(ea, eb).reads.filter((x) => x.key !== '/registry/opener/');
}
/** Joins two segments of one input at their cut, as the reader does, and returns what was emitted, in order. */
function joinTwo(ea: EtcdSegmentEdges, eb: EtcdSegmentEdges): { reads: EtcdRead[]; all: EtcdReads } {
  const all = new EtcdReads('/registry');
  const reads: EtcdRead[] = [];
  all.sink = (x) => reads.push(x);
  all.joinSegments([], ea.head);
  all.joinSegments(ea.tail, eb.head);
  all.joinSegments(eb.tail, []);
  return { reads, all };
}
const MODES: Mode[] = ['head', 'held', 'cut'];

describe('which lines are one read', () => {
  it('an apply line and its trace line, 1 ms apart, in either order', () => {
    expect(count([entry(), entry({ via: 'trace', tsMs: T + 1, objects: 7000, bytes: null })])).toBe(1);
    expect(count([entry({ via: 'trace', bytes: null }), entry({ tsMs: T + 1 })])).toBe(1);
    expect(count([entry(), entry({ via: 'stats', tsMs: T + 1, objects: null, totalKeys: 7000 })])).toBe(1);
  });
  it('two lines of one kind are two reads; capnslog lines never pair', () => {
    expect(count([entry(), entry({ tsMs: T + 1 })])).toBe(2);
    expect(count([entry({ via: 'trace' }), entry({ via: 'trace', tsMs: T + 1 })])).toBe(2);
    expect(count([entry({ via: 'capnslog' }), entry({ via: 'trace', tsMs: T + 1 })])).toBe(2);
    expect(count([entry({ via: 'trace' }), entry({ via: 'capnslog', tsMs: T + 1 })])).toBe(2);
  });
  it('another key or range end is another read', () => {
    expect(count([entry(), entry({ via: 'trace', key: '/registry/pods/a/' })])).toBe(2);
    expect(count([entry(), entry({ via: 'trace', rangeEnd: '/registry/pods/a0' })])).toBe(2);
  });
  it('an apply and a stats line naming different limits are two reads; a trace (no limit) pairs with either', () => {
    expect(count([entry({ limit: 500 }), entry({ via: 'stats', limit: 0, tsMs: T + 1 })])).toBe(2);
    expect(count([entry({ via: 'stats', limit: 500 }), entry({ via: 'apply', limit: 0, tsMs: T + 1 })])).toBe(2);
    expect(count([entry({ limit: 500 }), entry({ via: 'stats', limit: 500, tsMs: T + 1 })])).toBe(1);
    const { reads } = run([entry({ via: 'trace', limit: 0 }), entry({ limit: 500, tsMs: T + 1 })]);
    expect(reads.map((x) => [x.limit, [...x.vias].sort()])).toEqual([[500, ['apply', 'trace']]]);
    // a trace held first, then a stats line with a limit: the trace does not know the limit, so they pair
    expect(count([entry({ via: 'trace', limit: 0 }), entry({ via: 'stats', limit: 500, tsMs: T + 1 })])).toBe(1);
  });
  it('50 ms apart is still one read, 51 ms is two; a line without a time pairs by the rest', () => {
    expect(count([entry(), entry({ via: 'trace', tsMs: T + 50 })])).toBe(1);
    expect(count([entry(), entry({ via: 'trace', tsMs: T + 51 })])).toBe(2);
    expect(count([entry(), entry({ via: 'trace', tsMs: null })])).toBe(1);
    expect(count([entry({ tsMs: null }), entry({ via: 'trace' })])).toBe(1);
  });
  it.each(MODES)('in the %s: 50 ms apart is one read, 51 ms two, either way round; an apply then its trace pair', (mode) => {
    const n = (es: EtcdRangeEntry[]) => runIn(mode, es).length;
    expect(n([entry(), entry({ via: 'trace', tsMs: T + 50 })])).toBe(1);
    expect(n([entry(), entry({ via: 'trace', tsMs: T + 51 })])).toBe(2);
    expect(n([entry({ via: 'trace', tsMs: T + 51 }), entry({ tsMs: T })])).toBe(2);
    expect(n([entry({ via: 'trace', tsMs: T + 50 }), entry({ tsMs: T })])).toBe(1);
    // the trace line knows no limit, so an apply line's limit of 500 does not part them
    expect(runIn(mode, [entry({ limit: 500 }), entry({ via: 'trace', limit: 0, tsMs: T + 1 })]).map((x) => [x.limit, [...x.vias].sort()])).toEqual([[500, ['apply', 'trace']]]);
    // a stats line does know it
    expect(n([entry({ limit: 500 }), entry({ via: 'stats', limit: 0, tsMs: T + 1 })])).toBe(2);
  });
  it('different counts are two reads; an unknown count pairs', () => {
    expect(count([entry(), entry({ via: 'trace', objects: 6999 })])).toBe(2);
    expect(count([entry({ objects: null }), entry({ via: 'trace' })])).toBe(1);
    expect(count([entry(), entry({ via: 'trace', objects: null })])).toBe(1);
  });
});

describe('what a merged read keeps', () => {
  it('the first known of each figure, the largest time taken, the limit a line names', () => {
    const { reads } = run([entry({ via: 'trace', objects: null, bytes: null, error: null, tookMs: 130, limit: 0 }), entry({ via: 'apply', objects: 7000, bytes: 5, error: 'etcdserver: request timed out', tookMs: 100, limit: 500, tsMs: T + 1 }), entry({ via: 'stats', objects: 7000, bytes: 9, totalKeys: 7100, error: 'other', tookMs: 150, limit: 500, tsMs: T + 2 })]);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({ tsMs: T, objects: 7000, bytes: 5, totalKeys: 7100, error: 'etcdserver: request timed out', tookMs: 150, limit: 500 });
  });
  it('an unknown time taken is replaced by a known one, and a known one is not replaced by an unknown one', () => {
    expect(run([entry({ via: 'trace', tookMs: null }), entry({ tookMs: 90, tsMs: T + 1 })]).reads[0]!.tookMs).toBe(90);
    expect(run([entry({ via: 'trace', tookMs: 90 }), entry({ tookMs: null, tsMs: T + 1 })]).reads[0]!.tookMs).toBe(90);
    expect(run([entry({ via: 'trace', tookMs: 90 }), entry({ tookMs: 90, tsMs: T + 1 })]).reads[0]!.tookMs).toBe(90);
  });
  it('a shorter time taken on a later line does not replace a longer one; 0 ms replaces an unknown time', () => {
    expect(run([entry({ via: 'trace', tookMs: 130 }), entry({ tookMs: 100, tsMs: T + 1 })]).reads.map((x) => x.tookMs)).toEqual([130]);
    expect(run([entry({ via: 'trace', tookMs: null }), entry({ tookMs: 0, tsMs: T + 1 })]).reads.map((x) => x.tookMs)).toEqual([0]);
  });
  it('a limit of 0 on a later line does not erase a known one', () => {
    expect(run([entry({ limit: 500 }), entry({ via: 'trace', limit: 0, tsMs: T + 1 })]).reads[0]!.limit).toBe(500);
  });
  it('count_only on the apply line makes the read internal even when its trace line came first', () => {
    // 1.27+ counts with the trailing slash, so only count_only tells
    const { reads, r } = run([entry({ via: 'trace', objects: 0 }), entry({ countOnly: true, objects: 0, tsMs: T + 1 })]);
    expect(reads.map((x) => x.internal)).toEqual(['count_only (object-count polling)']);
    expect([r.clientReads, r.internalReads]).toEqual([0, 1]);
  });
});

describe('when a held read is let go', () => {
  it('a read is emitted once a line more than 1 s later arrives, not at exactly 1 s', () => {
    const r = new EtcdReads('/registry');
    const out: number[] = [];
    r.sink = (x) => out.push(x.tsMs!);
    r.add(entry({ tsMs: T }));
    r.add(entry({ tsMs: T + 100, key: '/registry/secrets/', rangeEnd: '/registry/secrets0' })); // a gap: the head closes
    r.add(entry({ tsMs: T + 1100, key: '/registry/a/', rangeEnd: '/registry/a0' }));
    expect(out).toEqual([]);
    r.add(entry({ tsMs: T + 1101, key: '/registry/b/', rangeEnd: '/registry/b0' }));
    expect(out).toEqual([T + 100]);
    r.add(entry({ tsMs: T + 2101, key: '/registry/c/', rangeEnd: '/registry/c0' }));
    expect(out).toEqual([T + 100, T + 1100]);
  });
  it('at most 256 reads are held', () => {
    const r = new EtcdReads('/registry');
    const out: string[] = [];
    r.sink = (x) => out.push(x.key);
    r.add(entry({ tsMs: T }));
    for (let i = 0; i < 257; i++) r.add(entry({ tsMs: T + 100, key: `/registry/r${i}/`, rangeEnd: `/registry/r${i}0` }));
    expect(out).toEqual(['/registry/r0/']);
  });
  it('reads without a time are let go by the count only', () => {
    const r = new EtcdReads('/registry');
    const out: string[] = [];
    r.sink = (x) => out.push(x.key);
    r.add(entry({ tsMs: T }));
    r.add(entry({ tsMs: T + 100, key: '/registry/x/', rangeEnd: '/registry/x0' }));
    r.add(entry({ tsMs: null, key: '/registry/y/', rangeEnd: '/registry/y0' }));
    r.add(entry({ tsMs: T + 5000, key: '/registry/z/', rangeEnd: '/registry/z0' }));
    expect(out).toEqual(['/registry/x/']);
  });
});

describe('segments joined at a cut', () => {
  it('an apply line at the end of one segment and its trace at the start of the next are one read', () => {
    const a = new EtcdReads('/registry');
    a.add(entry({ tsMs: T - 500, key: '/registry/early/', rangeEnd: '/registry/early0' }));
    a.add(entry({ tsMs: T }));
    const ea = a.endSegment();
    const b = new EtcdReads('/registry');
    b.add(entry({ via: 'trace', tsMs: T + 1 }));
    b.add(entry({ tsMs: T + 500, key: '/registry/late/', rangeEnd: '/registry/late0' }));
    const eb = b.endSegment();
    // the head is the lines before the first pause over 50 ms: one line in each segment
    expect([ea.head.length, ea.tail.length, eb.head.length, eb.tail.length]).toEqual([1, 1, 1, 1]);
    const { reads, all } = joinTwo(ea, eb);
    expect(reads.map((x) => [x.key, [...x.vias].sort()])).toEqual([
      ['/registry/early/', ['apply']],
      ['/registry/pods/', ['apply', 'trace']],
      ['/registry/late/', ['apply']],
    ]);
    expect(all.clientReads).toBe(3);
  });
  it('the head takes lines out of order up to the latest time seen', () => {
    const a = new EtcdReads('/registry');
    a.add(entry({ tsMs: T + 40 }));
    a.add(entry({ tsMs: T, key: '/registry/x/', rangeEnd: '/registry/x0' }));
    // 40 + 50 = 90: a line at T + 90 is still in the head, one at T + 91 closes it
    a.add(entry({ tsMs: T + 90, key: '/registry/y/', rangeEnd: '/registry/y0' }));
    a.add(entry({ tsMs: T + 141, key: '/registry/z/', rangeEnd: '/registry/z0' }));
    expect(a.endSegment().head.map((e) => e.key)).toEqual(['/registry/pods/', '/registry/x/', '/registry/y/']);
    const b = new EtcdReads('/registry');
    b.add(entry({ tsMs: null }));
    b.add(entry({ tsMs: T, key: '/registry/x/', rangeEnd: '/registry/x0' }));
    b.add(entry({ tsMs: T + 51, key: '/registry/y/', rangeEnd: '/registry/y0' }));
    expect(b.endSegment().head.map((e) => e.key)).toEqual(['/registry/pods/', '/registry/x/']);
  });
  it('a line after the head has closed is never taken into it, even one within 50 ms of the head’s last line', () => {
    // /registry/a/ at T is the head; /registry/b/ at T + 100 closes it; b's trace at T + 50 (out of order) pairs with b
    const { reads } = run([
      entry({ key: '/registry/a/', rangeEnd: '/registry/a0' }),
      entry({ key: '/registry/b/', rangeEnd: '/registry/b0', tsMs: T + 100 }),
      entry({ via: 'trace', key: '/registry/b/', rangeEnd: '/registry/b0', tsMs: T + 50 }),
    ]);
    expect(reads.map((x) => [x.key, [...x.vias].sort()])).toEqual([['/registry/a/', ['apply']], ['/registry/b/', ['apply', 'trace']]]);
  });
  it('a stream goes on after endSegment: a new head, nothing held over', () => {
    const a = new EtcdReads('/registry');
    a.add(entry({ key: '/registry/a/', rangeEnd: '/registry/a0' }));
    a.add(entry({ key: '/registry/b/', rangeEnd: '/registry/b0', tsMs: T + 100 }));
    const first = a.endSegment();
    expect([first.head.map((e) => e.key), first.tail.map((r) => r.key)]).toEqual([['/registry/a/'], ['/registry/b/']]);
    a.add(entry({ key: '/registry/c/', rangeEnd: '/registry/c0', tsMs: T + 200 }));
    a.add(entry({ key: '/registry/d/', rangeEnd: '/registry/d0', tsMs: T + 300 }));
    a.add(entry({ via: 'trace', key: '/registry/d/', rangeEnd: '/registry/d0', tsMs: T + 301 }));
    const second = a.endSegment();
    expect([second.head.map((e) => e.key), second.tail.map((r) => [r.key, [...r.vias].sort()])]).toEqual([['/registry/c/'], [['/registry/d/', ['apply', 'trace']]]]);
  });
  it('holds at most 10,000 head lines', () => {
    const a = new EtcdReads('/registry');
    for (let i = 0; i < 10_005; i++) a.add(entry({ tsMs: T + i, key: `/registry/k${i}/`, rangeEnd: `/registry/k${i}0` }));
    expect(a.endSegment().head).toHaveLength(10_000);
  });
});

describe('aggregates and key labels', () => {
  const aggsOf = (entries: EtcdRangeEntry[], prefix: string | null = '/registry') => [...run(entries, prefix).r.aggs.values()];
  it.each<[string, string | null, string]>([
    ['/registry/pods/', '/registry/pods0', '/registry/pods/'],
    ['/registry/pods/shop/', '/registry/pods/shop0', '/registry/pods/<ns>/'],
    ['/registry/pods/shop/p1', null, '/registry/pods/<ns>/<name>'],
    ['/registry/minions/n1', null, '/registry/minions/<name>'],
    ['/registry/cilium.io/ciliumendpoints/', '/registry/cilium.io/ciliumendpoints0', '/registry/cilium.io/ciliumendpoints/'],
    ['/registry/services/specs/', '/registry/services/specs0', '/registry/services/specs/'],
    ['/other/thing', null, '/other/thing'],
  ])('%s .. %s is labelled %s', (key, end, label) => {
    expect(aggsOf([entry({ key, rangeEnd: end })]).map((a) => a.keyLabel)).toEqual([label]);
  });
  it('an internal read keeps its raw key; an inferred prefix labels with itself', () => {
    expect(aggsOf([entry({ key: '/registry/pods', rangeEnd: '/registry/podt', countOnly: true })]).map((a) => [a.keyLabel, a.internal])).toEqual([['/registry/pods', 'count_only (object-count polling)']]);
    expect(aggsOf([entry({ key: '/kubernetes.io/pods/shop/p', rangeEnd: null })], null).map((a) => a.keyLabel)).toEqual(['/kubernetes.io/pods/<ns>/<name>']);
  });
  it('one aggregate per minute, per limited or not, per namespace', () => {
    const aggs = aggsOf([
      entry({ tsMs: T }),
      entry({ tsMs: T + 59_000, objects: 7001 }),
      entry({ tsMs: T + 60_000, objects: 7002 }),
      entry({ tsMs: T + 61_000, limit: 500, objects: 500 }),
      entry({ tsMs: null, objects: 7003 }),
      entry({ tsMs: T + 62_000, key: '/registry/pods/a/', rangeEnd: '/registry/pods/a0', objects: 1 }),
      entry({ tsMs: T + 63_000, key: '/registry/pods/b/', rangeEnd: '/registry/pods/b0', objects: 2 }),
    ]);
    expect(aggs.map((a) => [a.minute, a.limited, a.namespace, a.reads]).sort()).toEqual(
      [
        [-1, false, null, 1],
        [Math.floor(T / 60000), false, null, 2],
        [Math.floor(T / 60000) + 1, false, null, 1],
        [Math.floor(T / 60000) + 1, true, null, 1],
        [Math.floor(T / 60000) + 1, false, 'a', 1],
        [Math.floor(T / 60000) + 1, false, 'b', 1],
      ].sort(),
    );
  });
  it('sums, counts, maxima and the first and last time of the reads', () => {
    const [a] = aggsOf([
      entry({ tsMs: T + 2000, objects: 10, bytes: 100, tookMs: 150.5, totalKeys: 40 }),
      entry({ tsMs: T + 1000, objects: 30, bytes: null, tookMs: null, error: 'timed out', totalKeys: null }),
      entry({ tsMs: T + 3000, objects: null, bytes: 300, tookMs: 100.25, totalKeys: 20 }),
    ]);
    expect(a).toMatchObject({ reads: 3, objectsSum: 40, objectsN: 2, objectsMax: 30, totalKeysMax: 40, bytesSum: 400, bytesN: 2, bytesMax: 300, tookSum: 250_750, tookN: 2, tookMax: 150.5, errors: 1, firstMs: T + 1000, lastMs: T + 3000 });
    const [none] = aggsOf([entry({ tsMs: null, objects: null, bytes: null, tookMs: null })]);
    expect(none).toMatchObject({ reads: 1, objectsN: 0, bytesN: 0, tookN: 0, firstMs: null, lastMs: null });
  });
  it('mergeAgg adds sums and keeps maxima and the outer times, whichever side knows them', () => {
    const base = (f: Partial<EtcdAgg>): EtcdAgg => ({ internal: null, resourceKey: 'pods', resource: 'pods', scope: 'all', namespace: null, limited: false, minute: 1, keyLabel: 'k', reads: 1, objectsSum: 1, objectsN: 1, objectsMax: 1, totalKeysMax: 1, bytesSum: 1, bytesN: 1, bytesMax: 1, tookSum: 1, tookN: 1, tookMax: 1, errors: 0, firstMs: null, lastMs: null, ...f });
    const a = base({ objectsMax: 5, totalKeysMax: 2, bytesMax: 9, tookMax: 3, firstMs: 100, lastMs: 200 });
    mergeAgg(a, base({ reads: 2, objectsMax: 7, totalKeysMax: 8, bytesMax: 4, tookMax: 6, errors: 1, firstMs: 50, lastMs: 150 }));
    expect(a).toMatchObject({ reads: 3, objectsSum: 2, objectsMax: 7, totalKeysMax: 8, bytesMax: 9, tookMax: 6, errors: 1, firstMs: 50, lastMs: 200 });
    const b = base({ firstMs: null, lastMs: null });
    mergeAgg(b, base({ firstMs: 10, lastMs: 20 }));
    expect([b.firstMs, b.lastMs]).toEqual([10, 20]);
    const c = base({ firstMs: 10, lastMs: 20 });
    mergeAgg(c, base({ firstMs: null, lastMs: null }));
    expect([c.firstMs, c.lastMs]).toEqual([10, 20]);
    const d = base({ firstMs: 10, lastMs: 20 });
    mergeAgg(d, base({ firstMs: 30, lastMs: 5 }));
    expect([d.firstMs, d.lastMs]).toEqual([10, 20]);
  });
  it('two internal reads of one range in one minute, for two reasons, are two aggregates; a read outside any prefix counts under none', () => {
    const { r } = run([entry({ countOnly: true, limit: 1, objects: 0 }), entry({ limit: 1, objects: 1, tsMs: T + 100 })]);
    expect([...r.aggs.values()].map((a) => [a.internal, a.reads])).toEqual([['count_only (object-count polling)', 1], ['limit:1 (current-revision fetch)', 1]]);
    const out = run([entry({ key: '/cs/leader', rangeEnd: null })], null).r;
    expect([out.clientReads, out.prefixes.size]).toEqual([1, 0]);
  });
  it('merging streams adds their reads, reasons and prefixes', () => {
    const x = run([entry(), entry({ tsMs: T + 100, countOnly: true })], null).r;
    const y = run([entry({ key: '/kubernetes.io/pods/', rangeEnd: '/kubernetes.io/pods0' }), entry({ tsMs: T + 100, countOnly: true })], null).r;
    x.merge(y);
    expect([x.clientReads, x.internalReads, Object.fromEntries(x.internalByReason), Object.fromEntries(x.prefixes)]).toEqual([2, 2, { 'count_only (object-count polling)': 2 }, { '/registry': 3, '/kubernetes.io': 1 }]);
  });
});

describe('internalReason', () => {
  const why = (key: string, end: string | null, f: Partial<EtcdRangeEntry> = {}, prefix: string | null = '/registry') => internalReason({ key, rangeEnd: end, countOnly: false, limit: 0, ...f }, describeEtcdKey(key, end, prefix), prefix);
  it.each<[string, string | null, Partial<EtcdRangeEntry>, string | null, string | null]>([
    ['/registry/pods/', '/registry/pods0', { countOnly: true }, '/registry', 'count_only (object-count polling)'],
    ['/registry/pods/', '/registry/pods0', { limit: 1 }, '/registry', 'limit:1 (current-revision fetch)'],
    ['/registry/pods/', '/registry/pods0', { limit: 2 }, '/registry', null],
    ['/registry/health', null, {}, '/registry', 'health check'],
    ['/k8s/health', null, {}, '/k8s', 'health check'],
    ['/registry/health', null, {}, '/k8s', null],
    ['/kubernetes.io/health', null, {}, null, 'health check'],
    ['/anything/health', null, {}, null, 'health check'],
    ['/a/b/health', null, {}, null, null],
    ['/cs/health/x', null, {}, null, null],
    ['/cs/healthz', null, {}, null, null],
    ['compact_rev_key', null, {}, '/registry', 'compaction'],
    ['/registry/masterleases/10.0.0.1', null, {}, '/registry', 'endpoint reconciler'],
    ['/registry/leases', '/registry/leaset', {}, '/registry', 'count without the trailing slash (object-count polling, before 1.27)'],
    ['/registry/services/specs', '/registry/services/spect', {}, '/registry', 'count without the trailing slash (object-count polling, before 1.27)'],
    // with the slash, or a range that is not the key's prefix range, it is a client list
    ['/registry/leases/', '/registry/leases0', {}, '/registry', null],
    ['/registry/leases', '/registry/leasez', {}, '/registry', null],
    ['/registry/pods/ns1', '/registry/pods/ns2', {}, '/registry', null],
    ['/registry/pods/ns/p1', null, {}, '/registry', null],
  ])('%s .. %s %j (prefix %s) → %s', (key, end, f, prefix, want) => {
    expect(why(key, end, f, prefix)).toBe(want);
  });
});

describe('an aggregate’s first and last read, whatever order they come in', () => {
  it('reads out of order in one stream: the earliest and the latest', () => {
    const { r } = run([entry({ tsMs: T + 5000 }), entry({ tsMs: T + 2000 }), entry({ tsMs: T + 9000 }), entry({ tsMs: null })]);
    const aggs = [...r.aggs.values()];
    // aggregates are per minute: the read without a time has its own
    expect(aggs.map((a) => [a.reads, a.firstMs, a.lastMs])).toEqual([[3, T + 2000, T + 9000], [1, null, null]]);
    // the latest read is not the last one let go: T + 9000 is held before T + 5000
    const late = [...run([entry({ tsMs: T + 2000 }), entry({ tsMs: T + 9000 }), entry({ tsMs: T + 5000 })]).r.aggs.values()];
    expect(late.map((a) => [a.reads, a.firstMs, a.lastMs])).toEqual([[3, T + 2000, T + 9000]]);
  });
  it('merged: the outer times of both sides, and a side without times changes nothing', () => {
    const mk = (first: number | null, last: number | null): EtcdAgg => ({ ...[...run([entry()]).r.aggs.values()][0]!, firstMs: first, lastMs: last });
    const a = mk(T + 1000, T + 8000);
    mergeAgg(a, mk(T + 3000, T + 5000));
    expect([a.firstMs, a.lastMs]).toEqual([T + 1000, T + 8000]);
    mergeAgg(a, mk(T, T + 9000));
    expect([a.firstMs, a.lastMs]).toEqual([T, T + 9000]);
    mergeAgg(a, mk(null, null));
    expect([a.firstMs, a.lastMs]).toEqual([T, T + 9000]);
    const empty = mk(null, null);
    mergeAgg(empty, mk(T + 1, T + 2));
    expect([empty.firstMs, empty.lastMs]).toEqual([T + 1, T + 2]);
  });
});
