// One plan operation at a time: what each `op` does, against the run's live objects and scope.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative } from 'node:path';
import type { Operation, PlanStep, PollCall } from '../../src/scenario/plan.js';
import { runApiCall, runPoll } from './api-ops.js';
import { acquireBrowser, releaseBrowser } from './browser-ops.js';
import { runReplayCall } from './replay-calls.js';
import { ensureLoggedIn } from './auth-login.js';
import { StepFailure, assertionFailed } from './failures.js';
import { runFunction } from './functions.js';
import { performPageAction } from './page-actions.js';
import { runScript } from './script.js';
import type { Artifact, StepResult } from '../reporters/results.js';
import { HAR_FILE, scenarioPage } from './context-options.js';
import { playwrightCore } from './playwright-lib.js';
import { startTrace, stopTrace } from './trace.js';
import { hostFiles } from './page-downloads.js';
import { expectScreenshot } from './page-snapshot.js';
import { browserBuild } from './browser-build.js';
import { DEFAULT_SNAPSHOT_PATH_TEMPLATE } from './snapshot-path.js';
import { expectAccessible } from './page-accessibility.js';
import { isWebAction, performWebAction, watchContext } from './page-web.js';
import type { Frame, RunContext } from './run-context.js';
import { resolveSecrets } from './secrets.js';
import { expectValue } from './value-expect.js';
import { serveFolder } from './static-server.js';
import { attachTelemetry } from './telemetry.js';
import { startWebServer } from './web-server.js';

/** What one attempt of a step collects for its result. */
export interface StepWork {
  requestIds: string[];
  artifacts: Artifact[];
  replayOffsetMs?: number;
  output?: unknown;
  /** Failed soft checks (`expect_soft`), reported once the step's operations are done. */
  soft: string[];
}

export async function runOperation(op: Operation, ctx: RunContext, step: PlanStep, frame: Frame, work: StepWork, signal: AbortSignal): Promise<void> {
  const { state, deps } = ctx;
  const dirs = { artifactDir: ctx.artifactDir, outputRoot: deps.outputDir };
  switch (op.op) {
    case 'secrets':
      ctx.setSecrets(await resolveSecrets(op.secrets));
      return;
    case 'serve':
      state.server = await serveFolder(op.dir);
      state.scope[op.save] = { url: state.server.url };
      return;
    case 'serve_stop':
      await state.server?.close();
      state.server = undefined;
      return;
    case 'web_server': {
      const { command, url, timeout_ms, cwd, env, reuse_existing } = op;
      state.webServer = await startWebServer({ command, url, timeoutMs: timeout_ms, cwd, env, reuseExisting: reuse_existing, signal });
      state.scope[op.save] = { url: state.webServer.url };
      return;
    }
    case 'web_server_stop':
      await state.webServer?.stop();
      state.webServer = undefined;
      return;
    case 'auth': {
      // Setup steps run to their end on Ctrl-C, since what they acquire must be released; a login acquires
      // nothing here, and may wait many minutes for a person, so it stops.
      const { connection, output } = await ensureLoggedIn(op.connection, {
        client: deps.client, signal: AbortSignal.any([signal, deps.signal]), timeoutMs: step.timeout_ms, requestIds: work.requestIds,
        progress: (status, detail) => ctx.progress(step, status, detail),
      });
      state.scope[op.save] = connection;
      work.output = output;
      return;
    }
    case 'api':
    case 'poll': {
      const { op: kind, ...call } = op;
      if (call.artifact) call.artifact = { ...call.artifact, file: artifactFile(call.artifact.file, frame.iteration) };
      const apiCtx = { client: deps.client, scope: state.scope, step, signal, work, gaps: ctx.gaps, ...dirs };
      if (kind === 'poll') await runPoll(call as PollCall, apiCtx);
      else if (call.replay) await runReplayCall({ ...call, replay: call.replay }, { ...apiCtx, run: state, mask: (text) => ctx.mask(text) });
      else await runApiCall(call, apiCtx);
      return;
    }
    case 'acquire_browser':
      await acquireBrowser(op, ctx, step, work, signal);
      return;
    case 'release_browser':
      await releaseBrowser(op, ctx, step, work, signal);
      return;
    case 'connect': {
      // A prepared browser comes connected; otherwise Playwright is loaded on the first connect (commands
      // that never drive a page, such as plan, validate, list and admin, skip it).
      const browser = state.lease?.browser ?? (await playwrightCore().chromium.connectOverCDP(op.ws_url, { timeout: step.timeout_ms }));
      state.browser = browser;
      const har = op.context?.record_har && !state.lease ? join(ctx.artifactDir, HAR_FILE) : undefined;
      if (har) await mkdir(ctx.artifactDir, { recursive: true });
      const { context, page } = state.lease ?? (await scenarioPage(browser, op.context, har));
      state.recordsHar = har !== undefined;
      state.web = watchContext(context);
      state.page = page;
      await startTrace(ctx, context);
      return;
    }
    case 'disconnect':
      await stopTrace(ctx);
      // Playwright writes a context's HAR only when the context is closed, not when the connection is.
      if (state.recordsHar) await state.web?.context.close().catch(() => {});
      state.recordsHar = false;
      // Over CDP, close() only disconnects: the session lives on until the DELETE that follows. A shared
      // session's connection belongs to the supply.
      if (state.lease?.how.mode !== 'shared') await state.browser?.close().catch(() => {});
      state.browser = undefined;
      state.page = undefined;
      state.web = undefined;
      return;
    case 'function': {
      const output = await runFunction(op, { functions: deps.functions ?? {}, browser: state.browser, page: state.page, scope: state.scope, signal });
      if (output !== undefined) work.output = output;
      return;
    }
    case 'script': {
      const output = await runScript(op, { browser: state.browser, page: state.page, scope: state.scope, signal });
      if (output !== undefined) work.output = output;
      return;
    }
    case 'expect_value':
      expectValue(op, state.scope);
      return;
    case 'attach_telemetry':
      await attachTelemetry(deps.client, op.path, op.query, state.results, signal);
      return;
    case 'page': {
      if (!state.page) throw new StepFailure('infrastructure', 'no page: the browser was not connected');
      const { op: _op, ...action } = op;
      if (isWebAction(action)) {
        if (!state.web) throw new StepFailure('infrastructure', 'no page: the browser was not connected');
        await performWebAction(action, {
          web: state.web, page: state.page, setPage: (page) => (state.page = page), scope: state.scope, timeoutMs: step.timeout_ms, signal,
          since: previousStepStart(state.results), output: (value) => (work.output = value), soft: (message) => work.soft.push(message),
          host: (sessionPath) => hostFiles(deps.client, sessionPath, signal, work.requestIds),
          keep: (name, bytes) => keepDownload(name, bytes, ctx.artifactDir, deps.outputDir, step, frame, work),
        });
      } else if (action.action === 'expect_screenshot') {
        const update = deps.updateSnapshots ?? 'missing';
        await expectScreenshot(action, {
          page: state.page, timeoutMs: step.timeout_ms, update, updating: deps.updateSnapshots !== undefined,
          build: await browserBuild(state.page.context().browser() ?? state.browser!),
          paths: deps.snapshotPaths ?? { template: DEFAULT_SNAPSHOT_PATH_TEMPLATE, testDir: process.cwd() },
          output: (value) => (work.output = value), soft: (message) => work.soft.push(message),
          keep: (suffix, png) => keepFile(`${action.name}-${suffix}.png`, png, 'screenshot', ctx.artifactDir, deps.outputDir, frame, work),
        });
      } else if (action.action === 'expect_accessible') {
        await expectAccessible(action, {
          page: state.page, output: (value) => (work.output = value),
          keep: (name, json) => keepFile(name, Buffer.from(json), 'file', ctx.artifactDir, deps.outputDir, frame, work),
        });
      } else {
        if (action.action === 'screenshot') action.file = artifactFile(action.file, frame.iteration);
        work.artifacts.push(...(await performPageAction(action, { page: state.page, timeoutMs: step.timeout_ms, signal, ...dirs })));
      }
      // A dialog that said something else than declared fails the step that opened it.
      const dialog = state.web?.dialogFailure;
      if (dialog) {
        state.web!.dialogFailure = undefined;
        throw assertionFailed(dialog);
      }
      return;
    }
  }
}

/** A downloaded file among the step's artifacts, under `downloads/` by its own name (numbered by step if taken). */
function keepDownload(name: string, bytes: Uint8Array, artifactDir: string, outputRoot: string, step: PlanStep, frame: Frame, work: StepWork): Promise<string> {
  const safe = artifactFile(name, frame.iteration);
  const taken = existsSync(join(artifactDir, 'downloads', safe));
  return keepFile(join('downloads', taken ? `${step.index + 1}-${safe}` : safe), bytes, 'file', artifactDir, outputRoot, undefined, work);
}

/** Writes `name` (a path inside the artifact folder, numbered by pass inside loops) and lists it among the step's artifacts. */
async function keepFile(name: string, bytes: Uint8Array, type: Artifact['type'], artifactDir: string, outputRoot: string, frame: Frame | undefined, work: StepWork): Promise<string> {
  const file = join(artifactDir, dirname(name), artifactFile(basename(name), frame?.iteration));
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, bytes);
  const path = relative(outputRoot, file);
  work.artifacts.push({ type, path });
  return path;
}

/** When the latest finished main step started (a response to what it did counts); 0 before any. */
function previousStepStart(results: StepResult[]): number {
  const last = results.findLast((r) => r.phase === 'main' && r.started_at);
  return last?.started_at ? Date.parse(last.started_at) : 0;
}

/**
 * An artifact's file name made safe (run-time templates may have put anything in it), with the pass
 * number inside loops, so each pass keeps its own file: `03-shot.png` → `03-shot-2.png`.
 */
export function artifactFile(file: string, iteration: number | undefined): string {
  const safe = file.replace(/[/\\\x00-\x1f]+/g, '-').replace(/^\.+/, '') || 'artifact';
  if (iteration === undefined) return safe;
  const ext = extname(safe);
  return `${safe.slice(0, safe.length - ext.length)}-${iteration}${ext}`;
}
