// The README's sample is the first scenario a reader runs: it must be the file it says it is, word for
// word, so what they read is what `bcs run scenarios/quickstart.yaml` does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from './helpers/cli.js';

test("the README's scenario sample is scenarios/quickstart.yaml, as it says", async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = /^## What a scenario looks like\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  const sample = /^`([^`]+\.yaml)`[^\n]*\n\n```yaml\n([\s\S]*?)^```$/m.exec(section);
  expect(sample?.[1]).toBe('scenarios/quickstart.yaml');
  expect(sample?.[2]).toBe(await readFile(join(ROOT, 'scenarios/quickstart.yaml'), 'utf8'));
});
