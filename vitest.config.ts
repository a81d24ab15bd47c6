import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every integration file launches real Chromium; two cores run two files at a time well.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
