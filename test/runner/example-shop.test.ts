// The example suite in scenarios/shop, as a user runs it: against its own app (started by each scenario's
// web_server), two at a time, green; what each file is made of is in the scenarios themselves.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

let out: string;
let svc: TestService;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'bcs-shop-'));
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
  await rm(out, { recursive: true, force: true });
});

describe('scenarios/shop', { timeout: 300_000 }, () => {
  it('passes with two workers', async () => {
    const res = await runCli(['run', 'scenarios/shop', '--workers', '2', '--reporter', 'list,json', '--output-dir', out, '--update-snapshots', 'none'], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.scenarios.map((s: { name: string }) => s.name).sort()).toEqual([
      'browse the shop', 'fill and export the cart', 'products when the API misbehaves',
      'search for PAPER', 'search for cup', 'search for kettle', 'search for tea',
    ]);
  });
});
