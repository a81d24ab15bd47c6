// The trivial flows of bench/vs-playwright.ts as a Playwright Test project: one test per flow, every test
// of the file free to run on any worker (as every bcs scenario is), the Chromium the benchmark names.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  fullyParallel: true,
  reporter: 'dot',
  outputDir: process.env.BENCH_PW_OUTPUT ?? 'test-results',
  use: { launchOptions: { executablePath: process.env.BCS_CHROMIUM } },
});
