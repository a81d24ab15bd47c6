// A test file's web app and service: `handler` served on a loopback port, one real service started for the
// file, both closed after it. The getters are for test bodies and hooks (the values exist once beforeAll ran).
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { startTestService, type TestService } from './service.js';

export interface AppSuite {
  /** The app's URL, ending in `/`. */
  url(): string;
  svc(): TestService;
  /** `BCS_BASE_URL` and `BCS_API_KEY` for the service. */
  env(): Record<string, string>;
}

export function appSuite(handler: RequestListener): AppSuite {
  let app: Server | undefined;
  let svc: TestService | undefined;
  let url = '';
  beforeAll(async () => {
    app = createServer(handler);
    await new Promise<void>((r) => app!.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
    svc = await startTestService();
  });
  afterAll(async () => {
    app?.close();
    await svc?.close();
  });
  return { url: () => url, svc: () => svc!, env: () => ({ BCS_BASE_URL: svc!.baseUrl, BCS_API_KEY: svc!.apiKey }) };
}
