// Telemetry read by a typed hosted client: every event the service captures, a refused egress included,
// is one of the hosted SDK's event types (the union is read from the SDK's own type definitions, so a
// new SDK's union is what is checked). A refused connection is a failed request of the network category
// with our reason in `error_text`; our own `egress_refused` type only for a reader who asks (bcs_types).
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import Kernel from '@onkernel/sdk';
import type { TelemetryEventsResponse, TelemetryStreamResponse } from '@onkernel/sdk/resources/browsers/telemetry';
import puppeteer from 'puppeteer-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseReader } from '../helpers/sse.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

/** type -> category of each member of the SDK's BrowserTelemetryEvent union. */
function sdkEventUnion(): Map<string, string> {
  const sdkDir = dirname(createRequire(import.meta.url).resolve('@onkernel/sdk'));
  const file = join(sdkDir, 'resources/browsers/telemetry.d.ts');
  const program = ts.createProgram([file], { noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const union = checker.getExportsOfModule(module).find((s) => s.name === 'BrowserTelemetryEvent')!;
  const literal = (t: ts.Type, prop: string) => (checker.getTypeOfSymbol(t.getProperty(prop)!) as ts.StringLiteralType).value;
  const members = (checker.getDeclaredTypeOfSymbol(union) as ts.UnionType).types;
  return new Map(members.map((t) => [literal(t, 'type'), literal(t, 'category')]));
}

/** What a reader of our own types gets: the hosted envelope, with a type the SDK does not know. */
type OurEnvelope = { seq: number; event: { type: string; category: string; source: { kind: string; event?: string }; data?: any } };

const REFUSED_URL = 'http://127.0.0.1:8099/refused';

let svc: TestService;
let kernel: Kernel;
let union: Map<string, string>;
let id: string;

beforeAll(async () => {
  union = sdkEventUnion();
  // The hosted policy refuses loopback destinations: a refusal without any network of the test's own.
  svc = await startTestService({ networkPolicy: 'hosted' });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  const created = await kernel.browsers.create({
    headless: true,
    timeout_seconds: 600,
    telemetry: { enabled: true, browser: { console: { enabled: true }, network: { enabled: true }, page: { enabled: true }, interaction: { enabled: true } } },
  });
  id = created.session_id;
  // A client session that does what sessions do: navigate, log, click, and meet the egress policy over http and https.
  const browser = await puppeteer.connect({ browserWSEndpoint: created.cdp_ws_url, defaultViewport: null });
  const page = (await browser.pages())[0]!;
  await page.goto('data:text/html,<button id=b onclick="console.error(1)">b</button>');
  await page.evaluate(() => console.log('hello'));
  await page.click('#b');
  const refused = await page.goto(REFUSED_URL);
  expect(refused?.status()).toBe(403);
  await expect(page.goto('https://127.0.0.1:8099/refused')).rejects.toThrow(/ERR_TUNNEL_CONNECTION_FAILED/);
  await browser.disconnect();
  await kernel.browsers.retrieve(id);
});
afterAll(async () => {
  await svc?.close();
});

/** Both refusals were captured, whatever shape they were given (the old code had a type of its own). */
const bothRefusals = (envs: (TelemetryEventsResponse | TelemetryStreamResponse)[]) =>
  envs.filter((e) => e.event.category === 'network' && e.event.source.kind === 'kernel_api').length >= 2;

const isRefusal = (env: TelemetryEventsResponse | TelemetryStreamResponse, scheme: 'http' | 'https') =>
  env.event.type === 'network_loading_failed' && env.event.source.event === 'egress_refused' && env.event.data?.url === `${scheme}://127.0.0.1:8099`;

function expectHostedTypes(envs: (TelemetryEventsResponse | TelemetryStreamResponse)[]): void {
  expect(union.size).toBeGreaterThanOrEqual(30);
  for (const { event } of envs) {
    expect(union.has(event.type), `${event.type} is not one of the SDK's event types`).toBe(true);
    expect(event.category, event.type).toBe(union.get(event.type));
  }
}

function expectRefusal(envs: (TelemetryEventsResponse | TelemetryStreamResponse)[]): void {
  const refused = envs.find((e) => isRefusal(e, 'http'));
  expect(refused, 'the refused request').toBeDefined();
  const { event } = refused!;
  // Narrowed by the SDK's own union: these are fields its type for a failed request has.
  if (event.type !== 'network_loading_failed') throw new Error('unreachable');
  expect(event.category).toBe('network');
  expect(event.data?.error_text).toMatch(/^egress refused \(private_address\): 127\.0\.0\.1:8099: 127\.0\.0\.1 is a loopback address/);
  expect(event.data?.canceled).toBe(false);
  expect(event.source).toEqual({ kind: 'kernel_api', event: 'egress_refused', metadata: { method: 'GET', host: '127.0.0.1', port: '8099', code: 'private_address' } });
  // The tunnel an https page asks for is refused the same way.
  expect(envs.some((e) => isRefusal(e, 'https'))).toBe(true);
}

describe('telemetry through the hosted SDK', () => {
  it('lists only events of the SDK union, the refused request as a failed network request with the reason', async () => {
    const listed = await eventually(async () => {
      const all: TelemetryEventsResponse[] = [];
      for await (const env of kernel.browsers.telemetry.events(id, { since: '10m' })) all.push(env);
      const types = new Set(all.map((e) => e.event.type));
      return bothRefusals(all) && ['interaction_click', 'cdp_disconnect', 'api_call'].every((t) => types.has(t as never)) ? all : undefined;
    });
    expectHostedTypes(listed);
    expectRefusal(listed);
    // What the session did is there in the hosted types, not just the operational set.
    const types = new Set(listed.map((e) => e.event.type));
    for (const t of ['api_call', 'cdp_connect', 'cdp_disconnect', 'console_log', 'console_error', 'network_request', 'network_response', 'page_navigation']) {
      expect(types, t).toContain(t);
    }
  });

  it('streams only events of the SDK union, the refused request as a failed network request with the reason', async () => {
    const seen: TelemetryStreamResponse[] = [];
    const stream = await kernel.browsers.telemetry.stream(id, { replay: 'all' });
    for await (const env of stream) {
      seen.push(env);
      if (bothRefusals(seen)) break;
    }
    expectHostedTypes(seen);
    expectRefusal(seen);
  });

  it('gives our own egress_refused type to a reader who asks for our types, on both reads', async () => {
    const headers = { authorization: `Bearer ${svc.apiKey}` };
    const ours = (await svc.call('GET', `/browsers/${id}/telemetry/events?since=10m&category=network&bcs_types=true`)).body as OurEnvelope[];
    const refusals = ours.filter((e) => e.event.type === 'egress_refused');
    expect(refusals.map((e) => e.event.data)).toEqual([
      { method: 'GET', host: '127.0.0.1', port: 8099, code: 'private_address', message: expect.stringMatching(/^127\.0\.0\.1:8099: 127\.0\.0\.1 is a loopback address/) },
      { method: 'CONNECT', host: '127.0.0.1', port: 8099, code: 'private_address', message: expect.stringMatching(/^127\.0\.0\.1:8099: /) },
    ]);
    expect(refusals[0]!.event).toMatchObject({ category: 'network', source: { kind: 'kernel_api', event: 'egress_proxy' } });
    // Chromium's own view of the same requests is untouched.
    expect(ours.some((e) => e.event.type === 'network_response' && e.event.data?.status === 403)).toBe(true);

    const live = (await SseReader.open<OurEnvelope>(`${svc.baseUrl}/browsers/${id}/telemetry/stream?replay=all&bcs_types=true`, headers)).reader!;
    const frame = await live.waitFor((e) => e.event.type === 'egress_refused');
    live.close();
    expect(frame.data.event.data).toMatchObject({ method: 'GET', host: '127.0.0.1', port: 8099, code: 'private_address' });
  });
});

describe('on the hosted wire only', () => {
  let strict: TestService;
  beforeAll(async () => {
    strict = await startTestService({ strictWire: true });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('refuses the opt-in as any unknown field', async () => {
    for (const path of ['events', 'stream']) {
      const res = await strict.call('GET', `/browsers/any/telemetry/${path}?bcs_types=true`);
      expect(res.status, path).toBe(400);
      expect(JSON.stringify(res.body), path).toContain('bcs_types');
    }
  });
});
