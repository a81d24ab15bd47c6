// The administration commands: `bcs keys`, `projects`, `profiles`, `extensions`, `proxies` and `pools`;
// apps: `deploy`, `invoke`, `apps`, `deployments` and `invocations`; managed auth: `credentials` and `auth`.
// They act on a running service (`--base-url`/`BCS_BASE_URL`, `--api-key`/`BCS_API_KEY`) through the API
// client only.
import type { Command } from 'commander';
import { registerApps } from './apps.js';
import { registerAuth } from './auth.js';
import { registerCredentials } from './credentials.js';
import { registerExtensions } from './extensions.js';
import { registerInvocations } from './invocations.js';
import { registerKeys } from './keys.js';
import type { Finish } from './output.js';
import { registerProfiles } from './profiles.js';
import { registerProjects } from './projects.js';
import { registerPools } from './pools.js';
import { registerProxies } from './proxies.js';

export function registerAdmin(program: Command, finish: Finish): void {
  registerKeys(program, finish);
  registerProjects(program, finish);
  registerProfiles(program, finish);
  registerExtensions(program, finish);
  registerProxies(program, finish);
  registerPools(program, finish);
  registerApps(program, finish);
  registerInvocations(program, finish);
  registerCredentials(program, finish);
  registerAuth(program, finish);
}
