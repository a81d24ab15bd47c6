// Turns the user's code (an async function body, TypeScript or JavaScript, as the hosted API takes it)
// into JavaScript that evaluates to that function. esbuild only parses and strips types here, in its
// own process; the code itself never runs in the service.

export type Compiled = { ok: true; js: string } | { ok: false; error: string };

interface EsbuildMessage {
  text: string;
  location?: { line: number; column: number } | null;
}

/** The error's place in the user's code: the wrapper adds a line above it and one below. */
function where(location: EsbuildMessage['location'], code: string): string {
  if (!location) return '';
  const line = location.line - 1;
  if (line < 1) return ' (line 1)';
  if (line > code.split('\n').length) return ' (at the end of the code)';
  return ` (line ${line}, column ${location.column + 1})`;
}

export async function compileUserCode(code: string): Promise<Compiled> {
  // The body sits on its own lines, so a trailing `// comment` cannot swallow the closing brace.
  const wrapped = `(async function (page, context, browser) {\n${code}\n})`;
  try {
    const { transform } = await import('esbuild');
    const out = await transform(wrapped, { loader: 'ts', target: 'esnext', sourcefile: 'code.ts', logLevel: 'silent' });
    return { ok: true, js: out.code };
  } catch (err) {
    const first = (err as { errors?: EsbuildMessage[] }).errors?.[0];
    if (!first) {
      // esbuild itself is unusable (no binary for this platform): plain JavaScript still works, and V8
      // reports its syntax errors in the worker.
      return { ok: true, js: wrapped };
    }
    return { ok: false, error: `SyntaxError: ${first.text}${where(first.location, code)}` };
  }
}
