// Generates src/scenario/generated/scenario-types.ts: the TypeScript types of a scenario's data (each step
// kind's value, the browser, the context, ...), one per $defs entry of scenario.schema.json, with each field's
// description as its doc comment. The schema stays the one place a step kind's shape is written; the
// TypeScript builder (builder-types.ts) names these types instead of declaring them again.
// Kept as plain JS: runner/build.mjs runs it before anything is compiled.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SCHEMA = `${root}src/scenario/scenario.schema.json`;
const OUT = `${root}src/scenario/generated`;

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];
const LIST = ['anyOf', 'oneOf', 'allOf'];
const MAP = ['properties', '$defs', 'patternProperties'];
/** Keywords that give a value a shape; a schema with none of them accepts anything. */
const SHAPE = ['type', '$ref', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'properties', 'items', 'additionalProperties', 'patternProperties', 'tsType', '$defs', 'required'];
/** Rules a type cannot say (which keys go together, how many locators): ajv checks them, types leave them out. */
const RULES_ONLY = ['not', 'if', 'then', 'else', 'dependencies'];

/**
 * The schema as types see it: types are named by their $defs key (a `title` is for editors' hover text; as
 * a type's name it would give "Width1", and every untitled $ref would be inlined again), and subschemas that
 * only state rules (`dependencies`, `oneOf: [{ required: [a] }, { required: [b] }]` on a shapeless object)
 * are dropped, since they would add nothing but `{ [k: string]: unknown }`.
 */
function forTypes(node) {
  if (Array.isArray(node)) return node.map(forTypes);
  if (node === null || typeof node !== 'object') return node;
  // A $ref with words beside it would be copied into a type of its own (Duration1, Duration2, ...): the
  // reference becomes a one-branch allOf, so the words document the field and the type stays the shared one.
  if (typeof node.$ref === 'string' && Object.keys(node).length > 1) {
    return node.description ? { description: node.description, allOf: [{ $ref: node.$ref }] } : { $ref: node.$ref };
  }
  if (exclusiveKeys(node)) return forTypes(exactUnion(node));
  // Any JSON value (`equals`, `payload`): the generator would read a schema without a type as an object.
  if (!Object.keys(node).some((k) => SHAPE.includes(k))) return { ...node, tsType: 'unknown' };
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'title' || key === 'examples' || key === '$id' || RULES_ONLY.includes(key)) continue;
    if (MAP.includes(key)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forTypes(v)]));
    else if (LIST.includes(key)) {
      const kept = value.map(forTypes).filter((branch) => !rulesOnly(branch));
      if (kept.length) out[key] = kept;
    } else if (ONE.includes(key)) out[key] = typeof value === 'object' ? forTypes(value) : value;
    else out[key] = value;
  }
  return out;
}

/**
 * `{ properties, oneOf: [{ required: [name] }, { required: [id] }] }`: an object with exactly one of some keys
 * (a profile by name or by id). Typed as that union, so TypeScript refuses both. Not for a step: its kinds are
 * checked by the schema, and a union of every kind would only slow the type checker down.
 */
function exclusiveKeys(node) {
  return node.properties && Array.isArray(node.oneOf) && node.oneOf.every((b) => Object.keys(b).length === 1 && Array.isArray(b.required))
    && !('goto' in node.properties);
}

function exactUnion({ oneOf, title, description, ...node }) {
  const all = [...new Set(oneOf.flatMap((b) => b.required))];
  return {
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    anyOf: oneOf.map((b) => ({
      ...node,
      required: [...(node.required ?? []), ...b.required],
      properties: { ...node.properties, ...Object.fromEntries(all.filter((k) => !b.required.includes(k)).map((k) => [k, { tsType: 'never' }])) },
    })),
  };
}

/** How a TypeScript scenario writes a duration: the schema's strings, or a number of milliseconds. */
const BUILDER_DURATION = 'number | `${number}ms` | `${number}s` | `${number}m` | `{{${string}}}`';

/** A branch with nothing but `required` (and words): a rule on keys, no shape of its own. */
function rulesOnly(branch) {
  return Object.keys(branch).every((k) => k === 'required' || k === 'description');
}

export async function writeScenarioTypes() {
  // A dev dependency: only the type checker reads these types. An install without dev dependencies builds
  // dist/ all the same, and has no tsc to need them.
  const generator = await import('json-schema-to-typescript').catch(() => undefined);
  if (!generator) return;
  const schema = forTypes(JSON.parse(await readFile(SCHEMA, 'utf8')));
  // Each definition is one named type, named for its key (`wait_for_download` → WaitForDownload).
  for (const [key, def] of Object.entries(schema.$defs)) def.title = key;
  // The builder's durations may be numbers of milliseconds, as in Playwright (builder-compile.ts adds the unit).
  schema.$defs.duration = { title: 'duration', description: schema.$defs.duration.description, tsType: BUILDER_DURATION };
  const ts = await generator.compile(schema, 'Scenario', {
    bannerComment: '// Generated by runner/scenario-types.mjs from scenario.schema.json; do not edit.',
    additionalProperties: false,
    // `minItems: 1` would type lists as tuples ([T, ...T[]]), which arrays built in code are not.
    ignoreMinAndMaxItems: true,
    unreachableDefinitions: true,
    format: false,
    declareExternallyReferenced: true,
    $refOptions: {},
  });
  await mkdir(OUT, { recursive: true });
  await writeFile(`${OUT}/scenario-types.ts`, ts);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeScenarioTypes();
}
