// The slow-etcd-ranges table says how many reads failed, in every human format (one row builder for all).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support.js';

function slowRange(ts: string, key: string, error: string | null): string {
  return JSON.stringify({
    level: 'warn',
    ts,
    caller: 'etcdserver/util.go:170',
    msg: 'apply request took too long',
    took: '150ms',
    'expected-duration': '100ms',
    prefix: 'read-only range ',
    request: `key:"${key}" range_end:"${key.slice(0, -1)}0" `,
    response: error === null ? 'range_response_count:10 size:1000' : '',
    ...(error === null ? {} : { error }),
  });
}

// configmaps: 3 slow reads, 2 failed; secrets: 1 slow read, failed.
const log = [
  slowRange('2026-01-01T00:00:01Z', '/registry/configmaps/', 'context canceled'),
  slowRange('2026-01-01T00:00:02Z', '/registry/configmaps/', 'context canceled'),
  slowRange('2026-01-01T00:00:03Z', '/registry/configmaps/', null),
  slowRange('2026-01-01T00:00:04Z', '/registry/secrets/', 'etcdserver: request timed out'),
].join('\n');

describe('slow etcd ranges with failed reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-etcd-errors-'));
  const file = join(dir, 'etcd.log');
  writeFileSync(file, log + '\n');

  it('counts the failures in the JSON report', async () => {
    const r = await runCli(['-o', 'json', file]);
    const ranges = (JSON.parse(r.stdout) as { etcdRanges: Array<{ resource: string; reads: number; errors: number }> }).etcdRanges;
    expect(ranges.map((e) => [e.resource, e.reads, e.errors]).sort()).toEqual([
      ['configmaps', 3, 2],
      ['secrets', 1, 1],
    ]);
  });

  it.each([
    ['table', /configmaps\s.*\s2 errors/, /secrets\s.*\s1 error$/m],
    ['markdown', /\| configmaps \|.*\| 2 errors \|/, /\| secrets \|.*\| 1 error \|/],
    ['html', /<td>configmaps<\/td>.*<td>2 errors<\/td>/, /<td>secrets<\/td>.*<td>1 error<\/td>/],
  ])('%s says "2 errors" and "1 error" in the note', async (format, many, one) => {
    const r = await runCli(['-o', format, '--width', '200', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(many);
    expect(r.stdout).toMatch(one);
  });
});
