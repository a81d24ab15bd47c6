// Where a command gets an API key: `--api-key-file PATH` or BCS_API_KEY in the environment, never the
// command line if it can help it. `--api-key KEY` still works, with a warning, since whoever can list
// processes reads it in /proc/<pid>/cmdline (and the shell keeps it in its history); once read, the
// key is wiped from this process's command line.
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { UsageError } from './usage-error.js';

export function addApiKeyOptions(command: Command, what: string): Command {
  return command
    .addOption(new Option('--api-key-file <path>', `a file holding ${what} (or set BCS_API_KEY)`))
    .addOption(new Option('--api-key <key>', `${what}; visible to other users in the process list, prefer BCS_API_KEY or --api-key-file`).hideHelp());
}

/** The key from --api-key-file, BCS_API_KEY or (warned about) --api-key; undefined when none is given. */
export function resolveApiKey(o: { apiKey?: unknown; apiKeyFile?: unknown }, warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): string | undefined {
  if (typeof o.apiKeyFile === 'string' && o.apiKeyFile) {
    let text: string;
    try {
      text = readFileSync(o.apiKeyFile, 'utf8');
    } catch (err) {
      throw new UsageError(`--api-key-file: cannot read '${o.apiKeyFile}' (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    const key = text.trim();
    if (!key) throw new UsageError(`--api-key-file: '${o.apiKeyFile}' is empty`);
    return key;
  }
  if (typeof o.apiKey === 'string' && o.apiKey) {
    warn('bcs: warning: --api-key puts the key on the command line, where other users can read it (/proc/<pid>/cmdline) and the shell keeps it; use BCS_API_KEY or --api-key-file');
    scrubArgv(o.apiKey);
    return o.apiKey;
  }
  return process.env.BCS_API_KEY || undefined;
}

/**
 * Rewrites the process title without the key: on Linux that overwrites the memory /proc/<pid>/cmdline
 * reads from, so the key is visible only for the moment before this runs.
 */
function scrubArgv(key: string): void {
  try {
    process.title = process.argv.map((arg) => (arg.includes(key) ? '***' : arg)).join(' ');
  } catch {
    // not supported here: nothing more can be done
  }
}
