import { defineConfig } from 'vitest/config';

// Two tiers. `unit` needs no browser, service or build and finishes in seconds (`npm run test:unit`);
// `integration` starts the real service with real Chromium. Both run under `npm test`.
const unit = ['test/api/**/*.test.ts', 'test/scenario/**/*.test.ts', 'test/architecture.test.ts', 'test/**/*-units.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits on real browsers and X servers: Vitest's 1 s default made a busy CI machine fail
    // a correct test (typed text arrived after the poll gave up). A poll still ends as soon as it holds.
    expect: { poll: { timeout: 15_000 } },
    // Every integration file launches real Chromium: on two cores, two files at a time keep both busy
    // without piling browsers up (more only adds load and timeouts).
    maxWorkers: 2,
    // Each worker keeps its loaded modules from one file to the next: re-importing Fastify, Playwright and
    // the service for each of 140 files took about a third of the suite's CPU (8 files: 75 s isolated, 50 s
    // not). Files share no state through modules: each starts its own service, data dir and browsers, and
    // restores what it sets in process.env.
    isolate: false,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: unit } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unit, 'test/fixtures-example/**', '**/node_modules/**'],
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
    ],
  },
});
