// A recorded scenario as a YAML file: the header a runnable scenario needs, then the steps one a line
// where they fit, as the examples in docs/scenarios.md are written.
import { isAbsolute, relative, dirname } from 'node:path';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Step } from './translate.js';

export interface ScenarioFileOptions {
  name: string;
  /** Where the file goes: the schema line is relative to it. */
  file?: string;
  /**
   * The schema's absolute path, for the editor line (`# yaml-language-server: $schema=`); without it (a file
   * recorded on a service, downloaded to wherever) there is no such line.
   */
  schemaPath?: string;
  /** The page size the recording had: the run gets the same, so locators find what was recorded. */
  viewport: { width: number; height: number };
  steps: Step[];
  /** Recorded actions no step says, listed at the top for the author to add by hand. */
  skipped?: string[];
}

/** yaml, loaded when a file is first written: the service loads this module as it starts, and most never record. */
let yaml: typeof Yaml | undefined;
const loadYaml = () => (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);

/** A step this long or shorter is written on one line (`- click: { role: button, name: Save }`). */
const ONE_LINE = 100;

export function scenarioYaml(o: ScenarioFileOptions): string {
  const schemaPath = o.schemaPath;
  const schema = schemaPath === undefined ? undefined : o.file && !isAbsolute(schemaPath) ? schemaPath : o.file ? relative(dirname(o.file), schemaPath) : schemaPath;
  const { Document, isMap, isSeq, visit } = loadYaml();
  const doc = new Document({
    name: o.name,
    browser: { headless: true, viewport: o.viewport },
    steps: o.steps,
  });
  visit(doc, {
    Map(_, node, path) {
      // Each step's value (and the header's viewport) on one line when it is short and flat enough.
      const parent = path[path.length - 1];
      if (!parent || isSeq(parent)) return;
      if (node.items.some((i) => isMap(i.value) && String((i.key as { value?: unknown }).value) !== 'within' && String((i.key as { value?: unknown }).value) !== 'switch_page'))
        return;
      if (JSON.stringify(node.toJSON()).length <= ONE_LINE && !JSON.stringify(node.toJSON()).includes('\\n')) node.flow = true;
    },
  });
  const header = schema === undefined ? [] : [`# yaml-language-server: $schema=${schema.split('\\').join('/')}`];
  if (o.skipped?.length) {
    header.push('# Recorded but not written as steps (add them by hand):');
    for (const s of o.skipped) header.push(`#   ${s}`);
  }
  return `${header.map((l) => `${l}\n`).join('')}${doc.toString({ lineWidth: 0 })}`;
}
