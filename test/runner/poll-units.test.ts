// A poll owns its whole deadline: when the target answers slowly and the client retries its reads, the
// step still ends as "what it last saw", in its own time, not as a bare step timeout or a 503.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/api/index.js';
import type { PlanStep, PollCall } from '../../src/scenario/plan.js';
import { runPoll, type ApiOpContext } from '../../runner/exec/api-ops.js';
import { StepFailure } from '../../runner/exec/failures.js';
import { TargetGaps } from '../../runner/exec/target-gaps.js';

let server: Server;
let baseUrl: string;
let requests = 0;

beforeAll(async () => {
  // The first answer says "running"; every later one is a slow 503, which the client retries.
  server = createServer((_req, res) => {
    requests++;
    if (requests === 1) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ state: 'running' }));
      return;
    }
    setTimeout(() => {
      res.statusCode = 503;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ code: 'unavailable', message: 'busy' }));
    }, 250);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('a poll against a slow target', () => {
  it('gives up at its deadline with the last answer it saw, while the client is still retrying', async () => {
    const client = new CloudClient({ baseUrl, apiKey: 'k', retryBaseMs: 300 });
    const poll: PollCall = {
      method: 'GET',
      path: '/process/p1/status',
      decode: 'process_status',
      until: [{ subject: 'state', equals: 'exited' }],
      interval_ms: 50,
      waiting_for: 'process p1 to exit',
    };
    const step = { timeout_ms: 400, phase: 'main' } as PlanStep;
    const ctx: ApiOpContext = {
      client,
      scope: {},
      step,
      signal: new AbortController().signal,
      artifactDir: '.',
      outputRoot: '.',
      work: { requestIds: [], artifacts: [] },
      gaps: new TargetGaps(),
    };
    const err = await runPoll(poll, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StepFailure);
    expect(err).toMatchObject({
      kind: 'assertion',
      message: 'expected process p1 to exit within 400 ms; last check: expected state equals "exited", got "running"',
    });
    expect(requests).toBeGreaterThan(1);
  });
});
