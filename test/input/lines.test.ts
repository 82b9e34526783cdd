import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/input/lines.js';

function split(chunks: string[], max = 1 << 20): { lines: Array<[number, string, boolean]>; long: Array<[number, number]> } {
  const lines: Array<[number, string, boolean]> = [];
  const long: Array<[number, number]> = [];
  const s = new LineSplitter((b, st, en, n, t) => lines.push([n, b.toString('utf8', st, en), t]), (n, bytes) => long.push([n, bytes]), max);
  for (const c of chunks) s.push(Buffer.from(c));
  s.end();
  return { lines, long };
}

describe('LineSplitter', () => {
  it('splits on \\n, drops \\r, and flags a last line without a newline', () => {
    expect(split(['a\r\nb\n', 'c']).lines).toEqual([[1, 'a', true], [2, 'b', true], [3, 'c', false]]);
  });
  it('gives the same lines whatever the chunking, down to 1 byte', () => {
    const text = 'one\ntwo\r\n\nthree';
    const whole = split([text]).lines;
    expect(split(text.split('')).lines).toEqual(whole);
    expect(split([text.slice(0, 5), text.slice(5)]).lines).toEqual(whole);
  });
  it('counts a line longer than the cap without holding it, and goes on', () => {
    const r = split(['x'.repeat(60), 'y'.repeat(60), 'z\nnext\n'], 100);
    expect(r.long).toEqual([[1, 121]]);
    expect(r.lines).toEqual([[2, 'next', true]]);
  });
});
