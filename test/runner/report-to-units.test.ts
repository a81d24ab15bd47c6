// The end of a run waits for `--report-to`'s uploads for a bounded time only: a service that takes the
// connection and never answers holds no run up past the bound, and what did not arrive is said.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CloudClient } from '../../src/api/index.js';
import { reportToReporter } from '../../runner/reporters/report-to.js';
import type { RunResult, ScenarioResult } from '../../runner/reporters/results.js';

let silent: Server;
const sockets: Socket[] = [];
let url: string;

beforeAll(async () => {
  // Takes every connection, reads what comes, answers nothing.
  silent = createServer((socket) => void sockets.push(socket.on('data', () => {})));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(() => {
  for (const s of sockets) s.destroy();
  silent.close();
});

const scenario: ScenarioResult = { name: 's', file: 's.yaml', tags: [], status: 'passed', interrupted: false, started_at: '2026-01-01T00:00:00.000Z', duration_ms: 1, steps: [], artifact_dir: 's' };
const run: RunResult = {
  version: 1, started_at: '2026-01-01T00:00:00.000Z', duration_ms: 1, target: { kind: 'embedded', base_url: '' }, scenarios: [scenario],
  summary: { total: 1, passed: 1, failed: 0, errored: 0, flaky: 0, timed_out: 0, skipped: 0 },
};

it('stops waiting at the bound and says what was still under way', async () => {
  const said: string[] = [];
  const reporter = reportToReporter({
    client: new CloudClient({ baseUrl: url, apiKey: 'k', timeoutMs: 600_000 }),
    outputDir: '/nonexistent',
    run: { suite: 'x', trigger: 'manual' },
    say: (line) => said.push(line),
    waitMs: 200,
  });
  reporter.runStarted!({ kind: 'embedded', base_url: '' }, []);
  reporter.scenarioFinished!(scenario);
  await reporter.runFinished!(run);
  expect(said).toEqual(['--report-to: the service did not get all of the run: 1 scenario still uploading after 0.2 s']);
});
