// Loads a TypeScript scenario file: esbuild bundles it (no tsc step for users), the bundle is imported from
// a temporary .mjs beside the file (so its relative imports and node_modules resolve as they would for the
// file itself), and its default export — a builder, or a list of builders — is compiled like YAML.
// Bare imports stay external, so `browser-scenarios` is the installed package, one copy for everything.

import type { BuildFailure, Message } from 'esbuild';
import { randomBytes } from 'node:crypto';
import { rm, stat, writeFile } from 'node:fs/promises';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SCENARIO_DEFINITION, compileDefinition, isDefinable, type ScenarioDefinition } from './builder-compile.js';
import { parseFrame, positionOf, type CallSite, type SiteMapper } from './builder-sites.js';
import type { CompileOptions } from './compile.js';
import { ScenarioError, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import type { CompiledScenario } from './functions.js';
import { planSources } from './sources.js';

/** The file names the TypeScript loader takes; anything else is YAML. */
export const TS_SCENARIO_FILE = /\.m?ts$/;

interface Bundle {
  code: string;
  map: SourceMapPayload;
  /** Every local file esbuild read for the bundle (packages stay external), absolute. */
  inputs: string[];
}

/** Every scenario the file exports, each with its own plan; throws ScenarioError with every problem found. */
export async function loadTsScenarios(file: string, opts: CompileOptions = {}): Promise<CompiledScenario[]> {
  const abs = path.resolve(file);
  await checkReadable(file, abs);
  const out = path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}-${randomBytes(4).toString('hex')}.bcs.mjs`);
  const bundle = await bundleScenario(file, abs, out);
  const origins = new SourceMap(bundle.map);
  const mapSite: SiteMapper = (site) => (site.file === out ? originOf(origins, site, out) ?? { file: abs, line: 1, col: 1 } : site);

  // Stack traces of the scenario's own code (function steps failing later) then name its TypeScript lines.
  if (!process.sourceMapsEnabled) process.setSourceMapsEnabled(true);
  let exported: unknown;
  try {
    await writeFile(out, bundle.code);
    exported = ((await import(pathToFileURL(out).href)) as { default?: unknown }).default;
  } catch (err) {
    throw new ScenarioError([loadFailure(err, file, out, mapSite)]);
  } finally {
    await rm(out, { force: true });
  }
  return compileExports(exported, file, opts, mapSite).map((c) => ({ ...c, sources: planSources(c.plan, bundle.inputs) }));
}

/** The messages YAML loading gives, before esbuild words the same problems its own way. */
async function checkReadable(file: string, abs: string): Promise<void> {
  let message: string | undefined;
  try {
    if (!(await stat(abs)).isFile()) message = 'is a directory, not a scenario file';
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    message = e.code === 'ENOENT' ? 'scenario file not found' : `cannot read scenario file: ${e.message}`;
  }
  if (message) throw new ScenarioError([{ file, line: 1, col: 1, message }]);
}

async function bundleScenario(file: string, abs: string, out: string): Promise<Bundle> {
  try {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [abs],
      outfile: out,
      write: false,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      packages: 'external',
      // Inline for Node's own stack traces, and as a file to map builder call sites here.
      sourcemap: 'both',
      sourcesContent: false,
      absWorkingDir: process.cwd(),
      logLevel: 'silent',
      // Which files the scenario imports: what it depends on (`bcs run --only-changed`).
      metafile: true,
    });
    const code = result.outputFiles.find((f) => f.path === out)?.text;
    const map = result.outputFiles.find((f) => f.path === `${out}.map`)?.text;
    if (code === undefined || map === undefined) throw new Error('esbuild produced no bundle');
    const inputs = Object.keys(result.metafile.inputs).map((f) => path.resolve(process.cwd(), f));
    return { code, map: JSON.parse(map) as SourceMapPayload, inputs };
  } catch (err) {
    const messages = (err as Partial<BuildFailure>).errors;
    if (!Array.isArray(messages) || messages.length === 0) throw err;
    throw new ScenarioError(sortDiagnostics(messages.map((m) => buildDiagnostic(m, file, abs))));
  }
}

/** esbuild names files relative to the working folder, lines 1-based and columns 0-based. */
function buildDiagnostic(m: Message, file: string, abs: string): Diagnostic {
  if (!m.location) return { file, line: 1, col: 1, message: m.text };
  const where = path.resolve(m.location.file) === abs ? file : m.location.file;
  return { file: where, line: m.location.line, col: m.location.column + 1, message: m.text };
}

/** Where a position in the bundle was written, by the bundle's source map. */
function originOf(map: SourceMap, site: CallSite, out: string): CallSite | undefined {
  const origin = map.findOrigin(site.line, site.col);
  if (!('fileName' in origin)) return undefined;
  return { file: path.resolve(path.dirname(out), origin.fileName), line: origin.lineNumber, col: origin.columnNumber };
}

/** A file that throws while it is imported: the message, at the first line of the file's own code in the trace. */
function loadFailure(err: unknown, file: string, out: string, mapSite: SiteMapper): Diagnostic {
  const raw = err instanceof Error ? err.message : String(err);
  // Node names the temporary file in resolution errors; the user knows the scenario file.
  const message = `cannot load the scenario: ${raw.split(out).join(file)}`;
  const frames = err instanceof Error ? (err.stack ?? '').split('\n').slice(1) : [];
  const abs = path.resolve(file);
  for (const frame of frames) {
    const site = parseFrame(frame);
    if (!site) continue;
    const mapped = mapSite(site);
    if (mapped.file === abs || site.file === out) return { file, ...positionOf(mapped, file), message };
  }
  return { file, line: 1, col: 1, message };
}

function compileExports(exported: unknown, file: string, opts: CompileOptions, mapSite: SiteMapper): CompiledScenario[] {
  const list = Array.isArray(exported) ? exported : [exported];
  if (list.length === 0 || !list.every(isDefinable)) {
    const message = exported === undefined
      ? "no default export: end the file with `export default scenario('name')...` (or a list of scenarios)"
      : "the default export must be a scenario built with scenario('name'), or a list of them";
    throw new ScenarioError([{ file, line: 1, col: 1, message }]);
  }
  const definitions: ScenarioDefinition[] = list.map((b) => b[SCENARIO_DEFINITION]());
  const compiled: CompiledScenario[] = [];
  const diagnostics: Diagnostic[] = [];
  const names = new Set<string>();
  for (const def of definitions) {
    try {
      const scenario = compileDefinition(def, file, opts, mapSite, true);
      const name = scenario.plan.scenario.name;
      // Results and artifacts are filed by name: two of one name in a file would overwrite each other.
      if (names.has(name)) {
        const root = def.sites.find(([at]) => at.length === 0)?.[1];
        diagnostics.push({ file, ...positionOf(root && mapSite(root), file), message: `another scenario in this file is already named '${name}'` });
      }
      names.add(name);
      compiled.push(scenario);
    } catch (err) {
      if (!(err instanceof ScenarioError)) throw err;
      diagnostics.push(...err.diagnostics);
    }
  }
  if (diagnostics.length > 0) throw new ScenarioError(sortDiagnostics(diagnostics));
  return compiled;
}
