// `bcs pools`: browser pools (`/browser_pools`) that scenarios lease from with `browser: { pool: NAME }`.
import type { Command } from 'commander';
import type { BrowserPool, BrowserPoolCreateParams } from '../../../src/api/index.js';
import { UsageError } from '../usage-error.js';
import { adminAction, adminFlags, segment, table, type Finish, when, wholeNumber } from './output.js';

interface CreateFlags {
  name?: string;
  size: string;
  headful?: boolean;
  viewport?: string;
  startUrl?: string;
  timeout?: string;
  fillRate?: string;
  proxy?: string;
}

export function registerPools(program: Command, finish: Finish): void {
  const pools = program.command('pools').description('manage browser pools (scenarios lease from them with browser: { pool: NAME })');

  adminFlags(pools.command('list').description('list pools, with how many browsers are free and leased')).action(
    adminAction(finish, async (admin) => {
      const rows = await admin.list<BrowserPool>('/browser_pools');
      admin.print(rows, (list) => table(['ID', 'NAME', 'SIZE', 'AVAILABLE', 'ACQUIRED', 'HEADLESS', 'CREATED'], list.map(row)));
    }),
  );

  adminFlags(pools.command('get').description('show one pool').argument('<id|name>', 'the pool')).action(
    adminAction(finish, async (admin, id: string) => {
      const pool = await admin.call<BrowserPool>('GET', `/browser_pools/${segment(id)}`);
      admin.print(pool, (p) => table(['ID', 'NAME', 'SIZE', 'AVAILABLE', 'ACQUIRED', 'HEADLESS', 'CREATED'], [row(p)]));
    }),
  );

  adminFlags(pools.command('create').description('create a pool of ready browsers'))
    .option('--name <name>', 'the name scenarios lease by (browser: { pool: NAME })')
    .requiredOption('--size <n>', 'how many browsers the pool keeps')
    .option('--headful', 'headful browsers (each on its own screen) instead of headless ones')
    .option('--viewport <WxH>', 'the window size, e.g. 1280x800')
    .option('--start-url <url>', 'the page each browser opens')
    .option('--timeout <seconds>', 'how long a leased browser may sit idle before it is reclaimed')
    .option('--fill-rate <percent>', 'percent of --size launched per minute while filling')
    .option('--proxy <id>', 'a proxy every browser of the pool routes through')
    .action(
      adminAction(finish, async (admin, o: CreateFlags) => {
        const pool = await admin.call<BrowserPool>('POST', '/browser_pools', { body: createBody(o) });
        admin.print(pool, (p) => `created pool ${p.name ?? '(unnamed)'} (id ${p.id}, ${p.browser_pool_config.size} browsers)`);
      }),
    );

  adminFlags(pools.command('flush').description('replace the idle browsers of a pool with fresh ones').argument('<id|name>', 'the pool')).action(
    adminAction(finish, async (admin, id: string) => {
      await admin.call('POST', `/browser_pools/${segment(id)}/flush`);
      admin.print({ id, flushed: true }, () => `flushed pool ${id}`);
    }),
  );

  adminFlags(pools.command('delete').description('delete a pool and its idle browsers').argument('<id|name>', 'the pool'))
    .option('--force', 'also end the browsers leased from it now')
    .action(
      adminAction(finish, async (admin, id: string, o: { force?: boolean }) => {
        await admin.call('DELETE', `/browser_pools/${segment(id)}`, o.force ? { body: { force: true } } : {});
        admin.print({ id, deleted: true }, () => `deleted pool ${id}`);
      }),
    );
}

function row(p: BrowserPool): (string | number)[] {
  return [p.id, p.name ?? '', p.browser_pool_config.size, p.available_count, p.acquired_count, String(p.browser_pool_config.headless), when(p.created_at)];
}

function createBody(o: CreateFlags): BrowserPoolCreateParams & { name?: string } {
  const body: BrowserPoolCreateParams & { name?: string } = { size: wholeNumber(o.size, '--size', 1, 1000) };
  if (o.name) body.name = o.name;
  if (o.headful) body.headless = false;
  if (o.viewport) {
    const m = /^(\d+)x(\d+)$/.exec(o.viewport);
    if (!m) throw new UsageError(`--viewport must be WIDTHxHEIGHT, e.g. 1280x800; got '${o.viewport}'`);
    body.viewport = { width: Number(m[1]), height: Number(m[2]) };
  }
  if (o.startUrl) body.start_url = o.startUrl;
  if (o.timeout !== undefined) body.timeout_seconds = wholeNumber(o.timeout, '--timeout', 1, 86_400);
  if (o.fillRate !== undefined) body.fill_rate_per_minute = wholeNumber(o.fillRate, '--fill-rate', 1, 100);
  if (o.proxy) body.proxy_id = o.proxy;
  return body;
}
