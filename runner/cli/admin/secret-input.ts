// Secrets for administration commands (a proxy password, credential values, a TOTP secret) come from an
// environment variable or a pipe on stdin, never from an argument: the process list shows every argument
// to every user of the machine. A terminal on stdin would echo what is typed, so stdin must be a pipe.
import { UsageError } from '../usage-error.js';

/** The value of environment variable `name` for `flag`; unset or empty is a usage error. */
export function fromEnv(flag: string, name: string): string {
  const value = process.env[name];
  if (!value) throw new UsageError(`${flag} ${name}: that environment variable is not set or empty`);
  return value;
}

/** Everything piped to stdin, for `flag`; `example` shows how to pipe it. */
export async function readStdin(flag: string, example: string): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError(`${flag} reads a pipe, e.g. \`${example}\``);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
