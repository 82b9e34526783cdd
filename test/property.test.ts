// Property test (issue 4): random valid events mixed with random corruptions. Whatever the corruption, every
// valid event is recovered exactly, and the answer does not depend on how the bytes arrive: whole, in 1-byte
// chunks, split across two files, gzipped, or read by several threads. Seeded, so a failure reproduces.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.js';
import type { ScanReport } from '../src/analyze/report.js';
import { makeCase } from './generated-logs.js';

async function scan(args: string[], stdin: Readable | null = null, env: Record<string, string> = {}): Promise<ScanReport> {
  let out = '';
  const stdout = new Writable({ write: (c, _e, cb) => ((out += c), cb()) });
  const stderr = new Writable({ write: (_c, _e, cb) => cb() });
  const code = await run(['-o', 'json', '--top', '100', ...args], { stdin: stdin ?? Readable.from([]), stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, columns: undefined, env });
  expect(code).toBe(0);
  return JSON.parse(out) as ScanReport;
}

/** What must not depend on how the bytes arrived. */
function answer(r: ScanReport) {
  const sum = (k: 'lines' | 'auditEvents' | 'skippedLines' | 'otherLines' | 'blankLines' | 'repairedLines') => r.inputs.reduce((s, i) => s + i[k], 0);
  return { totals: r.totals, listGroups: r.listGroups, getGroups: r.getGroups, findings: r.findings, topUserAgents: r.topUserAgents, auditEvents: sum('auditEvents'), repaired: sum('repairedLines') };
}

describe('property: valid events survive any corruption and any delivery', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-prop-'));
  it.each(Array.from({ length: 12 }, (_, i) => i + 1))('seed %i', async (seed) => {
    const c = makeCase(seed);
    const whole = join(dir, `s${seed}.log`);
    writeFileSync(whole, c.bytes);
    const a = await scan([whole]);
    expect(a.totals.requests).toBe(c.requests);
    expect(a.totals.listRequests).toBe(c.lists);
    const ref = answer(a);
    // 1-byte chunks on stdin
    const bytes = [...c.bytes].map((b) => Buffer.from([b]));
    expect(answer(await scan(['-'], Readable.from(bytes)))).toEqual(ref);
    // gzipped
    const gz = join(dir, `s${seed}.log.gz`);
    writeFileSync(gz, gzipSync(c.bytes));
    expect(answer(await scan([gz]))).toEqual(ref);
    // split across two files at a line boundary (the second keeps no BOM)
    const p1 = join(dir, `s${seed}.part1.log`);
    const p2 = join(dir, `s${seed}.part2.log`);
    writeFileSync(p1, c.bytes.subarray(0, c.cut));
    writeFileSync(p2, c.bytes.subarray(c.cut));
    const split = answer(await scan([p1, p2]));
    expect({ ...split, totals: { ...split.totals } }).toEqual(ref);
    // two threads, cut every 512 bytes
    expect(answer(await scan(['-j', '2', whole], null, { AUDIT_SCAN_MIN_SPLIT_BYTES: '512' }))).toEqual(ref);
  }, 60_000);
});
