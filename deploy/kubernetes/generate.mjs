// Writes the Kubernetes manifests from generate.ts (`npm run deploy:generate`). Plain JS, as runner/build.mjs
// is: esbuild compiles the TypeScript (npm packages left external) into node_modules/.cache, where Node
// resolves those packages, and the result runs here.
//   npm run deploy:generate                                        the committed files, beside this one
//   npm run deploy:generate -- --options my-cluster.json --out DIR  your cluster's (ClusterOptions as JSON)
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));
const outfile = `${root}node_modules/.cache/bcs-deploy/generate.mjs`;

const { values } = parseArgs({ options: { options: { type: 'string' }, out: { type: 'string' } } });
if (values.options && !values.out) {
  process.stderr.write('deploy:generate: --options needs --out: the files beside generate.ts are the defaults the tests check\n');
  process.exit(2);
}
const options = values.options ? JSON.parse(await readFile(values.options, 'utf8')) : {};

await build({
  absWorkingDir: root,
  entryPoints: ['deploy/kubernetes/generate.ts'],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  logLevel: 'warning',
});
const { writeManifests } = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
for (const file of await writeManifests(values.out ? resolve(values.out) : here, options)) process.stdout.write(`wrote ${relative(process.cwd(), file)}\n`);
