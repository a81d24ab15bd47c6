// API responses → the fields that expectations check and saved variables expose (the shapes are listed
// with `Decoder` in src/scenario/plan.ts and in src/scenario/saves.ts, which checks templates against them).
import { createHash } from 'node:crypto';
import type { Invocation } from '../../src/api/schemas/apps.js';
import type { Decoder } from '../../src/scenario/plan.js';
import { StepFailure } from './failures.js';

export interface Decoded {
  fields: Record<string, unknown>;
  /** What `{{ name }}` renders: an exec's stdout, a file's text, a clipboard's text, a code's result. */
  text: string;
  /** Why a field is absent (the file is not JSON), so a check on it can say so. */
  absent?: Record<string, string>;
  /** Output worth showing when a check fails, e.g. a failed command's stderr; skipped if a failed check shows it already. */
  context?: { subject: string; text: string }[];
  /** A fact worth stating in any failure: "the command timed out". */
  note?: string;
}

interface ExecResponse {
  exit_code: number;
  stdout_b64?: string;
  stderr_b64?: string;
  duration_ms?: number;
  timed_out?: boolean;
}

interface ExecuteResponse {
  success: boolean;
  result?: unknown;
  error?: string;
  stdout?: string;
  stderr?: string;
}

export function decode(decoder: Decoder, data: unknown): Decoded {
  switch (decoder) {
    case 'exec': {
      const r = data as ExecResponse;
      const stdout = withoutFinalNewline(fromBase64(r.stdout_b64));
      const stderr = withoutFinalNewline(fromBase64(r.stderr_b64));
      return {
        fields: { exit_code: r.exit_code, stdout, stderr, duration_ms: r.duration_ms, timed_out: r.timed_out ?? false },
        text: stdout,
        context: [{ subject: 'stderr', text: stderr }, { subject: 'stdout', text: stdout }].filter((c) => c.text !== ''),
        note: r.timed_out ? 'the command timed out and was killed' : undefined,
      };
    }
    case 'spawn': {
      const r = data as { process_id: string; pid: number; started_at: string };
      return { fields: { process_id: r.process_id, pid: r.pid, started_at: r.started_at }, text: r.process_id };
    }
    case 'process_status': {
      const r = data as { state: string; exit_code?: number };
      return { fields: { state: r.state, exit_code: r.exit_code }, text: r.state };
    }
    case 'file': {
      const bytes = Buffer.from(data as Uint8Array);
      const text = bytes.toString('utf8');
      const decoded: Decoded = {
        fields: { text, size_bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
        text,
      };
      try {
        decoded.fields.json = JSON.parse(text);
      } catch (err) {
        decoded.absent = { json: `the file is not JSON (${(err as Error).message})` };
      }
      return decoded;
    }
    case 'file_info': {
      const r = data as Record<string, unknown>;
      return { fields: r, text: String(r.path ?? '') };
    }
    case 'clipboard': {
      const text = String((data as { text?: unknown }).text ?? '');
      return { fields: { text }, text };
    }
    case 'execute': {
      const r = data as ExecuteResponse;
      if (!r.success) {
        const stderr = r.stderr?.trim() ? `; stderr: ${tail(r.stderr.trim())}` : '';
        throw new StepFailure('step', `playwright code failed: ${r.error ?? 'no error message'}${stderr}`);
      }
      const text = typeof r.result === 'string' ? r.result : (JSON.stringify(r.result) ?? '');
      return {
        fields: { result: r.result, stdout: r.stdout ?? '', stderr: r.stderr ?? '' },
        text,
        context: [{ subject: 'stderr', text: r.stderr ?? '' }].filter((c) => c.text.trim() !== ''),
      };
    }
    case 'invocation':
      return decodeInvocation(data as Invocation);
  }
}

/**
 * A finished invocation: its output (JSON text on the wire) parsed. A failed one has no output; its reason
 * is shown with any check that fails, unless the check is on the reason itself.
 */
function decodeInvocation(r: Invocation): Decoded {
  const fields: Record<string, unknown> = { id: r.id, status: r.status };
  if (r.status_reason !== undefined) fields.status_reason = r.status_reason;
  const decoded: Decoded = { fields, text: '' };
  if (r.output === undefined) {
    const why = r.status === 'failed' ? 'the invocation failed, so there is no output' : `the invocation has no output (it is ${r.status})`;
    decoded.absent = { output: why };
  } else {
    try {
      fields.output = JSON.parse(r.output);
      decoded.text = typeof fields.output === 'string' ? fields.output : r.output;
    } catch (err) {
      decoded.absent = { output: `the output is not JSON (${(err as Error).message})` };
      decoded.text = r.output;
    }
  }
  if (r.status_reason) decoded.context = [{ subject: 'status_reason', text: r.status_reason }];
  return decoded;
}

function fromBase64(b64: string | undefined): string {
  return b64 ? Buffer.from(b64, 'base64').toString('utf8') : '';
}

/** `echo ok` prints "ok\n"; scenarios compare and reuse "ok". Only one newline goes, so blank lines stay. */
function withoutFinalNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** The end of long output: where errors usually are. */
export function tail(text: string, max = 500): string {
  return text.length > max ? `…${text.slice(-max)}` : text;
}
