import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
    env: { TZ: 'UTC', NO_COLOR: '1' },
    chaiConfig: { truncateThreshold: 0 },
  },
});
