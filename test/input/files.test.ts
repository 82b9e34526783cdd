// How a path is read: a regular file synchronously into one reused buffer (segment/source.ts plainFileChunks), a gzip file,
// a named pipe or a device as a stream (a gzip file's compressed bytes read by the inflate thread itself, a pipe's
// not: it has no offsets). The pipe case matters because opening a FIFO blocks until a writer comes:
// the scan must wait for it without blocking, and must not close it on the writer after a peek.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { auditLine, spawnCli } from '../support.js';

const lines = Array.from({ length: 30 }, (_, i) => auditLine({ auditID: `f-${i}`, requestReceivedTimestamp: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000000Z`, stageTimestamp: `2026-01-01T00:00:${String(i).padStart(2, '0')}.100000Z` })).join('\n') + '\n';

describe('reading a path', () => {
  it('a regular file, its gzip, and a named pipe written after the scan opened it give the same report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-files-'));
    const plain = join(dir, 'a.log');
    const gz = join(dir, 'a.log.gz');
    mkdirSync(join(dir, 'pipe'));
    const fifo = join(dir, 'pipe', 'a.log'); // the same name: the report names its input's apiserver from it
    writeFileSync(plain, lines);
    writeFileSync(gz, gzipSync(lines));
    execFileSync('mkfifo', [fifo]);
    const a = await spawnCli(['-o', 'json', plain]);
    const b = await spawnCli(['-o', 'json', gz]);
    // the writer opens the pipe only after a delay: the scan is waiting in open() by then
    const writer = spawn('sh', ['-c', `sleep 0.5; cat '${plain}' > '${fifo}'`]);
    const written = new Promise<number | null>((r) => writer.on('close', r));
    const c = await spawnCli(['-o', 'json', fifo]);
    expect(await written).toBe(0);
    for (const r of [a, b, c]) {
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).totals.requests).toBe(30);
    }
    const strip = (s: string): unknown => ({ ...JSON.parse(s), inputs: null, apiservers: null }); // what names the input
    expect(strip(b.stdout)).toEqual(strip(a.stdout));
    expect(strip(c.stdout)).toEqual(strip(a.stdout));
  }, 20_000);

  it('gzip through a named pipe, inflated on its own thread, reads as the gzip file does (a pipe has no offsets)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-files-'));
    const gz = join(dir, 'a.log.gz');
    writeFileSync(gz, gzipSync(lines));
    mkdirSync(join(dir, 'pipe'));
    const fifo = join(dir, 'pipe', 'a.log.gz');
    execFileSync('mkfifo', [fifo]);
    const env = { AUDIT_SCAN_INFLATE_MIN_BYTES: '0' };
    const file = await spawnCli(['-o', 'json', gz], null, { env });
    const writer = spawn('sh', ['-c', `cat '${gz}' > '${fifo}'`]);
    const written = new Promise<number | null>((r) => writer.on('close', r));
    const piped = await spawnCli(['-o', 'json', fifo], null, { env });
    expect(await written).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.code).toBe(0);
    const strip = (s: string): unknown => ({ ...JSON.parse(s), inputs: null, apiservers: null }); // what names the input
    expect(strip(piped.stdout)).toEqual(strip(file.stdout));
    expect(JSON.parse(piped.stdout).totals.requests).toBe(30);
  }, 20_000);
});
