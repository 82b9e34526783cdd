// Golden tests: each fixtures/cases/<name>/ holds `args` and the expected stdout, stderr and exit code, run
// in-process with NO_COLOR, TZ=UTC and a fixed width (in args). A missing or different golden fails, always:
// goldens change only through `npm run golden:update`, which writes them and prints what changed, so a change
// is reviewed in the diff of the commit, never blessed by a flag.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './support.js';
import { lineDiff } from './line-diff.js';
import { vw } from '../src/render/layout.js';

const UPDATE = process.env.GOLDEN_UPDATE === '1';
const casesDir = join(ROOT, 'fixtures', 'cases');
const cases = readdirSync(casesDir).sort();

/** Compares `actual` with the golden file, or (golden:update) writes it and prints the diff. */
function golden(name: string, file: string, actual: string): void {
  const path = join(casesDir, name, file);
  const before = existsSync(path) ? readFileSync(path, 'utf8') : null;
  if (UPDATE) {
    if (before === actual) return;
    writeFileSync(path, actual);
    const what = before === null ? ['(new file)'] : lineDiff(before, actual);
    process.stdout.write(`golden ${name}/${file} changed:\n${what.map((l) => `  ${l}`).join('\n')}\n`);
    return;
  }
  if (before === null) throw new Error(`${path} is missing: run npm run golden:update, then review and commit it`);
  if (actual !== before) throw new Error(`${name}/${file} differs from its golden (if the change is intended, run npm run golden:update):\n${lineDiff(before, actual).join('\n')}`);
  expect(actual).toBe(before);
}

describe('golden output', () => {
  it.each(cases)('%s', async (name) => {
    const args = readFileSync(join(casesDir, name, 'args'), 'utf8').trim().split(/\s+/);
    const r = await runCli(args);
    const ext = args.includes('json') ? 'json' : args.includes('markdown') ? 'md' : args.includes('html') ? 'html' : 'txt';
    golden(name, `expected.stdout.${ext}`, r.stdout);
    // a table golden is checked against its width too, so a golden cannot bless a line that overflows
    const w = args.indexOf('--width');
    if (ext === 'txt' && w >= 0) expect(r.stdout.split('\n').filter((l) => vw(l) > Number(args[w + 1]))).toEqual([]);
    golden(name, 'expected.stderr', r.stderr);
    golden(name, 'exit-code', `${r.code}\n`);
  });
});
