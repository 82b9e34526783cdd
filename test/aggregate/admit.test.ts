// The segment's dedup verdicts (src/aggregate/dedup.ts admit, admitVerdict, holdOpen, closeDedup), table-driven
// against hand answers, with the JavaScript dedup and with the engine module's: which final event belongs to a
// segment's head (received before the segment began, plus a second of slack: reconcile() pairs it), a copy, an
// earlier stage before and after its final one, the ring of recent IDs forgetting its oldest, and the oldest open
// request evicted past the bound.
import { describe, expect, it } from 'vitest';
import { admit, admitVerdict, closeDedup, holdOpen, COUNT, DROP, HEAD, HEAD_SLACK_MS, HOLD, MAX_PENDING, RECENT_TERMINALS, type SegmentDedup } from '../../src/aggregate/dedup.js';
import { newInputStats } from '../../src/aggregate/input-stats.js';
import { DEDUP_DROP, DEDUP_HOLD, DEDUP_NEW, DEDUP_WAS_PENDING, loadEngine, type LineEngine } from '../../src/decode/engine/engine.js';
import type { AuditEvent } from '../../src/model/audit-event.js';
import type { Counters } from '../../src/aggregate/state-types.js';

const T = Date.UTC(2026, 0, 1, 10);

function segment(startMs: number | null, beforeMs: number | null, eng: LineEngine | null = null): SegmentDedup {
  return {
    input: newInputStats('x'),
    startMs,
    beforeMs,
    pending: new Map(),
    dedupEngine: eng,
    dedup: eng === null ? 0 : eng.dedupOpen(RECENT_TERMINALS),
    recent: new Set(),
    recentRing: eng === null ? new Array(RECENT_TERMINALS) : [],
    recentPos: 0,
    head: new Map(),
  };
}

const engine = (): LineEngine => {
  const eng = loadEngine().engine;
  if (eng === null) throw new Error('no engine');
  return eng;
};
const sides: Array<[string, () => LineEngine | null]> = [
  ['JavaScript', () => null],
  ['the module', engine],
];

describe.each(sides)('admit (%s)', (_side, eng) => {
  // [what, segment's first event, latest event before it, received, verdict]
  it.each<[string, number | null, number | null, number | null, number]>([
    ['received before the segment began: its head', T, null, T - 5000, HEAD],
    ['received at the segment start plus the slack: its head', T, null, T + HEAD_SLACK_MS, HEAD],
    ['a millisecond past the slack: counted now', T, null, T + HEAD_SLACK_MS + 1, COUNT],
    ['the latest event before the segment is later than its first: the later one is when it began', T, T + 10_000, T + 10_500, HEAD],
    ['… and past it and its slack: counted now', T, T + 10_000, T + 11_001, COUNT],
    ['the latest before is earlier: the segment first event is when it began', T + 10_000, T, T + 10_500, HEAD],
    ['… past that: counted now (not the earlier time)', T + 10_000, T, T + 11_001, COUNT],
    ['only the time before the segment is known', null, T, T + 500, HEAD],
    ['no time for the segment: counted now', null, null, T, COUNT],
    ['no receive time: counted now', T, null, null, COUNT],
  ])('%s', (_what, startMs, beforeMs, receivedMs, want) => {
    const g = segment(startMs, beforeMs, eng());
    expect(admit(g, 'id-1', true, receivedMs)).toBe(want);
  });

  it('a full head counts its final events now', () => {
    const g = segment(T, null, eng());
    g.head = { size: MAX_PENDING } as Map<string, AuditEvent>;
    expect(admit(g, 'id-1', true, T)).toBe(COUNT);
    g.head = { size: MAX_PENDING - 1 } as Map<string, AuditEvent>;
    expect(admit(g, 'id-2', true, T)).toBe(HEAD);
  });

  it('stages and copies: hold, complete, drop the copy and the late earlier stage', () => {
    const g = segment(T, null, eng());
    const late = T + 5000;
    expect(admit(g, 'a', false, late)).toBe(HOLD);
    g.pending.set('a', {} as AuditEvent);
    expect(admit(g, 'a', true, late)).toBe(COUNT);
    expect(g.pending.has('a')).toBe(false);
    expect(admit(g, 'a', true, late)).toBe(DROP);
    expect(admit(g, 'a', false, late)).toBe(DROP);
    expect(g.input.duplicateEvents).toBe(1);
    // another request's open stage is left alone
    g.pending.set('b', {} as AuditEvent);
    expect(admit(g, 'c', true, late)).toBe(COUNT);
    expect([...g.pending.keys()]).toEqual(['b']);
  });

  it('the ring of recent IDs forgets its oldest: a copy of it then counts again', () => {
    const g = segment(T, null, eng());
    const late = T + 5000;
    let wrong = 0;
    for (let i = 0; i < RECENT_TERMINALS; i++) if (admit(g, `r${i}`, true, late) !== COUNT) wrong++;
    expect(wrong).toBe(0);
    expect(admit(g, 'r0', true, late)).toBe(DROP);
    expect(admit(g, `r${RECENT_TERMINALS - 1}`, true, late)).toBe(DROP);
    expect(admit(g, 'new', true, late)).toBe(COUNT); // r0 leaves the ring
    expect(admit(g, 'r0', true, late)).toBe(COUNT);
    expect(admit(g, 'r1', true, late)).toBe(COUNT); // r0's return pushed r1 out
    expect(admit(g, 'r2', true, late)).toBe(COUNT);
    expect(admit(g, `r${RECENT_TERMINALS - 1}`, true, late)).toBe(DROP);
    expect(g.input.duplicateEvents).toBe(3);
  });

  it('the tail a segment hands the next: its recent IDs, oldest first', () => {
    const g = segment(T, null, eng());
    for (const id of ['x', 'y', 'z']) admit(g, id, true, T + 5000);
    admit(g, 'open', false, T + 5000);
    const tail = closeDedup(g, true);
    const ids: string[] = [];
    const bytes = Buffer.from(tail.bytes);
    for (let i = 0, from = 0; i < tail.ends.length; i++) {
      ids.push(bytes.toString('utf8', from, tail.ends[i]!));
      from = tail.ends[i]!;
    }
    expect(ids).toEqual(['x', 'y', 'z']);
    // no tail asked (the input's last segment): none made, though the segment held IDs
    const h = segment(T, null, eng());
    for (const id of ['x', 'y']) admit(h, id, true, T + 5000);
    expect(closeDedup(h, false).ends.length).toBe(0);
  });
});

describe('admitVerdict: the module verdict', () => {
  it.each<[string, number, boolean, number]>([
    ['a copy of a final event: dropped and counted as a copy', DEDUP_DROP, true, DROP],
    ['an earlier stage after its final one: dropped, not a copy', DEDUP_DROP, false, DROP],
    ['an earlier stage: held', DEDUP_HOLD, false, HOLD],
    ['a final event: counted', DEDUP_NEW, true, COUNT],
    ['a final event of a held request: counted, its earlier stage let go', DEDUP_WAS_PENDING, true, COUNT],
  ])('%s', (_what, v, terminal, want) => {
    const g = segment(T, null);
    g.pending.set('a', {} as AuditEvent);
    g.pending.set('b', {} as AuditEvent);
    expect(admitVerdict(g, v, terminal, T + 5000, 'a')).toBe(want);
    expect(g.input.duplicateEvents).toBe(v === DEDUP_DROP && terminal ? 1 : 0);
    expect([...g.pending.keys()]).toEqual(v === DEDUP_WAS_PENDING ? ['b'] : ['a', 'b']);
  });
});

describe('holdOpen: the bound on open requests', () => {
  const counters = (): Counters => ({ pendingEvicted: 0 }) as Counters;
  it('keeps the later of two earlier stages, in the later place', () => {
    const open = new Map<string, AuditEvent>();
    const c = counters();
    const first = { stage: 'RequestReceived' } as AuditEvent;
    const second = { stage: 'ResponseStarted' } as AuditEvent;
    expect(holdOpen(open, 'a', first, null, c)).toBeNull();
    expect(holdOpen(open, 'b', first, null, c)).toBeNull();
    expect(holdOpen(open, 'a', second, null, c)).toBeNull();
    expect([...open]).toEqual([['b', first], ['a', second]]);
  });

  it("the scan's leftovers (no segment) evict the same way", () => {
    const open = new Map<string, AuditEvent>();
    const c = counters();
    const e = {} as AuditEvent;
    let wrong = 0;
    for (let i = 0; i < MAX_PENDING; i++) if (holdOpen(open, `q${i}`, e, null, c) !== null) wrong++;
    expect(wrong).toBe(0);
    expect(holdOpen(open, 'last', e, null, c)).toEqual(['q0', e]);
    expect(c.pendingEvicted).toBe(1);
    expect(open.has('q0')).toBe(false);
    expect(open.size).toBe(MAX_PENDING);
  });

  it.each(sides)('past MAX_PENDING the oldest goes, counted as evicted (%s)', (_side, mk) => {
    const eng = mk();
    const g = segment(T, null, eng);
    const open = new Map<string, AuditEvent>();
    const c = counters();
    const e = {} as AuditEvent;
    let wrong = 0;
    for (let i = 0; i < MAX_PENDING; i++) {
      const id = `p${i}`;
      if (admit(g, id, false, T) !== HOLD || holdOpen(open, id, e, g, c) !== null) wrong++;
    }
    expect(wrong).toBe(0);
    expect(c.pendingEvicted).toBe(0);
    expect(admit(g, 'last', false, T)).toBe(HOLD);
    const out = holdOpen(open, 'last', e, g, c);
    expect(out).toEqual(['p0', e]);
    expect(c.pendingEvicted).toBe(1);
    expect(open.size).toBe(MAX_PENDING);
    expect(open.has('p0')).toBe(false);
    // the module forgot the evicted request: its final event is new there (the held one of p1 is still held)
    if (eng !== null) {
      expect(eng.dedupString(g.dedup, 'p0', true)).toBe(DEDUP_NEW);
      expect(eng.dedupString(g.dedup, 'p1', true)).toBe(DEDUP_WAS_PENDING);
    }
  });
});
