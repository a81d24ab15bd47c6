// An ordinary user project: nothing to set up beyond importing `test` from browser-scenarios/fixtures.
// The `provide` block is optional; it shows how a project sets the fixtures' options once for every test.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // *.spec.ts, so the package's own suite (test/**/*.test.ts) does not collect these files; its
    // test/fixtures.test.ts runs this project the way a user would.
    include: ['**/*.spec.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    provide: {
      browserOptions: { headless: true },
    },
  },
});
