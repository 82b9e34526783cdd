// The tests a mutation run uses (npm run test:mutation): those that run audit-scan in-process, so they see
// Stryker's mutants of src/. Left out: tests that spawn the built CLI or read with worker threads (both run
// dist/, which holds no mutant: --follow, --apf-out, the package), the browser test and the DuckDB store tests;
// npm test runs them all. Also the engine's dedup and admission tests (the WebAssembly module and spawned scans)
// and the file-reading test (spawned scans, a named pipe).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/cli/spawn.test.ts', 'test/trust.test.ts', 'test/parallel.test.ts', 'test/store.test.ts', 'test/property.test.ts', 'test/follow.test.ts', 'test/cli/apf-out.test.ts', 'test/cli/packaging.test.ts', 'test/render/html-browser.test.ts', 'test/cli/binary.test.ts', 'test/cli/kubectl-plugin.test.ts', 'test/cli/completion.test.ts', 'test/cli/duckdb-hint.test.ts', 'test/etcd-real.test.ts', 'test/render/edges.test.ts', 'test/partial.test.ts', 'test/differential.test.ts', 'test/engine.test.ts', 'test/engine-dedup.test.ts', 'test/input/files.test.ts'],
    testTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/mutation-setup.ts'],
    // Capacity tests (100k-item documents, 250k open requests) check bounds, not rules, and take seconds each:
    // AUDIT_SCAN_MUTATION makes them skip here, so a mutant costs what the rule tests cost.
    // AUDIT_SCAN_ENGINE=js: every line through the JavaScript path, whose code is what Stryker mutates (the
    // engine is WebAssembly, and test/engine.test.ts holds it to that path).
    env: { TZ: 'UTC', NO_COLOR: '1', AUDIT_SCAN_MUTATION: '1', AUDIT_SCAN_ENGINE: 'js' },
    chaiConfig: { truncateThreshold: 0 },
  },
});
