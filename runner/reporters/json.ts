// Writes the run's results (the RunResult schema in ../results.ts) to <output-dir>/results.json.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunReporter } from '../reporter.js';

export function jsonReporter(outputDir: string): RunReporter & { file: string } {
  const file = join(outputDir, 'results.json');
  return {
    file,
    async runFinished(run) {
      await mkdir(outputDir, { recursive: true });
      await writeFile(file, `${JSON.stringify(run, null, 2)}\n`);
    },
  };
}
