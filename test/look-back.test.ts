// The look-back across segments (src/aggregate/look-back.ts) against a model: the window is the last `cap` IDs of
// the tails laid end to end, with an ID standing in it as often as the tails hold it.
import { describe, expect, it } from 'vitest';
import { LookBack } from '../src/aggregate/look-back.js';
import { idTailOf, tailIds, keyHash, EMPTY_TAIL } from '../src/decode/id-keys.js';
import { mulberry32 } from '../fixtures/prng.mjs';

describe('the look-back across segments', () => {
  // A pool of a few IDs fills the window with copies of each: runs of equal hashes in the table, entries away from
  // their home slot, runs that wrap past its end (a window of 5 has a table of 32).
  it.each([
    [1, 400],
    [3, 400],
    [64, 400],
    [1000, 400],
    [5, 3],
    [64, 5],
    [300, 12],
  ])('answers as the last %i IDs of the tails would, duplicates and all (%i IDs)', (cap, ids) => {
    const r = mulberry32(cap * 31 + ids);
    const pool = Array.from({ length: ids }, (_, i) => (i % 7 === 0 ? `\ud800${i}` : i % 7 === 1 ? `\ufffd${i}` : i % 7 === 2 ? `${'x'.repeat(i)}` : `id-${i}`));
    const lb = new LookBack(cap);
    let window: string[] = [];
    let hits = 0;
    for (let step = 0; step < 300; step++) {
      const n = Math.floor(r() * (r() < 0.1 ? cap * 3 : 20));
      const ids = Array.from({ length: n }, () => pool[Math.floor(r() * pool.length)]!);
      lb.push(idTailOf(ids));
      window = [...window, ...ids].slice(-cap);
      expect(lb.size).toBe(window.length);
      const asked: string[] = [];
      for (let q = 0; q < 20; q++) {
        const id = window.length > 0 && r() < 0.3 ? window[Math.floor(r() * window.length)]! : pool[Math.floor(r() * pool.length)]!;
        const want = window.includes(id);
        if (want) hits++;
        if (lb.has(id) !== want) throw new Error(`step ${step}: ${JSON.stringify(id)}: want ${want}`);
        asked.push(id);
      }
      // the same, asked at once (duplicates among them too), as reconcile() asks
      const all = [...asked, ...asked.slice(0, 3)];
      expect([...lb.findAll(all)].sort()).toEqual([...new Set(all.filter((id) => window.includes(id)))].sort());
    }
    expect(hits).toBeGreaterThan(50);
  });

  it('keeps an ID a later tail repeats after its first place leaves the window', () => {
    const lb = new LookBack(3);
    lb.push(idTailOf(['a', 'b']));
    lb.push(idTailOf(['a', 'c'])); // window b a c
    expect(lb.has('a')).toBe(true);
    lb.push(idTailOf(['d'])); // a c d
    expect([lb.has('a'), lb.has('b'), lb.has('c'), lb.has('d')]).toEqual([true, false, true, true]);
    lb.push(idTailOf(['e'])); // c d e
    expect(lb.has('a')).toBe(false);
    lb.push(EMPTY_TAIL);
    expect(lb.size).toBe(3);
  });

  it('writes keys as the engine reads IDs: UTF-8, and 0xFF then UTF-16LE for a string with a lone surrogate', () => {
    const t = idTailOf(['ab', 'ñ', '\ud800']);
    expect([...t.bytes]).toEqual([0x61, 0x62, 0xc3, 0xb1, 0xff, 0x00, 0xd8]);
    expect([...t.ends]).toEqual([2, 4, 7]);
  });

  it('tells a lone surrogate from U+FFFD, and gives tails back as they were', () => {
    const ids = ['\ud800x', '\ufffdx', 'ñ', ''];
    expect(tailIds(idTailOf(ids))).toEqual(ids);
    const lb = new LookBack(8);
    lb.push(idTailOf(['\ud800x']));
    expect(lb.has('\ud800x')).toBe(true);
    expect(lb.has('\ufffdx')).toBe(false);
  });

  it('verifies a hash that matches on the bytes: two IDs of one hash stay apart', () => {
    // two IDs whose 32-bit hashes are equal, found by the birthday bound among a few hundred thousand
    const seen = new Map<number, string>();
    let pair: [string, string] | null = null;
    for (let i = 0; pair === null; i++) {
      const id = `id-${i}`;
      const h = keyHash(Buffer.from(id), 0, id.length);
      const other = seen.get(h);
      if (other !== undefined) pair = [other, id];
      else seen.set(h, id);
    }
    const lb = new LookBack(4);
    lb.push(idTailOf([pair[0]]));
    expect(lb.has(pair[0])).toBe(true);
    expect(lb.has(pair[1])).toBe(false);
  });
  it('moves back only the entries a freed slot cuts off from their home, where the table wraps too', () => {
    // IDs by their home slot in the 16-slot table of a window of 3
    const home = (id: string): number => keyHash(Buffer.from(id), 0, id.length) & 15;
    const withHome = (h: number, not: string[] = []): string => {
      for (let i = 0; ; i++) if (home(`id-${i}`) === h && !not.includes(`id-${i}`)) return `id-${i}`;
    };
    const a = withHome(15);
    const d = withHome(0); // sits in slot 0, its home, after a (slot 15)
    const b = withHome(15, [a]); // home 15, so it wraps: slot 1
    const lb = new LookBack(3);
    lb.push(idTailOf([a, d, b]));
    lb.push(idTailOf([withHome(7)])); // a leaves: d stays in slot 0, b moves back to 15
    expect([lb.has(a), lb.has(d), lb.has(b)]).toEqual([false, true, true]);
    lb.push(idTailOf([withHome(8)])); // d leaves
    expect([lb.has(d), lb.has(b)]).toEqual([false, true]);
  });

  it('hashes keys apart (a hash that ignored its bytes would make every probe walk the whole window)', () => {
    const keys = ['a', 'b', 'id-1', 'id-2', '5f1c2d3e-0000-4000-8000-000000000001'].map((k) => keyHash(Buffer.from(k), 0, k.length));
    expect(new Set(keys).size).toBe(5);
  });
});
