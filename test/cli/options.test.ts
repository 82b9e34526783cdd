// The option table is the single source: every option is in --help and in docs/options.md's table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCAN_OPTIONS } from '../../src/cli/options.js';
import { ROOT, runCli } from '../support.js';

describe('options', () => {
  it('every option appears in --help and docs/options.md', async () => {
    const help = (await runCli(['--help'])).stdout;
    const doc = readFileSync(`${ROOT}/docs/options.md`, 'utf8');
    const missing: string[] = [];
    for (const o of SCAN_OPTIONS) {
      const long = /--[a-z-]+/.exec(o.flags)![0];
      if (!help.includes(long)) missing.push(`help: ${long}`);
      if (!doc.includes(long)) missing.push(`docs/options.md: ${long}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('docs/json-output.md documents the JSON', () => {
  it('every member of the report, of a list group and of a client finding is named in the JSON table', async () => {
    const json = readFileSync(`${ROOT}/docs/json-output.md`, 'utf8');
    const r = JSON.parse((await runCli(['-o', 'json', 'fixtures/demo'])).stdout);
    const names = [...Object.keys(r), ...Object.keys(r.listGroups[0]), ...Object.keys(r.findings[0]), ...Object.keys(r.summary), ...Object.keys(r.whatIf), ...Object.keys(r.findings[0].evidence)];
    expect([...new Set(names)].filter((k) => !new RegExp(`\\b${k}\\b`).test(json))).toEqual([]);
  });
  it('and what the apiserver\'s own log adds: its section, its inputs, a group\'s evidence', async () => {
    const json = readFileSync(`${ROOT}/docs/json-output.md`, 'utf8');
    const r = JSON.parse((await runCli(['-o', 'json', '--syslog-year', '2026', 'fixtures/apiserver-log/seed/apiserver-1.28-v3.log'])).stdout);
    const names = [...Object.keys(r.apiserverLog), ...Object.keys(r.apiserverLog.inputs[0]), ...Object.keys(r.apiserverLog.inputs[0].requests), ...Object.keys(r.listGroups[0].apiserverLog), r.listGroups[0].figureSources.objectsReturned];
    expect(names.length).toBeGreaterThan(20);
    expect([...new Set(names)].filter((k) => !new RegExp(`\\b${k}\\b`).test(json))).toEqual([]);
  });
});
