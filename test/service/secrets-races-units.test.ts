// What one synchronous run used to make exact, kept exact now that the store is async: a proxy's delete and a
// write that starts using it never both succeed (concurrent login starts: test/service/auth-connections.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProxyService } from '../../src/service/host/proxy/index.js';
import { SiteConfigs } from '../../src/service/host/sites/index.js';
import { SecretsBox } from '../../src/service/secrets-box.js';
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
  return { proxies, siteConfigs };
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
