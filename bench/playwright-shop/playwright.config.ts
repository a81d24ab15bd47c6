// The shop flows of scenarios/shop as a Playwright Test project, to compare the two side by side (length,
// failure messages, time): `npx playwright test -c bench/playwright-shop`. Same Chromium as bcs uses
// (BCS_CHROMIUM, else the system's), same app, one server per worker as each bcs scenario starts its own.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  workers: 2,
  reporter: 'list',
  outputDir: 'test-results',
  use: { baseURL: 'http://127.0.0.1:4280/', launchOptions: { executablePath: process.env.BCS_CHROMIUM ?? '/usr/bin/chromium' } },
  webServer: { command: 'node ../../scenarios/shop/app/server.mjs', url: 'http://127.0.0.1:4280/', env: { PORT: '4280' }, reuseExistingServer: true },
});
