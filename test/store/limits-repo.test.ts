// LimitsRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { LimitsRepo } from '../../src/service/store/limits-repo.js';

const none = { max_concurrent_sessions: null, max_pooled_sessions: null, default_project_max_concurrent_sessions: null };

describeStores('LimitsRepo', (open) => {
  it('reads no org limits at first, sets the given fields only, and keeps them for another reader', async () => {
    const db = await open();
    const repo = new LimitsRepo(db);
    expect(await repo.get()).toEqual(none);
    expect(await repo.set({ max_concurrent_sessions: 5, max_pooled_sessions: 3 })).toEqual({ ...none, max_concurrent_sessions: 5, max_pooled_sessions: 3 });
    expect(await repo.set({ default_project_max_concurrent_sessions: 2, max_pooled_sessions: undefined })).toEqual({
      max_concurrent_sessions: 5,
      max_pooled_sessions: 3,
      default_project_max_concurrent_sessions: 2,
    });
    expect(await repo.set({})).toMatchObject({ max_concurrent_sessions: 5 });
    expect(await repo.set({ max_concurrent_sessions: null })).toMatchObject({ max_concurrent_sessions: null, max_pooled_sessions: 3 });
    expect(await new LimitsRepo(db).get()).toEqual({ max_concurrent_sessions: null, max_pooled_sessions: 3, default_project_max_concurrent_sessions: 2 });
  });

  it('checks a change against the limits as they would be, and writes nothing it refuses', async () => {
    const repo = new LimitsRepo(await open());
    await repo.set({ max_concurrent_sessions: 4 });
    const seen: unknown[] = [];
    await expect(
      repo.set({ default_project_max_concurrent_sessions: 9 }, (next) => {
        seen.push(next);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(seen).toEqual([{ ...none, max_concurrent_sessions: 4, default_project_max_concurrent_sessions: 9 }]);
    expect(await repo.get()).toEqual({ ...none, max_concurrent_sessions: 4 });
  });

  it('runs concurrent checked changes one after the other, each seeing the last', async () => {
    const repo = new LimitsRepo(await open());
    // Each increments what the previous one wrote: none may read a value another is about to replace.
    await Promise.all(
      Array.from({ length: 8 }, () =>
        repo.set({}, (next) => {
          next.max_pooled_sessions = (next.max_pooled_sessions ?? 0) + 1;
        }),
      ),
    );
    expect((await repo.get()).max_pooled_sessions).toBe(8);
  });

  it('keeps project overrides per project, changing only the given fields, and drops them', async () => {
    const repo = new LimitsRepo(await open());
    expect(await repo.project('p')).toEqual({ max_concurrent_sessions: null, max_concurrent_invocations: null });
    expect(await repo.setProject('p', { max_concurrent_sessions: 3 })).toEqual({ max_concurrent_sessions: 3, max_concurrent_invocations: null });
    expect(await repo.setProject('p', { max_concurrent_invocations: 2 })).toEqual({ max_concurrent_sessions: 3, max_concurrent_invocations: 2 });
    expect(await repo.setProject('p', {})).toEqual({ max_concurrent_sessions: 3, max_concurrent_invocations: 2 });
    expect(await repo.setProject('p', { max_concurrent_sessions: null })).toEqual({ max_concurrent_sessions: null, max_concurrent_invocations: 2 });
    expect(await repo.setProject('q', {})).toEqual({ max_concurrent_sessions: null, max_concurrent_invocations: null });
    expect(await repo.project('q')).toEqual({ max_concurrent_sessions: null, max_concurrent_invocations: null });
    await repo.dropProject('p');
    expect(await repo.project('p')).toEqual({ max_concurrent_sessions: null, max_concurrent_invocations: null });
  });

  it('gives the session caps in force: the org limit, and a project’s own cap else the org default', async () => {
    const repo = new LimitsRepo(await open());
    expect(await repo.sessionCaps(null)).toEqual({ org: null, project: null });
    expect(await repo.sessionCaps('p')).toEqual({ org: null, project: { limit: null, source: 'org_default' } });
    await repo.set({ max_concurrent_sessions: 10, default_project_max_concurrent_sessions: 4 });
    expect(await repo.sessionCaps(null)).toEqual({ org: 10, project: null });
    expect(await repo.sessionCaps('p')).toEqual({ org: 10, project: { limit: 4, source: 'org_default' } });
    await repo.setProject('p', { max_concurrent_sessions: 6 });
    expect(await repo.sessionCaps('p')).toEqual({ org: 10, project: { limit: 6, source: 'project' } });
    expect(await repo.sessionCaps('q')).toEqual({ org: 10, project: { limit: 4, source: 'org_default' } });
    await repo.setProject('p', { max_concurrent_invocations: 1, max_concurrent_sessions: null });
    expect(await repo.sessionCaps('p')).toEqual({ org: 10, project: { limit: 4, source: 'org_default' } });
  });
});
