// BrowserKeepsRepo's contract, and the `kept` filter of the browsers list, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { BrowserKeepsRepo } from '../../src/service/store/browser-keeps-repo.js';
import { BrowsersRepo } from '../../src/service/store/browsers-repo.js';
import { browserRow } from '../helpers/browser-row.js';

const row = browserRow;

describeStores('BrowserKeepsRepo', (open) => {
  it('keeps one keep per browser, the latest, with its reason as given', async () => {
    const keeps = new BrowserKeepsRepo(await open());
    const reason = { run_id: 'r1', scenario: 'checkout', step: "click 'Pay'", message: 'a "quoted"\nmessage ü' };
    await keeps.set({ browser_id: 'b1', until: '2026-01-01T00:15:00.000Z', reason, kept_at: '2026-01-01T00:00:00.000Z' });
    expect(await keeps.get('b1')).toEqual({ browser_id: 'b1', until: '2026-01-01T00:15:00.000Z', reason, kept_at: '2026-01-01T00:00:00.000Z' });
    await keeps.set({ browser_id: 'b1', until: '2026-01-01T01:00:00.000Z', reason: {}, kept_at: '2026-01-01T00:30:00.000Z' });
    expect(await keeps.get('b1')).toEqual({ browser_id: 'b1', until: '2026-01-01T01:00:00.000Z', reason: {}, kept_at: '2026-01-01T00:30:00.000Z' });
    expect(await keeps.get('b2')).toBeUndefined();
    await keeps.set({ browser_id: 'b2', until: '2026-01-02T00:00:00.000Z', reason: { step: 's' }, kept_at: '2026-01-01T00:00:00.000Z' });
    const each = await keeps.forEach(['b1', 'b2', 'b3']);
    expect([...each.keys()].sort()).toEqual(['b1', 'b2']);
    expect(each.get('b2')!.reason).toEqual({ step: 's' });
    expect(await keeps.forEach([])).toEqual(new Map());
  });

  it('lets the browsers list keep to kept browsers, or to the others', async () => {
    const db = await open();
    const browsers = new BrowsersRepo(db);
    const keeps = new BrowserKeepsRepo(db);
    for (const id of ['a', 'b', 'c']) await browsers.insert(row(id));
    await keeps.set({ browser_id: 'b', until: '2026-01-01T00:15:00.000Z', reason: {}, kept_at: '2026-01-01T00:00:00.000Z' });
    const ids = async (kept?: boolean) => (await browsers.list({ projectId: null, status: 'active', kept, offset: 0, limit: 10 })).rows.map((r) => r.id);
    expect(await ids(true)).toEqual(['b']);
    expect(await ids(false)).toEqual(['a', 'c']);
    expect(await ids()).toEqual(['a', 'b', 'c']);
  });
});
