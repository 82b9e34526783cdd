// signatureOf() takes common signatures from a table; every combination must equal the plain concatenation
// it replaced (the signature strings are keys in group state and in the DuckDB store).
import { describe, expect, it } from 'vitest';
import { querySignature, signatureOf } from '../../src/aggregate/read-groups.js';
import type { ListQuery } from '../../src/decode/request-uri.js';

const base: ListQuery = { fieldSelector: null, labelSelector: null, resourceVersion: null, resourceVersionMatch: null, limit: 0, continueToken: false, watch: false, sendInitialEvents: false };

function reference(q: ListQuery): string {
  const rv = q.resourceVersion ?? '';
  const rvClass = rv === '' ? '' : rv === '0' ? '0' : 'N';
  return `${rvClass}|${q.resourceVersionMatch ?? ''}|${q.limit > 0 ? 1 : 0}|${q.continueToken ? 1 : 0}|${q.sendInitialEvents ? 1 : 0}`;
}

describe('signatureOf', () => {
  it('equals the concatenated form for all 160 combinations, and round-trips through querySignature', () => {
    let n = 0;
    for (const resourceVersion of [null, '', '0', '123'])
      for (const resourceVersionMatch of [null, '', 'NotOlderThan', 'Exact', 'Weird|value'])
        for (const limit of [0, 500])
          for (const continueToken of [false, true])
            for (const sendInitialEvents of [false, true]) {
              const q = { ...base, resourceVersion, resourceVersionMatch, limit, continueToken, sendInitialEvents };
              expect(signatureOf(q)).toBe(reference(q));
              if (resourceVersionMatch !== 'Weird|value') expect(signatureOf(querySignature(signatureOf(q)))).toBe(signatureOf(q));
              n++;
            }
    expect(n).toBe(160);
  });
});
