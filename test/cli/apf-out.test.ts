// --apf-out DIR, in a real child process: one file per finding that warrants manifests, ready for
// `kubectl apply -f DIR`; nothing written when no finding calls for them; a directory it cannot write is exit 2.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../support.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-scan-apf-'));

describe('--apf-out', () => {
  it('writes the manifests of the demo incident’s critical finding, the same YAML as the JSON report', async () => {
    const out = join(dir, 'apf');
    const r = await spawnCli(['fixtures/demo', '--apf-out', out, '-o', 'json']);
    expect(r.code).toBe(0);
    // the LOW backup-tool finding has manifests in the JSON, but only medium and above warrant them
    expect(readdirSync(out)).toEqual(['1-vector.yaml']);
    const yaml = readFileSync(join(out, '1-vector.yaml'), 'utf8');
    const report = JSON.parse(r.stdout);
    expect(yaml).toBe(report.findings[0].apf + (report.findings[0].apf.endsWith('\n') ? '' : '\n'));
    // two documents, a priority level and a flow schema naming it, for the vector service account
    expect(yaml.split(/^---$/m)).toHaveLength(2);
    expect(yaml).toMatch(/^kind: PriorityLevelConfiguration$/m);
    expect(yaml).toMatch(/^kind: FlowSchema$/m);
    expect(yaml).toMatch(/^ {4}name: audit-scan-vector-vector$/m);
    expect(yaml).toContain('namespace: "vector"');
    expect(yaml).not.toMatch(/\\x0a|\\n/); // real line breaks, not escapes
    expect(r.stderr).toContain(`audit-scan: --apf-out: wrote ${join(out, '1-vector.yaml')} (kubectl apply -f ${out})`);
  });

  it('a log with no such finding writes nothing and says so', async () => {
    const out = join(dir, 'none');
    const r = await spawnCli(['fixtures/time/token-one-wave.log', '--apf-out', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`audit-scan: --apf-out: no finding calls for APF manifests; nothing written to ${out}`);
    expect(() => readdirSync(out)).toThrow();
  });

  it('a path it cannot write (a file in the way) is exit 2, after the report', async () => {
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'x');
    const r = await spawnCli(['fixtures/demo', '--apf-out', join(blocker, 'apf'), '-o', 'json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).schemaVersion).toBe(1);
    expect(r.stderr).toContain(`audit-scan: --apf-out: cannot write to ${join(blocker, 'apf')}`);
  });
});
