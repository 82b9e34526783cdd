// Golden tests: each fixtures/cases/<name>/ holds `args`; the expected stdout, stderr and exit code are
// file snapshots next to it. In CI vitest refuses to write a missing snapshot, so a new case must be reviewed
// and committed. Run in-process with NO_COLOR, a fixed width (in args) and TZ=UTC.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './support.js';

const casesDir = join(ROOT, 'fixtures', 'cases');
const cases = readdirSync(casesDir).sort();

describe('golden output', () => {
  it.each(cases)('%s', async (name) => {
    const args = readFileSync(join(casesDir, name, 'args'), 'utf8').trim().split(/\s+/);
    const r = await runCli(args);
    const ext = args.includes('json') ? 'json' : args.includes('markdown') ? 'md' : args.includes('html') ? 'html' : 'txt';
    await expect(r.stdout).toMatchFileSnapshot(join(casesDir, name, `expected.stdout.${ext}`));
    await expect(r.stderr).toMatchFileSnapshot(join(casesDir, name, 'expected.stderr'));
    await expect(`${r.code}\n`).toMatchFileSnapshot(join(casesDir, name, 'exit-code'));
  });
});
