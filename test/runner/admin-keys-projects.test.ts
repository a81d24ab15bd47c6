// `bcs keys` and `bcs projects` against a real service: a created key is printed once and works, rotation
// replaces it, deletion ends it; projects scope keys and resources, can be archived and limited; failures
// exit 1 with the API's message and code, 2 for usage, 3 when the service cannot be reached.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ standby: 0 });
});
afterAll(async () => {
  await svc.close();
});

/** Runs `bcs ARGS` against the test service, as the admin key unless `key` is given. */
const bcs = (args: string[], key = svc.apiKey, env: Record<string, string> = {}): Promise<CliResult> =>
  runCli(args, { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: key, ...env });

const json = (res: CliResult) => {
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
};

describe('bcs keys', () => {
  it('creates a key that is printed once and works; rotates it; deletes it', { timeout: 180_000 }, async () => {
    const created = await bcs(['keys', 'create', 'ci-runner', '--days', '30']);
    expect(created.code, created.stderr).toBe(0);
    const key = /^BCS_API_KEY=(\S+)$/m.exec(created.stdout)?.[1];
    expect(key).toMatch(/^bcs_/);
    expect(created.stdout).toMatch(/^created API key ci-runner \(id \w+, organization-wide, expires \d{4}-/m);
    expect(created.stderr).toContain('shown only once');

    // The new key authenticates; listing shows it masked and never in full.
    const listed = await bcs(['keys', 'list'], key!);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+KEY\s+PROJECT\s+EXPIRES\s+CREATED$/m);
    expect(listed.stdout).toContain('ci-runner');
    expect(listed.stdout).not.toContain(key!);
    const rows = json(await bcs(['keys', 'list', '--json'], key!));
    const mine = rows.find((k: { name: string }) => k.name === 'ci-runner');
    expect(mine.expires_at).not.toBeNull();
    expect(JSON.stringify(rows)).not.toContain(key!);

    const renamed = await bcs(['keys', 'rename', mine.id, 'ci']);
    expect(renamed.stdout).toBe(`renamed API key ${mine.id} to ci\n`);

    // Rotation without grace: the old key stops at once, the new one works.
    const rotated = json(await bcs(['keys', 'rotate', mine.id, '--grace-days', '0', '--json']));
    expect(rotated).toMatchObject({ name: 'ci', key: expect.stringMatching(/^bcs_/) });
    expect(rotated.key).not.toBe(key);
    const old = await bcs(['profiles', 'list'], key!);
    expect(old.code).toBe(1);
    expect(old.stderr).toBe('bcs: invalid, expired or deleted API key (unauthorized)\n');
    expect((await bcs(['profiles', 'list'], rotated.key)).code).toBe(0);

    const deleted = await bcs(['keys', 'delete', rotated.id]);
    expect([deleted.code, deleted.stdout]).toEqual([0, `deleted API key ${rotated.id}\n`]);
    expect((await bcs(['profiles', 'list'], rotated.key)).code).toBe(1);
    const all = json(await bcs(['keys', 'list', '--all', '--json']));
    expect(all.find((k: { id: string }) => k.id === rotated.id).deleted_at).not.toBeNull();
    expect(json(await bcs(['keys', 'list', '--json'])).map((k: { id: string }) => k.id)).not.toContain(rotated.id);
  });

  it('reports API errors with their code (exit 1), usage errors (exit 2) and an unreachable service (exit 3)', { timeout: 120_000 }, async () => {
    const missing = await bcs(['keys', 'delete', 'no-such-key']);
    expect([missing.code, missing.stderr]).toEqual([1, "bcs: API key 'no-such-key' not found (not_found)\n"]);
    const badDays = await bcs(['keys', 'create', 'x', '--days', 'soon']);
    expect([badDays.code, badDays.stderr]).toEqual([2, "bcs: --days must be a whole number from 1 to 3650, got 'soon'\n"]);
    const noTarget = await runCli(['keys', 'list']);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('pass --base-url or set BCS_BASE_URL');
    const noKey = await runCli(['projects', 'list', '--base-url', svc.baseUrl]);
    expect([noKey.code, noKey.stderr]).toEqual([2, 'bcs: set BCS_API_KEY or pass --api-key-file\n']);
    const noName = await bcs(['keys', 'create']);
    expect(noName.code).toBe(2);

    const port = await closedPort();
    const down = await runCli(['keys', 'list', '--base-url', `http://127.0.0.1:${port}`], { BCS_API_KEY: svc.apiKey });
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(new RegExp(`^bcs: cannot reach the service at http://127.0.0.1:${port}: .*ECONNREFUSED`));
    expect(down.stderr).not.toContain(svc.apiKey);
  });
});

describe('bcs projects', () => {
  it('scopes keys and resources to a project; limits, archives, unarchives and deletes it', { timeout: 180_000 }, async () => {
    const created = await bcs(['projects', 'create', 'team-a']);
    expect(created.stdout).toMatch(/^created project team-a \(id \w+, active\)\n$/);
    const listed = await bcs(['projects', 'list']);
    expect(listed.stdout).toMatch(/^\w+\s+team-a\s+active\s+\d{4}-/m);

    // A key scoped by project name: what it creates lands in that project, and only there.
    const scoped = json(await bcs(['keys', 'create', 'team-a-ci', '--project', 'team-a', '--json']));
    expect(scoped.project_name).toBe('team-a');
    expect((await bcs(['profiles', 'create', 'team-profile'], scoped.key)).code).toBe(0);
    const inProject = json(await bcs(['profiles', 'list', '--project', 'team-a', '--json']));
    expect(inProject.map((p: { name: string }) => p.name)).toEqual(['team-profile']);
    expect(json(await bcs(['profiles', 'list', '--json'])).map((p: { name: string }) => p.name)).not.toContain('team-profile');
    // A scoped key cannot administer the organisation.
    const forbidden = await bcs(['projects', 'list'], scoped.key);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/needs an organization-wide key \(forbidden\)\n$/);

    expect(json(await bcs(['projects', 'limits', 'team-a', '--max-concurrent', '2', '--json'])).max_concurrent_sessions).toBe(2);
    expect((await bcs(['projects', 'limits', 'team-a'])).stdout).toBe('max concurrent browsers: 2\n');
    expect(json(await bcs(['projects', 'limits', 'team-a', '--max-concurrent', 'none', '--json'])).max_concurrent_sessions).toBeNull();

    const archived = await bcs(['projects', 'archive', 'team-a']);
    expect(archived.stdout).toMatch(/^archived project team-a \(id \w+, archived\)\n$/);
    const refused = await bcs(['profiles', 'create', 'another', '--project', 'team-a']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^bcs: project 'team-a' is archived: .* \(project_archived\)\n$/);
    // An archived project can still be read.
    expect(json(await bcs(['profiles', 'list', '--project', 'team-a', '--json']))).toHaveLength(1);
    expect((await bcs(['projects', 'unarchive', 'team-a'])).code).toBe(0);
    expect((await bcs(['profiles', 'create', 'another', '--project', 'team-a'])).code).toBe(0);

    const notEmpty = await bcs(['projects', 'delete', 'team-a']);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toMatch(/is not empty .*\(conflict\)\n$/);
    for (const p of ['team-profile', 'another']) expect((await bcs(['profiles', 'delete', p, '--project', 'team-a'])).code).toBe(0);
    expect((await bcs(['keys', 'delete', scoped.id])).code).toBe(0);
    const deleted = await bcs(['projects', 'delete', 'team-a']);
    expect([deleted.code, deleted.stderr]).toEqual([0, '']);
    expect(json(await bcs(['projects', 'list', '--json']))).toEqual([]);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
