// bin/ starts the scan worker before the CLI's bundle loads when argv looks like a scan that cuts a big plain file
// into ranges (src/cli/prewarm.ts); the pool takes it, or the scan ends it.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { wantsWorker } from '../../src/cli/prewarm.js';
import { dropParkedWorker, parkWorker, takeParkedWorker } from '../../src/parallel/prewarm.js';

const dir = mkdtempSync(join(tmpdir(), 'prewarm-'));
const big = join(dir, 'big.log');
const small = join(dir, 'small.log');
const gz = join(dir, 'big.log.gz');
const sub = join(dir, 'logs');
writeFileSync(big, '{"kind":"Event"}\n'.repeat(1000)); // 17,000 bytes
writeFileSync(small, '{"kind":"Event"}\n');
writeFileSync(gz, Buffer.concat([gzipSync('{"kind":"Event"}\n'.repeat(1000)), Buffer.alloc(20_000)]));
mkdirSync(sub);
const env = { AUDIT_SCAN_MIN_SPLIT_BYTES: '10000' };
const auto = Math.min(availableParallelism(), 8) > 1;

describe('prewarm: when bin/ starts the scan worker early', () => {
  it.each([
    ['a big plain file', [big], auto],
    ['a big plain file, options first', ['-o', 'json', '--top', '5', big], auto],
    ['-j 2', ['-j', '2', big], true],
    ['-j2', ['-j2', big], true],
    ['--threads=3', ['--threads=3', big], true],
    ['-j 1', ['-j', '1', big], false],
    ['-j1', [big, '-j1'], false],
    ['--threads 1', ['--threads', '1', big], false],
    ['the last -j wins', ['-j', '1', '-j', '2', big], true],
    ['a small file', [small], false],
    ['a gzip file (inflated on a thread of its own, scanned on this one)', [gz], false],
    ['a directory', [sub], false],
    ['stdin', ['-'], false],
    ['no argument', [], false],
    ['a command word', ['load', big], false],
    ['sql', ['sql', '--db', big, 'select 1'], false],
    ['--help', [big, '--help'], false],
    ['--version', ['--version'], false],
    ['--follow', ['--follow', big], false],
    ['a file that is not there', [join(dir, 'nope.log')], false],
  ])('%s', (_, argv, want) => {
    expect(wantsWorker(argv, env)).toBe(want);
  });
  it('the size that counts is the scan\'s: 32 MB unless AUDIT_SCAN_MIN_SPLIT_BYTES says otherwise', () => {
    expect(wantsWorker(['-j', '2', big], {})).toBe(false);
    expect(wantsWorker(['-j', '2', big], { AUDIT_SCAN_MIN_SPLIT_BYTES: '17000' })).toBe(true);
    expect(wantsWorker(['-j', '2', big], { AUDIT_SCAN_MIN_SPLIT_BYTES: '17001' })).toBe(false);
  });
  it('a parked worker is taken once, alive, and a drop ends one nobody took', async () => {
    parkWorker();
    const w = takeParkedWorker();
    expect(w).toBeDefined();
    expect(takeParkedWorker()).toBeUndefined();
    const exited = new Promise<number>((res) => w!.once('exit', res));
    await w!.terminate();
    await exited;
    parkWorker();
    dropParkedWorker();
    expect(takeParkedWorker()).toBeUndefined();
  });
});
