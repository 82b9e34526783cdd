// The bad-input catalogue (issue 4): every kind gets a fixture (fixtures/bad/, or made here when too big or
// not storable in git) and exact counts: what was recovered, what was skipped and why, and the exit code.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { auditLine, runCli } from './support.js';
import type { ScanReport } from '../src/analyze/report.js';

type Want = { lines: number; auditEvents: number; otherLines?: number; skippedLines: number; blankLines?: number; repairedLines?: number; requests: number; reasons?: Record<string, number>; code: number; error?: RegExp };

const CATALOGUE: Array<[string, string, Want]> = [
  // Nothing to analyse is not an all-clear (issue 11): exit 1, and stderr says what the input looked like.
  ['1 an empty file', '01-empty.log', { lines: 0, auditEvents: 0, skippedLines: 0, requests: 0, code: 1 }],
  ['2 a file with only a BOM', '02-bom-only.log', { lines: 1, auditEvents: 0, skippedLines: 0, blankLines: 1, requests: 0, code: 1 }],
  ['3 CRLF line endings', '03-crlf.log', { lines: 3, auditEvents: 3, skippedLines: 0, requests: 3, code: 0 }],
  ['4 invalid UTF-8 inside a string', '04-invalid-utf8.log', { lines: 2, auditEvents: 2, skippedLines: 0, repairedLines: 1, requests: 2, code: 0 }],
  ['5 NUL bytes (a NUL run before a line, and one inside a string)', '05-nul-bytes.log', { lines: 2, auditEvents: 2, skippedLines: 0, repairedLines: 2, requests: 2, code: 0 }],
  ['7 a truncated last line', '07-truncated-tail.log', { lines: 3, auditEvents: 2, skippedLines: 1, requests: 2, reasons: { 'truncated last line': 1 }, code: 0 }],
  ['8 garbage lines between good ones', '08-garbage-between.log', { lines: 5, auditEvents: 2, skippedLines: 3, requests: 2, reasons: { 'not a known format': 2, 'not JSON': 1 }, code: 0 }],
  ['9 JSON that is not an audit event', '09-not-events.log', { lines: 7, auditEvents: 1, skippedLines: 6, requests: 1, reasons: { 'not a known format': 3, 'JSON is not an audit event': 2, 'batch item is not an audit event': 1 }, code: 0 }],
  ['10 an audit event with wrong types', '10-wrong-types.log', { lines: 5, auditEvents: 1, skippedLines: 4, requests: 1, reasons: { 'invalid audit event: verb is not a string': 1, 'invalid audit event: requestURI is not a string': 1, 'invalid audit event: user is not an object': 1, 'invalid audit event: stage is not a string': 1 }, code: 0 }],
  ['11 missing timestamps', '11-missing-timestamps.log', { lines: 2, auditEvents: 2, skippedLines: 0, requests: 2, code: 0 }],
  ['12 an unknown apiVersion', '12-unknown-apiversion.log', { lines: 2, auditEvents: 1, skippedLines: 1, requests: 1, reasons: { 'invalid audit event: unknown apiVersion': 1 }, code: 0 }],
  ['13 a gzip file cut in the middle', '13-gzip-cut.log.gz', { lines: 1, auditEvents: 0, skippedLines: 1, requests: 0, reasons: { 'truncated last line': 1 }, code: 1, error: /unexpected end of file/ }],
  ['14 a gzip with trailing garbage', '14-gzip-trailing-garbage.log.gz', { lines: 2, auditEvents: 2, skippedLines: 0, requests: 2, code: 1, error: /9 bytes of trailing data/ }],
  ['15 a multi-member gzip', '15-multi-member.log.gz', { lines: 3, auditEvents: 3, skippedLines: 0, requests: 3, code: 0 }],
  ['19 interleaved klog and JSON lines', '19-klog-interleaved.log', { lines: 5, auditEvents: 2, otherLines: 3, skippedLines: 0, requests: 2, code: 0 }],
  ['20 events out of time order', '20-out-of-order.log', { lines: 3, auditEvents: 3, skippedLines: 0, requests: 3, code: 0 }],
];

async function check(args: string[], w: Want, stdin: string | Buffer | null = null): Promise<ScanReport> {
  const r = await runCli(['-o', 'json', ...args], stdin);
  expect(r.code).toBe(w.code);
  const rep = JSON.parse(r.stdout) as ScanReport;
  const i = rep.inputs[0]!;
  expect({ lines: i.lines, auditEvents: i.auditEvents, skippedLines: i.skippedLines }).toEqual({ lines: w.lines, auditEvents: w.auditEvents, skippedLines: w.skippedLines });
  expect(i.otherLines).toBe(w.otherLines ?? 0);
  expect(i.blankLines).toBe(w.blankLines ?? 0);
  expect(i.repairedLines).toBe(w.repairedLines ?? 0);
  expect(rep.totals.requests).toBe(w.requests);
  expect(i.skipReasons).toEqual(w.reasons ?? {});
  if (w.error) expect(i.error).toMatch(w.error);
  else expect(i.error).toBeNull();
  // The summary on stderr names the file and the reasons.
  if (w.skippedLines > 0) expect(r.stderr).toContain(`skipped ${w.skippedLines} of ${w.lines} lines`);
  return rep;
}

describe('bad-input catalogue', () => {
  it.each(CATALOGUE)('%s', async (_what, file, want) => {
    await check([`fixtures/bad/${file}`], want);
  });

  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-bad-'));

  it('6 a 5 MB line', async () => {
    const f = join(dir, 'big-line.log');
    writeFileSync(f, auditLine({ auditID: 'big', userAgent: 'x'.repeat(5 << 20) }) + '\n' + auditLine({ auditID: 'after' }) + '\n');
    await check([f], { lines: 2, auditEvents: 2, skippedLines: 0, requests: 2, code: 0 });
  });

  it('14 a gzip followed by bytes that are not gzip: its lines are read but for at most 1 MB before the garbage', async () => {
    // zlib fails in the call that reaches the garbage and drops that call's output, one chunk of 1 MB at most
    // (src/input/sources.ts readBytes), however the compressed bytes were sliced
    const lines = Array.from({ length: 20_000 }, (_, i) => auditLine({ auditID: `tg-${i}`, requestURI: `/api/v1/namespaces/a/pods?limit=${i}` }));
    const f = join(dir, 'trailing-junk.log.gz');
    writeFileSync(f, Buffer.concat([gzipSync(lines.join('\n') + '\n'), Buffer.from('not gzip at all, appended by a broken rotation')]));
    const r = await runCli(['-o', 'json', '-j', '1', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('trailing data after the gzip stream (incorrect header check); up to 1 MB of the lines just before it may be missing');
    const read = (JSON.parse(r.stdout) as ScanReport).totals.requests;
    const shortest = Math.min(...lines.map((l) => l.length + 1));
    expect(read).toBeLessThanOrEqual(20_000);
    expect(read).toBeGreaterThanOrEqual(20_000 - Math.ceil((1 << 20) / shortest) - 1);
  });

  it('16 a directory containing a symlink loop', async () => {
    const d = join(dir, 'loop');
    mkdirSync(join(d, 'sub'), { recursive: true });
    writeFileSync(join(d, 'sub', 'a.log'), auditLine({ auditID: 's1' }) + '\n');
    symlinkSync('..', join(d, 'sub', 'back'));
    const r = await runCli(['-o', 'json', d]);
    expect(JSON.parse(r.stdout).totals.requests).toBe(1);
    expect(r.stderr).toContain('symlink loop, not followed');
    expect(r.code).toBe(1);
  });

  it('17 a file that fails as it is read (EIO; also as root, unlike a permission test): reported, the rest is read', async () => {
    // /proc/self/mem stats as a regular file and fails on its first read: the read-error path, for any user.
    const r = await runCli(['-o', 'json', '/proc/self/mem', 'fixtures/bad/03-crlf.log']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('/proc/self/mem: input/output error while reading (EIO: the disk, the file system or the device failed)');
    const rep = JSON.parse(r.stdout) as ScanReport;
    expect(rep.inputs[0]).toMatchObject({ name: '/proc/self/mem', lines: 0, error: 'input/output error while reading (EIO: the disk, the file system or the device failed)' });
    expect(rep.totals.requests).toBe(3);
  });

  it('17 an unreadable input (a path that is not a file) is reported and the rest is read', async () => {
    const r = await runCli(['-o', 'json', '/dev/null/nope', 'fixtures/bad/03-crlf.log']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\/dev\/null\/nope: /);
    expect(JSON.parse(r.stdout).totals.requests).toBe(3);
  });

  it.skipIf(process.env.AUDIT_SCAN_MUTATION === '1')('18 an EventList of 100k items in one document, on one line and pretty-printed', async () => {
    const items = Array.from({ length: 100_000 }, (_, i) => JSON.parse(auditLine({ auditID: `e${i}`, verb: i % 2 ? 'get' : 'list' })));
    const doc = { kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items };
    const one = join(dir, 'eventlist.json');
    writeFileSync(one, JSON.stringify(doc) + '\n');
    const rep = await check([one], { lines: 1, auditEvents: 100_000, skippedLines: 0, requests: 100_000, code: 0 });
    expect(rep.totals.listRequests).toBe(50_000);
    const pretty = join(dir, 'eventlist-pretty.json');
    writeFileSync(pretty, JSON.stringify({ ...doc, items: items.slice(0, 20_000) }, null, 1) + '\n');
    const r = await runCli(['-o', 'json', pretty]);
    const p = JSON.parse(r.stdout) as ScanReport;
    expect(p.inputs[0]).toMatchObject({ format: 'documents', auditEvents: 20_000, skippedItems: 0 });
  }, 120_000);
  it('20 a file that opens like a JSON document and is not one ends with its error, never hangs', async () => {
    // "[" then a brace, a first line ending in ",", then 4 MB that is no JSON: the parser fails while its buffer is
    // full (the read used to wait for a drain that never came)
    const f = join(dir, 'not-a-document.json');
    writeFileSync(f, '[{"kind": "Event",\n' + 'x'.repeat(4 << 20) + '\n');
    const r = await runCli(['-o', 'json', f]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).inputs[0].error ?? r.stderr).toMatch(/JSON|document/);
  }, 30_000);
});
