// `secrets:` compiled to a setup step that reads them when the run starts. The plan names only where each
// secret comes from; its value exists only in the runner, which masks it in everything it reports. Each
// source is checked here too, so a missing variable or file stops `bcs run` before any browser starts.

import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { DeclaredSecret } from './expand.js';
import type { Operation, PlanStep, SecretSource } from './plan.js';

const SECRETS_TIMEOUT_MS = 10_000;

export function secretsStep(declared: DeclaredSecret[], env: Record<string, string | undefined>, check: boolean): Omit<PlanStep, 'index'> | undefined {
  if (declared.length === 0) return undefined;
  const sources: Record<string, SecretSource> = {};
  for (const s of declared) {
    if ('env' in s.source) {
      if (check && env[s.source.env] === undefined) {
        s.file.report(['secrets', s.name, 'env'], `environment variable '${s.source.env}' is not set (secret '${s.name}')`);
      }
      sources[s.name] = { env: s.source.env };
    } else {
      const file = path.resolve(s.file.dir, s.source.file);
      const problem = check ? unreadable(file) : undefined;
      if (problem) s.file.report(['secrets', s.name, 'file'], `cannot read secret file ${file}: ${problem} (secret '${s.name}')`);
      sources[s.name] = { file };
    }
  }
  const root = declared[0]!.file;
  const operation: Operation = { op: 'secrets', secrets: sources };
  return {
    phase: 'setup', kind: 'secrets', name: `read secrets ${Object.keys(sources).join(', ')}`,
    source: { file: root.loaded.file, ...root.loaded.locate(['secrets'], 'key') },
    timeout_ms: SECRETS_TIMEOUT_MS, operations: [operation],
  };
}

function unreadable(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return 'not a file';
    accessSync(file, constants.R_OK);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
  }
}
