// OTLP export: a session whose telemetry names a configured destination sends its events as OTLP/HTTP
// JSON logs to that collector (here a local receiver), and its session object shows how export is going.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

let svc: TestService;
let receiver: Server;
const received: Received[] = [];
let failing: Server;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      received.push({ url: req.url!, headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  failing = createServer((req, res) => req.resume().on('end', () => res.writeHead(503).end()));
  const [ok, bad] = await Promise.all([listen(receiver), listen(failing)]);
  svc = await startTestService({
    otlpDestinations: { collector: { endpoint: ok, headers: { 'x-collector-token': 'secret-1' } }, down: { endpoint: `${bad}/v1/logs` } },
  });
});
afterAll(async () => {
  await svc.close();
  receiver.close();
  failing.close();
});

const attr = (attrs: { key: string; value: Record<string, unknown> }[], key: string) => {
  const v = attrs.find((a) => a.key === key)?.value;
  return v && (v.stringValue ?? v.intValue);
};

describe('OTLP export', () => {
  it('posts captured events as OTLP/HTTP JSON logs to the named destination', async () => {
    const created = await svc.call('POST', '/browsers', {
      body: { telemetry: { browser: { console: { enabled: true } }, export: { otlp: { destination: 'collector' } } } },
    });
    expect(created.status).toBe(200);
    const id = created.body.session_id;
    expect(created.body.telemetry.export.otlp).toMatchObject({ destination: 'collector' });
    const browser = await chromium.connectOverCDP(created.body.cdp_ws_url);
    await browser.contexts()[0]!.pages()[0]!.evaluate(() => console.log('to the collector'));
    await browser.close();

    const record = await eventually(() => {
      for (const r of received) {
        for (const rl of r.body.resourceLogs ?? []) {
          if (attr(rl.resource.attributes, 'browser.session_id') !== id) continue;
          for (const sl of rl.scopeLogs) {
            const found = sl.logRecords.find((lr: any) => attr(lr.attributes, 'event.name') === 'console_log');
            if (found) return { request: r, resource: rl, scope: sl, record: found };
          }
        }
      }
      return undefined;
    });
    expect(record.request.url).toBe('/v1/logs');
    expect(record.request.headers['content-type']).toBe('application/json');
    expect(record.request.headers['x-collector-token']).toBe('secret-1');
    expect(attr(record.resource.resource.attributes, 'service.name')).toBe('bcs-browser');
    expect(record.scope.scope.name).toBe('bcs.telemetry');
    expect(record.record.body.stringValue).toBe('console_log: to the collector');
    expect(record.record.severityText).toBe('INFO');
    expect(attr(record.record.attributes, 'telemetry.category')).toBe('console');
    const event = JSON.parse(attr(record.record.attributes, 'telemetry.event') as string);
    expect(event).toMatchObject({ type: 'console_log', category: 'console', data: { text: 'to the collector' } });
    // timeUnixNano is the event's ts (µs) in nanoseconds, as a string per OTLP/JSON.
    expect(record.record.timeUnixNano).toBe(`${event.ts}000`);
    expect(Number(attr(record.record.attributes, 'telemetry.seq'))).toBeGreaterThan(0);

    const shown = await eventually(async () => {
      const s = (await svc.call('GET', `/browsers/${id}`)).body.telemetry.export.otlp;
      return s.state === 'ok' ? s : undefined;
    });
    expect(shown.exported_events).toBeGreaterThanOrEqual(1);
    await svc.call('DELETE', `/browsers/${id}`);
  });

  it('says when the collector fails, and refuses a destination that is not configured', async () => {
    const created = await svc.call('POST', '/browsers', { body: { telemetry: { enabled: true, export: { otlp: { destination: 'down' } } } } });
    const id = created.body.session_id;
    await svc.call('GET', `/browsers/${id}`);
    const shown = await eventually(async () => {
      const s = (await svc.call('GET', `/browsers/${id}`)).body.telemetry.export.otlp;
      return s.state === 'failing' ? s : undefined;
    });
    expect(shown.last_error).toMatch(/503/);
    await svc.call('DELETE', `/browsers/${id}`);

    const unknown = await svc.call('POST', '/browsers', { body: { telemetry: { enabled: true, export: { otlp: { destination: 'elsewhere' } } } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].field).toBe('body.telemetry.export.otlp.destination');
    expect(unknown.body.message).toMatch(/collector, down/);
    expect(svc.sessions.size).toBe(0);
  });
});
