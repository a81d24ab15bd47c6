#!/usr/bin/env node
// The `bcs` executable: the CLI is compiled to dist/ by `npm ci` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';
const cli = new URL('../dist/runner/cli/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('bcs: dist/ is missing; run `npm run build` (npm ci does it for you)\n');
  process.exit(2);
}
await import(cli.href);
