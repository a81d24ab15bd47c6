// `--reporter json`: the run's results as <output-dir>/results.json, in the schema runner/results.schema.json
// documents (the RunResult type in ../results.ts).
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunReporter } from './reporter.js';

export function jsonReporter(outputDir: string): RunReporter & { file: string } {
  const file = join(outputDir, 'results.json');
  return {
    name: 'json',
    file,
    files: [file],
    async runFinished(run) {
      await mkdir(outputDir, { recursive: true });
      // Written whole, then renamed: a reader (CI collecting results) never sees half a file.
      const partial = `${file}.${process.pid}.tmp`;
      await writeFile(partial, `${JSON.stringify(run, null, 2)}\n`);
      await rename(partial, file);
    },
  };
}
