// What one synchronous run used to make exact, kept exact now that the store is async: a proxy's delete and a
// write that starts using it never both succeed, and concurrent starts of a connection's login run one flow.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProxyService } from '../../src/service/host/proxy/index.js';
import { SiteConfigs } from '../../src/service/host/sites/index.js';
import { AuthConnections } from '../../src/service/host/auth/connections.js';
import { LoginFlows } from '../../src/service/host/auth/flows.js';
import type { FlowBrowser } from '../../src/service/host/auth/flow-browser.js';
import { SecretsBox } from '../../src/service/secrets-box.js';
import { AuthConnectionsRepo } from '../../src/service/store/auth-connections-repo.js';
import { ProxiesRepo } from '../../src/service/store/proxies-repo.js';
import { SiteConfigsRepo } from '../../src/service/store/site-configs-repo.js';
import { SqliteDatabase } from '../../src/service/store/sqlite/database.js';
import { openDatabase } from '../../src/service/store/sqlite/open.js';

const dir = mkdtempSync(join(tmpdir(), 'bcs-races-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = () => new Date();

function stores() {
  const db = new SqliteDatabase(openDatabase(':memory:'));
  const proxies = new ProxyService({ repo: new ProxiesRepo(db), secrets: SecretsBox.forDataDir(dir), now });
  const siteConfigs = new SiteConfigs({ repo: new SiteConfigsRepo(db), proxies, now });
  return { db, proxies, siteConfigs };
}

describe('a proxy in use', () => {
  it('is either deleted or used by a site config written at the same moment, never both', async () => {
    for (const deleteFirst of [true, false]) {
      const { proxies, siteConfigs } = stores();
      const proxy = await proxies.create(null, { type: 'custom', config: { host: '127.0.0.1', port: 9 } }, 'body');
      const use = () => siteConfigs.create(null, { domain: 'shop.example', proxy_id: proxy.id }, 'body');
      const remove = () => proxies.delete(null, proxy.id);
      const [a, b] = await Promise.allSettled(deleteFirst ? [remove(), use()] : [use(), remove()]);
      const [deleted, used] = deleteFirst ? [a, b] : [b, a];
      expect([deleted.status, used.status].sort()).toEqual(['fulfilled', 'rejected']);
      // Whichever won, what is stored agrees: a config that uses the proxy, or a deleted proxy and no config.
      const configs = await siteConfigs.list({ projectId: null, offset: 0, limit: 10 });
      expect(configs.rows.length).toBe(used.status === 'fulfilled' ? 1 : 0);
      await (used.status === 'fulfilled' ? expect(proxies.get(null, proxy.id)).resolves.toMatchObject({ id: proxy.id }) : expect(proxies.get(null, proxy.id)).rejects.toThrow());
    }
  });
});

describe('login flows', () => {
  it('run one flow for concurrent starts of a connection, and end it on stop', async () => {
    const { db, proxies } = stores();
    const profiles = { addReferrers: () => undefined, find: () => ({ id: 'prof' }) };
    const connections = new AuthConnections({
      repo: new AuthConnectionsRepo(db),
      profiles: profiles as never,
      proxies,
      credentials: {} as never,
      providers: {} as never,
      now,
    });
    let launches = 0;
    const flows = new LoginFlows({
      connections,
      credentials: {} as never,
      providers: {} as never,
      // A browser that never comes: the flow stays at its first step until stopped.
      launch: () => (launches++, new Promise<FlowBrowser>(() => undefined)),
      events: { publish: () => undefined } as never,
      now,
      hostedUrl: (id, code) => `http://x/${id}?code=${code}`,
      log: { warn: () => undefined },
    });
    const row = await connections.create(null, { domain: 'shop.example', profile_name: 'main' }, 'body');
    const started = await Promise.all([flows.start(row, 'LOGIN'), flows.start(row, 'LOGIN'), flows.start(row, 'LOGIN')]);
    expect(new Set(started.map((s) => s.id)).size).toBe(1);
    await expect.poll(() => launches).toBe(1);
    expect((await connections.get(row.id))?.flow).toMatchObject({ id: started[0]!.id, status: 'IN_PROGRESS' });
    const stopping = flows.stop(row.id, 'CANCELED', 'connection_deleted', 'gone');
    await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, 200))]);
    expect((await connections.get(row.id))?.flow).toMatchObject({ status: 'CANCELED', step: 'COMPLETED' });
    const timeline = await connections.timeline(row, { offset: 0, limit: 10 });
    expect(timeline.rows).toMatchObject([{ type: 'login', status: 'CANCELED' }]);
  });
});
