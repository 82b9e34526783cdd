// The option table is the single source: every option is in --help and in the README's table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCAN_OPTIONS } from '../../src/cli/options.js';
import { ROOT, runCli } from '../support.js';

describe('options', () => {
  it('every option appears in --help and the README', async () => {
    const help = (await runCli(['--help'])).stdout;
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const missing: string[] = [];
    for (const o of SCAN_OPTIONS) {
      const long = /--[a-z-]+/.exec(o.flags)![0];
      if (!help.includes(long)) missing.push(`help: ${long}`);
      if (!readme.includes(long)) missing.push(`README: ${long}`);
    }
    expect(missing).toEqual([]);
  });
});
