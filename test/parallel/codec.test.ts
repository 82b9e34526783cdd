// The codec partial results cross processes with (issue 24): what structured clone keeps, as explicit JSON.
import { describe, expect, it } from 'vitest';
import { decodeState, encodeState } from '../../src/parallel/codec.js';

describe('encodeState / decodeState', () => {
  it.each([
    ['a Map with number keys', new Map([[1, 'a'], [2, 'b']])],
    ['a Set of strings', new Set(['x', 'y'])],
    ['nested Maps of tuples', { m: new Map([['k', new Map([[3, [1, 2, 3]]])]]) }],
    ['NaN and the infinities', [Number.NaN, Infinity, -Infinity, 0]],
    ['undefined inside an array', [1, undefined, 3]],
    ['a typed array', new Float64Array([1.5, -2])],
    ['a bigint', { n: 12345678901234567890n }],
    ['an object whose only key looks like a tag', { $map: [1, 2] }],
    ['an empty Map and Set', { a: new Map(), b: new Set() }],
  ])('round-trips %s', (_name, v) => {
    expect(decodeState(encodeState(v))).toEqual(v);
  });

  it('writes plain JSON with tags, readable by any JSON reader', () => {
    expect(JSON.parse(encodeState({ s: new Set([1]), m: new Map([['a', 1]]) }))).toEqual({ s: { $set: [1] }, m: { $map: [['a', 1]] } });
  });

  it('drops properties set to undefined, as a missing property reads the same', () => {
    expect(encodeState({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  it('refuses a cycle and a function', () => {
    const o: Record<string, unknown> = {};
    o.self = o;
    expect(() => encodeState(o)).toThrow(/cycle/);
    expect(() => encodeState({ f: () => 1 })).toThrow(/function/);
  });

  it('revives a class instance as a plain object with its fields (the reader revives it, as after structured clone)', () => {
    class Series {
      buckets = new Map([[1, 2]]);
      widthMs = 1000;
      add(): void {}
    }
    expect(decodeState(encodeState(new Series()))).toEqual({ buckets: new Map([[1, 2]]), widthMs: 1000 });
  });
});
