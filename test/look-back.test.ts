// The look-back across segments (src/aggregate/look-back.ts) against a model: the window is the last `cap` IDs of
// the tails laid end to end, with an ID standing in it as often as the tails hold it.
import { describe, expect, it } from 'vitest';
import { LookBack } from '../src/aggregate/look-back.js';
import { idTailOf, tailIds, keyHash, EMPTY_TAIL } from '../src/decode/id-keys.js';
import { mulberry32 } from '../fixtures/prng.mjs';

describe('the look-back across segments', () => {
  it.each([1, 3, 64, 1000])('answers as the last %i IDs of the tails would, duplicates and all', (cap) => {
    const r = mulberry32(cap * 31);
    const pool = Array.from({ length: 400 }, (_, i) => (i % 7 === 0 ? `\ud800${i}` : i % 7 === 1 ? `\ufffd${i}` : i % 7 === 2 ? `${'x'.repeat(i)}` : `id-${i}`));
    const lb = new LookBack(cap);
    let window: string[] = [];
    let hits = 0;
    for (let step = 0; step < 300; step++) {
      const n = Math.floor(r() * (r() < 0.1 ? cap * 3 : 20));
      const ids = Array.from({ length: n }, () => pool[Math.floor(r() * pool.length)]!);
      lb.push(idTailOf(ids));
      window = [...window, ...ids].slice(-cap);
      expect(lb.size).toBe(window.length);
      for (let q = 0; q < 20; q++) {
        const id = window.length > 0 && r() < 0.3 ? window[Math.floor(r() * window.length)]! : pool[Math.floor(r() * pool.length)]!;
        const want = window.includes(id);
        if (want) hits++;
        if (lb.has(id) !== want) throw new Error(`step ${step}: ${JSON.stringify(id)}: want ${want}`);
      }
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
});
