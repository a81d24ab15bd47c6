// The store's SQLite driver must survive garbage collection wherever V8 runs it. On Node 24, better-sqlite3 12
// (built on node::ObjectWrap) aborted the whole process when a dropped statement was collected while code ran
// in a context that is not a Node environment's (a `vm` context: Playwright evaluates code in one), because
// Node 24's ObjectWrap looks the environment up from the current context in its destructor. `bcs run` died
// that way in 5 of 6 runs before printing anything. This reproduces it deterministically in a child process,
// so a regression shows as a failed test rather than a crashed test worker.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

const script = `
const Database = require(${JSON.stringify(driver)});
const vm = require('node:vm');
const db = new Database(':memory:');
for (let round = 0; round < 20; round++) {
  // Statements dropped at once: collected by the next scavenge, wherever it happens.
  for (let i = 0; i < 2000; i++) db.prepare('select ? as a').get(i);
  // Young-generation garbage made inside a vm context, so those scavenges run there.
  vm.runInNewContext('let a = []; for (let i = 0; i < 2e6; i++) { a.push({ i }); if (a.length > 100) a = []; }');
}
db.close();
process.stdout.write('done');
`;

describe('the SQLite driver under garbage collection', () => {
  it(`keeps the process alive when statements are collected inside a vm context (Node ${process.versions.node})`, () => {
    const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120_000 });
    expect(res.stderr).not.toContain('Assertion failed');
    expect({ signal: res.signal, status: res.status, stdout: res.stdout }).toEqual({ signal: null, status: 0, stdout: 'done' });
  });
});
