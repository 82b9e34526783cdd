// Issue 24: the same partial commands, run as the tasks of an engine users already have: a Dask distributed
// cluster of 2 worker processes (Debian's python3-distributed; .ci/run installs it). The merge of the parts it
// returns is byte-equal to the scan. Skipped without Dask, except in CI (CI=true), where it must run.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, spawnCli } from './support.js';

// Debian's package is under /usr/bin/python3; a python3 earlier on PATH (pyenv, a venv) may not see it.
const PYTHON = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', 'import distributed'], { stdio: 'ignore' }).status === 0) ?? null;
const hasDask = PYTHON !== null;
const inCi = process.env.CI === 'true';

describe.skipIf(!hasDask && !inCi)('a Dask cluster runs the partials', () => {
  it('2 worker processes, 4 shards of the demo: merge -o json equals the scan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-scan-dask-'));
    const files = ['apiserver-a-audit.log.gz', 'apiserver-b-audit.log', 'etcd-master-1.log'].map((f) => join(ROOT, 'fixtures/demo', f));
    const manifest = join(dir, 'manifest.txt');
    writeFileSync(manifest, files.join('\n') + '\n');
    const r = spawnSync(PYTHON ?? 'python3', [join(ROOT, 'test/dask-shards.py'), process.execPath, BIN, manifest, '4', dir], { encoding: 'utf8', timeout: 50_000 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { parts: string[]; workers: number };
    expect(out.workers).toBe(2);
    expect(out.parts).toHaveLength(4);
    const [merged, scan] = await Promise.all([spawnCli(['merge', '-o', 'json', ...out.parts]), spawnCli(['-o', 'json', ...files])]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(scan.stdout);
  }, 60_000);
});
