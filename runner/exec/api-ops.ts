// Plan operations that call the Browser Cloud API: one call (`api`) or a call repeated until a condition
// holds (`poll`). Bodies are built here (JSON, raw bytes, multipart), responses are decoded and checked
// locally, artifacts written, and results saved for later steps' templates.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { ApiError, ApiTimeoutError, type ApiResponse, type CloudClient, type RequestOptions } from '../../src/api/index.js';
import type { ApiCall, PlanStep, PollCall } from '../../src/scenario/plan.js';
import { savedValue } from '../../src/scenario/template.js';
import { failedChecks, failureMessage } from './checks.js';
import { decode, type Decoded } from './decode.js';
import { StepFailure, assertionFailed } from './failures.js';
import { sleep } from './page-actions.js';
import type { Artifact } from '../reporters/results.js';
import type { TargetGaps } from './target-gaps.js';

export interface ApiOpContext {
  client: CloudClient;
  /** What templates resolve against; `save` writes here. */
  scope: Record<string, unknown>;
  step: PlanStep;
  signal: AbortSignal;
  /** This scenario's artifact folder; artifact paths are reported relative to `outputRoot`. */
  artifactDir: string;
  outputRoot: string;
  work: { requestIds: string[]; artifacts: Artifact[]; replayOffsetMs?: number; soft?: string[]; output?: unknown };
  /** What the run found its target lacks; a call that finds something missing adds it. */
  gaps: TargetGaps;
}

/**
 * A poll's request may run this far past the poll's deadline: a fair chance for a slow last answer, yet
 * well inside the step's own backstop (timeout + 1 s), so the poll reports what it last saw, not a bare
 * step timeout.
 */
const LAST_REQUEST_GRACE_MS = 500;

/** Makes the call and what its answer is made into (artifact, checks, saves); returns the answer. */
export async function runApiCall(call: ApiCall, ctx: ApiOpContext): Promise<unknown> {
  const res = await send(call, ctx, ctx.step.timeout_ms, true);
  const data = call.decode === 'exec' ? withTimedOut(call, res.data, ctx.gaps) : res.data;
  await handleResponse(call, data, ctx);
  return data;
}

/**
 * An exec answer with `timed_out`, ours: on the hosted wire it is missing, and a command that ran as long
 * as the `timeout_sec` it was given is taken as killed by it.
 */
function withTimedOut(call: ApiCall, data: unknown, gaps: TargetGaps): unknown {
  const answer = data as { timed_out?: unknown; duration_ms?: unknown } | undefined;
  if (!answer || typeof answer !== 'object' || typeof answer.timed_out === 'boolean') return data;
  gaps.lack('exec_timed_out');
  const limitS = (call.body as { timeout_sec?: unknown } | undefined)?.timeout_sec;
  const ranOut = typeof limitS === 'number' && typeof answer.duration_ms === 'number' && answer.duration_ms >= limitS * 1000;
  return { ...answer, timed_out: ranOut };
}

export async function runPoll(poll: PollCall, ctx: ApiOpContext): Promise<void> {
  const deadline = Date.now() + ctx.step.timeout_ms;
  let lastRequestId: string | undefined;
  let last = 'no answer yet';
  // The poll owns its whole deadline, the client's retries of a read included: a slow or retried last
  // request must end in "what it last saw", never in the step's bare backstop.
  let timer: NodeJS.Timeout | undefined;
  const givenUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(waitedTooLong(poll, ctx, last)), ctx.step.timeout_ms + LAST_REQUEST_GRACE_MS);
  });
  givenUp.catch(() => {});
  try {
    for (;;) {
      try {
        const res = await Promise.race([send(poll, ctx, Math.max(0, deadline - Date.now()) + LAST_REQUEST_GRACE_MS, false), givenUp]);
        lastRequestId = res.requestId;
        const decoded = decodeOrRaw(poll, res.data);
        const failed = decoded ? failedChecks(poll.until, decoded) : [];
        if (failed.length === 0) return await handleResponse(poll, res.data, ctx, decoded);
        last = failed.map((f) => f.message).join('; ');
      } catch (err) {
        if (err instanceof StepFailure) throw err;
        if (err instanceof ApiTimeoutError && Date.now() >= deadline) throw waitedTooLong(poll, ctx, last);
        if (!(err instanceof ApiError) || !poll.pending_status?.includes(err.status)) throw err;
        lastRequestId = err.requestId;
        last = `${err.status} ${err.code}: ${err.serverMessage}`;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw waitedTooLong(poll, ctx, last);
      await sleep(Math.min(poll.interval_ms, left), ctx.signal);
    }
  } finally {
    clearTimeout(timer);
    // Only the request that decided the outcome: a long wait would otherwise list hundreds of ids.
    if (lastRequestId) ctx.work.requestIds.push(lastRequestId);
  }
}

function waitedTooLong(poll: PollCall, ctx: ApiOpContext, last: string): StepFailure {
  return assertionFailed(`expected ${poll.waiting_for} within ${ctx.step.timeout_ms} ms; last check: ${last}`);
}

async function send(call: ApiCall, ctx: ApiOpContext, timeoutMs: number, record: boolean): Promise<ApiResponse<unknown>> {
  const opts: RequestOptions = {
    query: call.query,
    timeoutMs,
    signal: ctx.signal,
    responseType: call.response === 'bytes' ? 'bytes' : 'json',
    ...(await requestBody(call)),
  };
  // A scenario's own calls act on the browser (typing, running commands): repeating one after a lost
  // response could do it twice. Reads may be retried; setup and teardown keep the client's policy.
  if (ctx.step.phase === 'main' && call.method !== 'GET') opts.maxRetries = 0;
  try {
    const res = await ctx.client.request<unknown>(call.method, call.path, opts);
    if (record && res.requestId) ctx.work.requestIds.push(res.requestId);
    return res;
  } catch (err) {
    // The failed call is the one worth finding in the service's log.
    if (record && err instanceof ApiError && err.requestId) ctx.work.requestIds.push(err.requestId);
    throw err;
  }
}

async function requestBody(call: ApiCall): Promise<Pick<RequestOptions, 'body' | 'headers'>> {
  if (call.raw_body) {
    const bytes = 'text' in call.raw_body ? Buffer.from(call.raw_body.text, 'utf8') : await readLocal(call.raw_body.file);
    return { body: bytes, headers: { 'content-type': 'application/octet-stream' } };
  }
  if (call.form) {
    const form = new FormData();
    for (const field of call.form) {
      if ('file' in field) form.append(field.name, new Blob([new Uint8Array(await readLocal(field.file))]), basename(field.file));
      else form.append(field.name, field.value);
    }
    return { body: form };
  }
  if (call.body === undefined) return {};
  if (!call.json_text?.length) return { body: call.body };
  // The API takes these fields as JSON text; templates inside them were resolved with the rest of the call.
  const body = { ...(call.body as Record<string, unknown>) };
  for (const field of call.json_text) if (body[field] !== undefined) body[field] = JSON.stringify(body[field]);
  return { body };
}

async function readLocal(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new StepFailure('step', `cannot read local file ${file}: ${(err as Error).message}`);
  }
}

/** What an answer is made into: the artifact written, the checks, the saved variable, the step's output. */
export async function handleResponse(call: ApiCall, data: unknown, ctx: ApiOpContext, decoded = decodeOrRaw(call, data)): Promise<void> {
  // Written before the checks, so a file that fails them is there to look at.
  if (call.artifact) {
    const file = join(ctx.artifactDir, call.artifact.file);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, data instanceof Uint8Array ? data : JSON.stringify(data));
    ctx.work.artifacts.push({ type: call.artifact.type, path: relative(ctx.outputRoot, file) });
  }
  if (decoded && call.expect?.length) {
    const failed = failedChecks(call.expect, decoded);
    if (failed.length) throw assertionFailed(failureMessage(failed, decoded));
  }
  // Soft checks fail the step at its end without stopping it: what it saves is still saved.
  if (decoded && call.expect_soft?.length) {
    const failed = failedChecks(call.expect_soft, decoded);
    if (failed.length) (ctx.work.soft ??= []).push(failureMessage(failed, decoded));
  }
  if (call.save) ctx.scope[call.save] = decoded ? savedValue(decoded.text, decoded.fields) : data;
  // What a scenario's own step got back (a command's output, a file's text) is worth seeing when it passed too.
  if (decoded && ctx.step.phase === 'main') ctx.work.output = stepOutput(decoded);
}

/** Longest text kept per field in a step's output; the whole value stays available to `save`. */
const OUTPUT_TEXT_MAX = 2_000;

/** A text as a step's output shows it: the first 2,000 characters, and how many more there were. */
export function clipped(text: string): string {
  return text.length > OUTPUT_TEXT_MAX ? `${text.slice(0, OUTPUT_TEXT_MAX)}… (${text.length - OUTPUT_TEXT_MAX} more characters)` : text;
}

function stepOutput(decoded: Decoded): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(decoded.fields)) {
    // A file's parsed JSON repeats its text.
    if (key === 'json') continue;
    out[key] = typeof value === 'string' ? clipped(value) : value;
  }
  return out;
}

function decodeOrRaw(call: ApiCall, data: unknown): Decoded | undefined {
  return call.decode ? decode(call.decode, data) : undefined;
}
