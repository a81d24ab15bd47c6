// What the hosted SDK (@onkernel/sdk) declares, read with the TypeScript compiler from its own .d.ts files,
// and a check of JSON answers against those declarations. Used by test/service/sdk-surface.test.ts, which
// calls every method against the real service: the SDK's types are the contract, so nothing here restates
// a response shape by hand.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sdkDir = dirname(createRequire(join(root, 'package.json')).resolve('@onkernel/sdk'));

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  // The answer types are plain interfaces over ES types: without the DOM lib and @types/node (where the
  // SDK's request and upload types point, unread here) the compiler has a fraction of the text to load.
  lib: ['lib.es2023.d.ts'],
  types: [],
  strict: true,
  // As in our tsconfig and the compiler's default: an optional field may hold `undefined`.
  exactOptionalPropertyTypes: false,
  skipLibCheck: true,
  noEmit: true,
};

function dtsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? dtsFiles(join(dir, e.name)) : e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );
}

function isPublic(decl: ts.Declaration): boolean {
  const name = (decl as ts.NamedDeclaration).name;
  return (ts.getCombinedModifierFlags(decl) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0 && !(name && ts.isPrivateIdentifier(name));
}

export interface SdkSurface {
  /** Every public method of every resource reachable from the client, as `browsers.fs.watch.start`. */
  methods: string[];
  /** Resource classes declared under resources/ that no client property leads to (their methods have no call path). */
  unreachableClasses: string[];
}

/**
 * Walks the client class from `index.d.ts`: a property whose type is a class declared under `resources/` is a
 * resource (recursed into, so `browsers.fs.watch` is found), a public method declared there is an API method.
 * Then every class under `resources/**\/*.d.ts` must have been reached, so a resource the client does not
 * expose cannot hide methods from the walk.
 */
export function sdkSurface(): SdkSurface {
  const resourcesDir = join(sdkDir, 'resources');
  const files = dtsFiles(resourcesDir);
  // Only the SDK's own declarations matter for finding classes and methods: no lib, no @types.
  const program = ts.createProgram([join(sdkDir, 'index.d.ts'), ...files], { ...compilerOptions, noLib: true });
  const checker = program.getTypeChecker();
  const inResources = (node: ts.Node) => node.getSourceFile().fileName.startsWith(resourcesDir);

  const clientFile = program.getSourceFile(join(sdkDir, 'client.d.ts'));
  const clientClass = clientFile?.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === 'Kernel');
  if (!clientClass?.name) throw new Error('no Kernel class in @onkernel/sdk/client.d.ts');

  const methods: string[] = [];
  const reached = new Set<ts.Symbol>();
  const walk = (type: ts.Type, prefix: string) => {
    for (const prop of checker.getPropertiesOfType(type)) {
      const decl = prop.valueDeclaration ?? prop.declarations?.[0];
      if (!decl || !isPublic(decl)) continue;
      if (prop.flags & ts.SymbolFlags.Method) {
        if (inResources(decl)) methods.push(prefix + prop.name);
        continue;
      }
      const propType = checker.getTypeOfSymbol(prop);
      const cls = propType.getSymbol();
      const clsDecl = cls?.declarations?.find(ts.isClassDeclaration);
      if (cls && clsDecl && inResources(clsDecl) && !reached.has(cls)) {
        reached.add(cls);
        walk(propType, `${prefix}${prop.name}.`);
      }
    }
  };
  walk(checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(clientClass.name)!), '');

  const unreachableClasses: string[] = [];
  for (const file of files) {
    const sf = program.getSourceFile(file)!;
    for (const s of sf.statements) {
      if (!ts.isClassDeclaration(s) || !s.name) continue;
      const sym = checker.getSymbolAtLocation(s.name);
      if (sym && !reached.has(sym)) unreachableClasses.push(`${s.name.text} (${file.slice(sdkDir.length + 1)})`);
    }
  }
  return { methods: methods.sort(), unreachableClasses };
}

/** One value to hold against a method's declared result: its JSON answer, or the events of its stream. */
export interface Sample {
  method: string;
  kind: 'answer' | 'events';
  value: unknown;
}

export interface ShapeReport {
  /** What the SDK's types reject: a missing required field, a wrong type. These are bugs in the service. */
  errors: { method: string; message: string }[];
  /** Fields the SDK's types do not declare (our extensions, or drift): listed, not failed. */
  extras: { method: string; path: string }[];
}

// `Answer` is what a method resolves to, with a paged list as the array of its items (the body on the wire);
// `Events` is the array of what a stream yields.
const PRELUDE = `import type Kernel from '@onkernel/sdk';
type Fn = (...args: any) => any;
type Answer<M extends Fn> = ReturnType<M> extends AsyncIterable<infer Item> ? Item[] : Awaited<ReturnType<M>>;
type Events<M extends Fn> = Awaited<ReturnType<M>> extends AsyncIterable<infer E> ? E[] : never;
`;

const label = (s: Sample) => `${s.method}${s.kind === 'events' ? ' (events)' : ''}`;
const typeOf = (s: Sample) => `${s.kind === 'events' ? 'Events' : 'Answer'}<Kernel${s.method.split('.').map((p) => `['${p}']`).join('')}>`;

/**
 * Type-checks each sample as `const rN: Answer<Kernel['a']['b']> = <json>;` with the compiler, in a file that
 * exists only in memory beside the tests (so `@onkernel/sdk` resolves as it does for them).
 *
 * A fresh object literal gets TypeScript's best report (every wrong-typed property, each at its place), but
 * also its excess-property check, which stops at the first unknown field and hides the rest of that object's
 * problems. So extras are found first, by walking each value alongside its declared type, listed, and removed;
 * the literals then checked hold only declared fields, and whatever the compiler still says is a real mismatch.
 */
export function checkShapes(samples: Sample[]): ShapeReport {
  const file = join(root, 'test', 'helpers', '__sdk_surface_check__.ts');
  const host = ts.createCompilerHost(compilerOptions);
  let text = '';
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (name === file ? ts.createSourceFile(name, text, lang) : getSourceFile(name, lang, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? text : readFile(name));

  // Pass 1: only the declared types, to walk the values against.
  text = PRELUDE + samples.map((s, i) => `export type T${i} = ${typeOf(s)};\n`).join('');
  let program = ts.createProgram([file], compilerOptions, host);
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(file)!;
  const setup = program.getSemanticDiagnostics(sf);
  if (setup.length) throw new Error(`the declared types do not resolve:\n${setup.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n')}`);
  const aliases = sf.statements.filter(ts.isTypeAliasDeclaration).filter((d) => /^T\d+$/.test(d.name.text));

  const extras: ShapeReport['extras'] = [];
  const missing: { method: string; path: string; type: string }[] = [];
  const checked: { sample: Sample; value: unknown }[] = [];
  samples.forEach((s, i) => {
    const method = label(s);
    const type = checker.getTypeAtLocation(aliases[i]!.name);
    // A declaration that did not resolve reads as `any`, which would accept anything: say so instead.
    if (type.flags & ts.TypeFlags.Any) throw new Error(`${method}: the SDK's declared result resolves to any here, so it cannot be checked`);
    // A method declared void has nothing to check: the SDK hands over whatever came (an empty body reads
    // as ''), and a body there is only listed, since no caller can see it without a cast.
    if (type.flags & ts.TypeFlags.Void) {
      if (s.value !== '' && s.value !== null && s.value !== undefined) extras.push({ method, path: '(a body where the SDK declares none)' });
      return;
    }
    const value = stripExtras(checker, s.value, [type], '', {
      extra: (path) => extras.push({ method, path }),
      missing: (path, type) => missing.push({ method, path, type }),
    });
    checked.push({ sample: s, value });
  });

  // Pass 2: the values, as literals of their declared types.
  const lines = PRELUDE.split('\n').length - 1;
  text = PRELUDE + checked.map(({ sample, value }, i) => `export const r${i}: ${typeOf(sample)} = ${JSON.stringify(value)};\n`).join('');
  program = ts.createProgram([file], compilerOptions, host, program);
  const errors = program.getSemanticDiagnostics(program.getSourceFile(file)).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const sample = checked[line - lines]?.sample;
    return { method: sample ? label(sample) : '?', message: readable(d) };
  });
  // Missing fields the compiler did not get to (it stops at the first problem of an object).
  for (const m of missing) {
    const [parent, key] = m.path.includes('.') ? [m.path.slice(0, m.path.lastIndexOf('.')), m.path.slice(m.path.lastIndexOf('.') + 1)] : ['', m.path];
    const named = errors.some((e) => e.method === m.method && e.message.includes(`'${key}'`) && (parent ? e.message.startsWith(`at ${parent}:`) : !e.message.startsWith('at ')));
    if (!named) errors.push({ method: m.method, message: `${parent ? `at ${parent}: ` : ''}required field '${key}' (${m.type}) is missing` });
  }
  // A list's elements mostly share their problems: each is named once, as `[]`.
  const once = <T extends { method: string }>(items: T[], key: (t: T) => string) => [...new Map(items.map((t) => [`${t.method} ${key(t)}`, t])).values()];
  return {
    errors: once(errors.map((e) => ({ ...e, message: e.message.replace(/\[\d+\]/g, '[]') })), (e) => e.message),
    extras: once(extras.map((e) => ({ ...e, path: e.path.replace(/\[\d+\]/g, '[]') })), (e) => e.path),
  };
}

/** A diagnostic's message with the literal's own long type text cut down, led by the path of the field it is at. */
function readable(d: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(d.messageText, ' / ').replace(/'(\{[^']{120,})'/g, (_m, t: string) => `'${t.slice(0, 100)}…'`);
  if (!d.file || d.start === undefined) return message;
  // The compiler reports a wrong-typed field at that field's key in the literal: name it from the key up.
  const path: string[] = [];
  for (let n: ts.Node | undefined = nodeAt(d.file, d.start); n && !ts.isVariableDeclaration(n); n = n.parent) {
    if (ts.isPropertyAssignment(n)) path.unshift(`.${(n.name as ts.StringLiteral).text}`);
    else if (n.parent && ts.isArrayLiteralExpression(n.parent)) path.unshift(`[${n.parent.elements.indexOf(n as ts.Expression)}]`);
  }
  return path.length ? `at ${path.join('').replace(/^\./, '')}: ${message}` : message;
}

function nodeAt(sf: ts.SourceFile, pos: number): ts.Node {
  let node: ts.Node = sf;
  for (;;) {
    const child = node.getChildren(sf).find((c) => c.getStart(sf) <= pos && pos < c.getEnd());
    if (!child) return node;
    node = child;
  }
}

interface Found {
  extra(path: string): void;
  missing(path: string, type: string): void;
}

/**
 * A copy of `value` without the object fields its declared type does not know, each reported by its path.
 * `types` are the readings of the type at this point (the members of a union, the types of a field in
 * each member that has it). Lenient, as extras are only listed: a field any reading declares is kept, an
 * index signature keeps every field, and `unknown`/`any` end the walk. Required fields that are absent are
 * reported too.
 */
function stripExtras(checker: ts.TypeChecker, value: unknown, types: readonly ts.Type[], path: string, found: Found): unknown {
  if (value === null || typeof value !== 'object') return value;
  const members = types.flatMap((t) => (t.isUnion() ? t.types : [t])).filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
  if (!members.length || members.some((t) => t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))) return value;
  if (Array.isArray(value)) {
    const elements = members.flatMap((t) => (checker.isArrayType(t) || checker.isTupleType(t) ? checker.getTypeArguments(t as ts.TypeReference) : []));
    // Not an array in the type: left as it is, for the compiler to report.
    return elements.length ? value.map((v, i) => stripExtras(checker, v, elements, `${path}[${i}]`, found)) : value;
  }
  const objects = members.filter((t) => t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection));
  if (!objects.length || objects.some((t) => checker.getIndexInfosOfType(t).length > 0)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const props = objects.map((t) => checker.getPropertyOfType(t, key)).filter((p): p is ts.Symbol => p !== undefined);
    if (props.length) out[key] = stripExtras(checker, v, props.map((p) => checker.getTypeOfSymbol(p)), at, found);
    else found.extra(at);
  }
  // The compiler names a missing field only where nothing else in that object is wrong; with one reading of
  // the type there is no doubt which fields are required, so every missing one is named here.
  if (objects.length === 1) {
    for (const prop of checker.getPropertiesOfType(objects[0]!)) {
      if (!(prop.flags & ts.SymbolFlags.Optional) && !(prop.name in value)) {
        found.missing(path ? `${path}.${prop.name}` : prop.name, checker.typeToString(checker.getTypeOfSymbol(prop)));
      }
    }
  }
  return out;
}
