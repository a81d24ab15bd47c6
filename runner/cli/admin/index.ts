// The administration commands: `bcs keys`, `projects`, `profiles`, `extensions`, `proxies` and `pools`. They act on a
// running service (`--base-url`/`BCS_BASE_URL`, `--api-key`/`BCS_API_KEY`) through the API client only.
import type { Command } from 'commander';
import { registerExtensions } from './extensions.js';
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
}
