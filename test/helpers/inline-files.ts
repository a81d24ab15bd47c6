// Runner tests write the files they need from a map, as Playwright's own tests do (runInlineTest): a fresh
// project folder per call, removed with the rest after the test file, and `bcs` run in it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { runCli, type CliResult } from './cli.js';

export interface InlineProject {
  /** The project folder. */
  dir: string;
  /** The absolute path of `name` in the project. */
  path(name: string): string;
  /** Writes more files (paths relative to the project, folders created). */
  write(files: Record<string, string>): Promise<void>;
  /** Runs `bcs <args>` in the project folder; relative paths in `args` are the project's. */
  run(args: string[], env?: Record<string, string>): Promise<CliResult>;
}

const made: string[] = [];
// Registered when a test file imports this (each file gets its own copy of the module): a hook registered
// from inside another hook, at the first call, would not run.
afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A new project folder holding `files` (path -> content); all of them are removed after the test file. */
export async function inlineFiles(files: Record<string, string>): Promise<InlineProject> {
  const dir = await mkdtemp(join(tmpdir(), 'bcs-inline-'));
  made.push(dir);
  const project: InlineProject = {
    dir,
    path: (name) => join(dir, name),
    write: async (more) => {
      for (const [name, content] of Object.entries(more)) {
        await mkdir(dirname(join(dir, name)), { recursive: true });
        await writeFile(join(dir, name), content);
      }
    },
    run: (args, env) => runCli(args, env, { cwd: dir }),
  };
  await project.write(files);
  return project;
}
