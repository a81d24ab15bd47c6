// A test file's site and service: `files` (a `site/` folder among them) written once, one real service
// started for the file, and scenarios that serve the site (`serve: site`) run with the real `bcs` against it.
import { afterAll, beforeAll } from 'vitest';
import { runScenarioYaml } from './cli.js';
import { inlineFiles, type InlineProject } from './inline-files.js';
import { startTestService, type TestService } from './service.js';

export interface SiteSuite {
  project: InlineProject;
  /** The service the scenarios run against (started in beforeAll). */
  svc(): TestService;
  /** `BCS_BASE_URL` and `BCS_API_KEY` for the service. */
  env(): Record<string, string>;
  /** Runs `steps` (YAML list items) after `goto: /index.html` in a scenario that serves the site. */
  runSteps(name: string, steps: string, head?: string): ReturnType<typeof runScenarioYaml>;
}

export async function siteSuite(files: Record<string, string>): Promise<SiteSuite> {
  const project = await inlineFiles(files);
  let svc: TestService | undefined;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc?.close();
  });
  const env = () => ({ BCS_BASE_URL: svc!.baseUrl, BCS_API_KEY: svc!.apiKey });
  return {
    project,
    svc: () => svc!,
    env,
    runSteps: (name, steps, head = '') =>
      runScenarioYaml(project.dir, name, `name: ${name}\nserve: site\n${head}steps:\n  - goto: /index.html\n${steps}`, env()),
  };
}
