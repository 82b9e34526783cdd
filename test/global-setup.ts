// Every test run gets its own temporary directory, removed when the run ends. Tests make their scratch
// directories with mkdtemp(tmpdir()) and many never removed them: runs (and Stryker's hundreds of runs) filled
// the disk once. os.tmpdir() reads TMPDIR on each call, and the test workers and the CLIs they spawn inherit it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-test-run-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
