import { describe, expect, it } from 'vitest';
import { HeldLine, LineSplitter } from '../../src/input/lines.js';

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

describe('HeldLine', () => {
  it('joins a line across chunks in one buffer it reuses, and a shorter line after a long one keeps nothing of it', () => {
    const h = new HeldLine(1 << 30);
    const a = 'a'.repeat(70_000);
    const b = 'b'.repeat(90_000);
    h.add(Buffer.from(a));
    h.add(Buffer.from(b)); // grows past the first buffer
    h.add(Buffer.from('c\r'));
    const t = h.take(true);
    expect(t.tooLong).toBeNull();
    if (t.tooLong !== null) return;
    expect(t.end).toBe(a.length + b.length + 1); // the \r before the newline dropped
    expect(t.line.toString('latin1', 0, t.end)).toBe(`${a}${b}c`);
    const nl = HeldLine.withNewline(t.line, t.end);
    expect(nl.length).toBe(t.end + 1);
    expect(nl[t.end]).toBe(10);
    expect(h.holding).toBe(false);
    h.add(Buffer.from('short'));
    expect(h.holding).toBe(true);
    const u = h.take(false);
    if (u.tooLong !== null) throw new Error('too long');
    expect(u.line.toString('latin1', 0, u.end)).toBe('short');
    // an unterminated line keeps its \r
    h.add(Buffer.from('x\r'));
    const v = h.take(false);
    if (v.tooLong !== null) throw new Error('too long');
    expect(v.line.toString('latin1', 0, v.end)).toBe('x\r');
  });

  it('lets a buffer of more than 4 MB go with its line, and holds the next line whole', () => {
    const h = new HeldLine(1 << 30);
    const big = Buffer.alloc(5 << 20, 0x41);
    h.add(big);
    const t = h.take(true);
    if (t.tooLong !== null) throw new Error('too long');
    expect(t.end).toBe(5 << 20);
    expect(t.line.every((c) => c === 0x41)).toBe(true);
    h.add(Buffer.from('{"after":1}'));
    const u = h.take(true);
    if (u.tooLong !== null) throw new Error('too long');
    expect(u.line.toString('utf8', 0, u.end)).toBe('{"after":1}');
  });

  it('past the cap counts the bytes and keeps the first 200 of them, held parts first', () => {
    const h = new HeldLine(300);
    h.add(Buffer.from('p'.repeat(150)));
    h.add(Buffer.from('q'.repeat(200)));
    h.add(Buffer.from('r'.repeat(50)));
    expect(h.holding).toBe(true);
    const t = h.take(true);
    expect(t.tooLong).toBe(400);
    if (t.tooLong === null) return;
    expect(t.head.toString()).toBe('p'.repeat(150) + 'q'.repeat(50));
    expect(h.holding).toBe(false);
    h.add(Buffer.from('ok'));
    const u = h.take(true);
    if (u.tooLong !== null) throw new Error('too long');
    expect(u.line.toString('utf8', 0, u.end)).toBe('ok');
  });
});
