// bin/ starts the workers a scan will need before the CLI's bundle loads (src/cli/prewarm.ts): the scan pool's
// first worker for a big plain file, the inflate thread for a gzip file; their users take them, or the scan ends
// them (src/input/parked.ts).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { LANE_INTERRUPT_BUDGET, interruptBudget, wantedWorkers } from '../../src/cli/prewarm.js';
import { dropParked, isParked, park, takeParked } from '../../src/input/parked.js';
import { parkWorker, takeParkedWorker } from '../../src/parallel/prewarm.js';
import { Worker } from 'node:worker_threads';

const dir = mkdtempSync(join(tmpdir(), 'prewarm-'));
const big = join(dir, 'big.log');
const small = join(dir, 'small.log');
const gz = join(dir, 'big.log.gz');
const sub = join(dir, 'logs');
writeFileSync(big, '{"kind":"Event"}\n'.repeat(1000)); // 17,000 bytes
writeFileSync(small, '{"kind":"Event"}\n');
writeFileSync(gz, Buffer.concat([gzipSync('{"kind":"Event"}\n'.repeat(1000)), Buffer.alloc(20_000)]));
mkdirSync(sub);
const env = { AUDIT_SCAN_MIN_SPLIT_BYTES: '10000', AUDIT_SCAN_INFLATE_MIN_BYTES: '10000' };
const auto = Math.min(availableParallelism(), 8) > 1;

describe('prewarm: which workers bin/ starts early', () => {
  const S = { scan: true, inflate: false };
  const I = { scan: false, inflate: true };
  const NONE = { scan: false, inflate: false };
  const A = auto ? S : NONE;
  it.each([
    ['a big plain file', [big], A],
    ['a big plain file, options first', ['-o', 'json', '--top', '5', big], A],
    ['-j 2', ['-j', '2', big], S],
    ['-j2', ['-j2', big], S],
    ['--threads=3', ['--threads=3', big], S],
    ['-j 1', ['-j', '1', big], NONE],
    ['-j1', [big, '-j1'], NONE],
    ['--threads 1', ['--threads', '1', big], NONE],
    ['the last -j wins', ['-j', '1', '-j', '2', big], S],
    ['a small file', [small], NONE],
    ['a gzip file: the inflate thread, at any -j', ['-j', '1', gz], I],
    ['a gzip file and a big plain one', ['-j', '2', gz, big], { scan: true, inflate: true }],
    ['a directory', [sub], NONE],
    ['stdin', ['-'], NONE],
    ['no argument', [], NONE],
    ['a command word', ['load', big], NONE],
    ['sql', ['sql', '--db', big, 'select 1'], NONE],
    ['--help', [big, '--help'], NONE],
    ['--version', ['--version'], NONE],
    ['--follow', ['--follow', big, gz], NONE],
    ['a file that is not there', [join(dir, 'nope.log')], NONE],
  ])('%s', (_, argv, want) => {
    expect(wantedWorkers(argv, env)).toEqual(want);
  });
  it("the sizes that count are the scan's: 32 MB and 1 MB unless AUDIT_SCAN_MIN_SPLIT_BYTES and AUDIT_SCAN_INFLATE_MIN_BYTES say otherwise", () => {
    expect(wantedWorkers(['-j', '2', big, gz], {})).toEqual(NONE);
    expect(wantedWorkers(['-j', '2', big], { AUDIT_SCAN_MIN_SPLIT_BYTES: '17000' }).scan).toBe(true);
    expect(wantedWorkers(['-j', '2', big], { AUDIT_SCAN_MIN_SPLIT_BYTES: '17001' }).scan).toBe(false);
    expect(wantedWorkers([gz], { AUDIT_SCAN_INFLATE_MIN_BYTES: '0' }).inflate).toBe(true);
  });
  it.each([
    ['lanes on the engine', [big], {}, true, LANE_INTERRUPT_BUDGET],
    ['lanes, --engine wasm', ['--engine', 'wasm', big], {}, true, LANE_INTERRUPT_BUDGET],
    ['one lane', [big], {}, false, null],
    ['--engine js', ['--engine', 'js', big], {}, true, null],
    ['--engine=js', [big, '--engine=js'], {}, true, null],
    ['the last --engine wins', ['--engine', 'js', '--engine', 'wasm', big], {}, true, LANE_INTERRUPT_BUDGET],
    ['AUDIT_SCAN_ENGINE=js', [big], { AUDIT_SCAN_ENGINE: 'js' }, true, null],
    ['--engine wasm over AUDIT_SCAN_ENGINE=js', ['--engine', 'wasm', big], { AUDIT_SCAN_ENGINE: 'js' }, true, LANE_INTERRUPT_BUDGET],
    ['AUDIT_SCAN_INTERRUPT_BUDGET', [big], { AUDIT_SCAN_INTERRUPT_BUDGET: '500000' }, true, 500_000],
    ['AUDIT_SCAN_INTERRUPT_BUDGET empty: the default', [big], { AUDIT_SCAN_INTERRUPT_BUDGET: '' }, true, LANE_INTERRUPT_BUDGET],
    ['AUDIT_SCAN_INTERRUPT_BUDGET=0: V8\'s own', [big], { AUDIT_SCAN_INTERRUPT_BUDGET: '0' }, true, null],
    ['AUDIT_SCAN_INTERRUPT_BUDGET not a number', [big], { AUDIT_SCAN_INTERRUPT_BUDGET: 'lots' }, true, null],
  ])('interrupt budget: %s', (_, argv, e, lanes, want) => {
    expect(interruptBudget(argv, e, lanes)).toBe(want);
  });
  it('a parked worker is taken once, alive; a drop ends the ones nobody took', async () => {
    parkWorker();
    const w = takeParkedWorker();
    expect(w).toBeDefined();
    expect(takeParkedWorker()).toBeUndefined();
    const exited = new Promise<number>((res) => w!.once('exit', res));
    await w!.terminate();
    await exited;
    parkWorker();
    const other = new Worker('setInterval(() => {}, 1000)', { eval: true });
    park('other', other, 42);
    expect(isParked('scan') && isParked('other')).toBe(true);
    const gone = new Promise<number>((res) => other.once('exit', res));
    dropParked();
    await gone;
    expect(isParked('scan') || isParked('other')).toBe(false);
    expect(takeParkedWorker()).toBeUndefined();
  });
  it('a worker that died while parked is not handed out', async () => {
    const w = new Worker('process.exit(3)', { eval: true });
    park('dies', w, 'data');
    await new Promise((res) => w.once('exit', res));
    expect(takeParked('dies')).toBeUndefined();
    const alive = new Worker('setInterval(() => {}, 1000)', { eval: true });
    park('lives', alive, 'data');
    expect(takeParked('lives')).toEqual({ worker: alive, data: 'data' });
    await alive.terminate();
  });
});
