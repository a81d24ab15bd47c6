// The folder of this package (package.json, dist/, node_modules/): what a service's monitors run `bcs run`
// from. Found by walking up from this module, which esbuild may have moved into a chunk anywhere under dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pkg from '../../package.json' with { type: 'json' };

export function packageRoot(from = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === pkg.name) return dir;
    if (dirname(dir) === dir) throw new Error(`cannot find the ${pkg.name} package above ${from}`);
  }
}
