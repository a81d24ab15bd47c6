// Playwright's TodoMVC flows as a Playwright Test project, beside the same flows as bcs scenarios
// (../scenarios): `npx playwright test -c bench/todomvc/playwright`. The Chromium bcs uses (BCS_CHROMIUM, else the system's).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  fullyParallel: true,
  reporter: 'list',
  outputDir: process.env.BENCH_PW_OUTPUT ?? 'test-results',
  use: { baseURL: 'http://127.0.0.1:4290/', launchOptions: { executablePath: process.env.BCS_CHROMIUM ?? '/usr/bin/chromium' } },
  webServer: { command: 'node ../serve.mjs', url: 'http://127.0.0.1:4290/', reuseExistingServer: true },
});
