// What the HTTP framework and Node answer on their own (a bad percent-encoding, an over-long path
// segment, headers too large, a malformed request) comes in the Error shape too, with the right status;
// long names valid by the schema are looked up, not refused; huge offsets are a 400 naming the field.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

/** Sends raw bytes and reads the whole answer (the server closes the connection after these). */
function raw(request: string): Promise<string> {
  const { port } = new URL(svc.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.on('end', () => resolve(answer)).on('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('the framework answers in the Error shape', () => {
  it('a name of 255 characters is looked up (404), a longer segment is 414', async () => {
    const name = 'n'.repeat(255);
    for (const path of [`/profiles/${name}`, `/browser_pools/${name}`, `/extensions/${name}`, `/proxies/${name}`]) {
      const res = await svc.call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    const long = await svc.call('GET', `/profiles/${'n'.repeat(5000)}`);
    expect(long.status).toBe(414);
    expect(long.body).toEqual({ code: 'uri_too_long', message: expect.stringContaining('path segment') });
  });

  it('a malformed percent-encoding is 400', async () => {
    const res = await svc.call('GET', '/profiles/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'bad_request', message: expect.stringContaining('percent-encoding') });
  });

  it('headers too large are 431 with Connection: close', async () => {
    const answer = await raw(`GET /browsers HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 431 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(bodyOf(answer)).toEqual({ code: 'request_header_fields_too_large', message: 'the request headers are too large' });
  });

  it('a request that is not HTTP is 400 in the Error shape', async () => {
    const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1.1 400 /);
    expect(bodyOf(answer).code).toBe('bad_request');
  });

  it('offsets beyond any list are a 400 naming query.offset', async () => {
    for (const offset of ['99999999999999999999', '1e400', '-1']) {
      for (const path of ['/browsers', '/profiles', '/browser_pools', '/extensions']) {
        const res = await svc.call('GET', `${path}?offset=${offset}`);
        expect(res.status, `${path}?offset=${offset}`).toBe(400);
        expect(res.body.details?.[0]?.field).toBe('querystring.offset');
      }
    }
  });
});

describe('a browser that dies under an action', () => {
  it('answers 410 browser_ended for an in-flight screenshot and batch, not a 500', async () => {
    for (const kind of ['screenshot', 'batch'] as const) {
      const b = (await svc.call('POST', '/browsers', { body: {} })).body;
      const session = svc.sessions.get(b.session_id)!;
      await svc.call('POST', `/browsers/${b.session_id}/computer/move_mouse`, { body: { x: 1, y: 1 } });
      const moves = Array.from({ length: 40 }, (_, i) => ({ type: 'move_mouse', move_mouse: { x: 10 + i, y: 10 } }));
      const pending =
        kind === 'screenshot'
          ? svc.call('POST', `/browsers/${b.session_id}/computer/screenshot`, { body: {} })
          : svc.call('POST', `/browsers/${b.session_id}/computer/batch`, { body: { actions: [{ type: 'sleep', sleep: { duration_ms: 1500 } }, ...moves] } });
      // Killed while the request is in flight (the batch is still in its sleep).
      process.kill(session.chromium.pid, 'SIGKILL');
      const res = await pending;
      if (res.status === 200) continue; // the screenshot won the race: nothing to answer
      // The kill can land before the request is looked up: then the browser is already gone.
      if (res.status === 404) {
        expect(res.body).toEqual({ code: 'not_found', message: `browser '${b.session_id}' not found` });
        continue;
      }
      expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBe(410);
      expect(res.body).toEqual({ code: 'browser_ended', message: expect.stringContaining('ended while the action ran') });
    }
  });
});
