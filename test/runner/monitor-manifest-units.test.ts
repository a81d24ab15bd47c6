// `bcs monitor deploy`'s manifest: the config's `monitors:` cascade resolved per scenario file, and mistakes in
// the section reported at their line and column.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../runner/suite/config.js';
import { buildManifest } from '../../runner/cli/monitor/manifest.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { ScenarioError } from '../../src/scenario/index.js';

const scenario = 'name: x\nsteps: []\n';

describe('the monitors manifest', () => {
  it('makes a check of each scenario file with defaults, groups and its own settings cascaded', async () => {
    const config = `
before: hooks/setup.yaml
monitors:
  suite: shop-prod
  defaults: { every: 5m, timeout: 2m, channels: [ops], alert: { after_failures: 2 } }
  groups:
    - { name: checkout, paths: [checks/checkout], cron: "*/2 * * * *", retries: { count: 2, strategy: exponential, delay: 10s, max_delay: 2m } }
  checks:
    checks/login.yaml: { name: login-hourly, cron: "0 * * * *", timezone: Europe/Berlin, alert: { degraded_after: 8s, after: 90s }, keep_on_failure: 15m }
  channels:
    ops: { type: webhook, url: "https://hooks.example/x", secret: { secret: HMAC } }
    mail: { type: email, smtp: { host: smtp.example, port: 587 }, from: a@example.test, to: b@example.test }
  secrets:
    HMAC: { env: BCS_SECRET_HMAC }
  maintenance:
    - { cron: "0 3 * * 0", duration: 2h, checks: [login-hourly] }
`;
    const project = await inlineFiles({
      'bcs.config.yaml': config,
      'hooks/setup.yaml': scenario,
      'checks/login.yaml': scenario,
      'checks/checkout/pay.yaml': scenario,
      'checks/checkout/steps.part.yaml': 'steps: []\n',
      'checks/home.yaml': scenario,
    });
    const parsed = parseConfig('bcs.config.yaml', config, project.dir, project.dir);
    const m = await buildManifest(project.dir, parsed, undefined);
    expect(m.suite).toBe('shop-prod');
    expect(m.checks).toEqual([
      {
        name: 'checks/checkout/pay',
        file: 'checks/checkout/pay.yaml',
        group: 'checkout',
        schedule: { cron: '*/2 * * * *' },
        timeout_seconds: 120,
        retries: { count: 2, strategy: 'exponential', delay_seconds: 10, max_delay_seconds: 120 },
        alert: { after_failures: 2 },
        channels: ['ops'],
      },
      { name: 'checks/home', file: 'checks/home.yaml', schedule: { every_seconds: 300 }, timeout_seconds: 120, alert: { after_failures: 2 }, channels: ['ops'] },
      {
        name: 'login-hourly',
        file: 'checks/login.yaml',
        schedule: { cron: '0 * * * *', timezone: 'Europe/Berlin' },
        timeout_seconds: 120,
        alert: { after_failures: 2, after_minutes: 2, degraded_ms: 8000 },
        channels: ['ops'],
        keep_on_failure_seconds: 900,
      },
    ]);
    expect(m.channels).toEqual({
      ops: { type: 'webhook', url: 'https://hooks.example/x', secret: { secret: 'HMAC' } },
      mail: { type: 'email', smtp: { host: 'smtp.example', port: 587 }, from: 'a@example.test', to: ['b@example.test'] },
    });
    expect(m.maintenance).toEqual([{ cron: '0 3 * * 0', duration_minutes: 120, checks: ['login-hourly'] }]);
    // Override --suite wins; a folder with no scenario and a check entry naming no file are refused.
    expect((await buildManifest(project.dir, parsed, 'other')).suite).toBe('other');
    const empty = await inlineFiles({ 'bcs.config.yaml': 'monitors: {}\n' });
    await expect(buildManifest(empty.dir, parseConfig('bcs.config.yaml', 'monitors: {}\n', empty.dir, empty.dir), undefined)).rejects.toThrow(/no scenario files/);
    const wrong = 'monitors:\n  checks:\n    nope.yaml: { every: 1m }\n';
    const p2 = await inlineFiles({ 'bcs.config.yaml': wrong, 'a.yaml': scenario });
    await expect(buildManifest(p2.dir, parseConfig('bcs.config.yaml', wrong, p2.dir, p2.dir), undefined)).rejects.toThrow(/'nope.yaml' is not one of the suite's scenario files/);
  });

  it('reports a bad monitors section at its line and column', () => {
    const bad = 'monitors:\n  defaults:\n    every: 5 minutes\n    retries: { count: 2, strategy: sometimes }\n  secrets:\n    X: { env: HOME }\n';
    let error: unknown;
    try {
      parseConfig('bcs.config.yaml', bad, '/tmp', '/tmp');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const lines = (error as ScenarioError).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
    expect(lines).toContain('3:12 monitors.defaults.every must be a duration such as "30s", "5m", "2h" or "1d"');
    expect(lines.some((l) => l.startsWith('4:') && l.includes('monitors.defaults.retries.strategy'))).toBe(true);
    expect(lines.some((l) => l.startsWith('6:') && l.includes('monitors.secrets.X'))).toBe(true);
  });
});
