import { describe, expect, it } from 'vitest';
import { formatCount } from '../../src/model/count-format.js';

describe('formatCount', () => {
  // worked by hand, then what ICU writes for the same values
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1,000'],
    [4800, '4,800'],
    [7130, '7,130'],
    [13313287, '13,313,287'],
    [123456789012, '123,456,789,012'],
    [-1234567, '-1,234,567'],
    [1234.5, '1,235'],
    [0.4, '0'],
    [999.5, '1,000'],
  ])('%s → %s', (n, want) => {
    expect(formatCount(n)).toBe(want);
    expect(formatCount(n)).toBe(Math.round(n).toLocaleString('en-US'));
  });

  it('agrees with toLocaleString on seeded values, ICU\'s own cases included', () => {
    let x = 12345;
    const values = [-0.2, Infinity, -Infinity, NaN, 1e21, 2 ** 53, Number.MAX_SAFE_INTEGER, -(2 ** 40)];
    for (let i = 0; i < 2000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      values.push((x / 2147483648) * 10 ** (i % 16) * (i % 7 === 0 ? -1 : 1));
    }
    for (const v of values) expect(formatCount(v)).toBe(Math.round(v).toLocaleString('en-US'));
  });
});
