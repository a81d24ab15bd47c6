// Confinement against a session that fights back: a separate process flips a folder of the view between
// a real folder and a link to a host folder holding a canary, as fast as it can, while reads, writes,
// lists, moves, uploads, permission changes and zips go at paths inside that folder. Not one of them may
// read the canary, list the host folder, or write, move, delete or chmod anything in it. Both sandbox
// modes. FIFOs, sockets and running programs answer a clean 4xx, never a 500 or a hang.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const CANARY = 'OUTSIDE-CANARY-9f3c';
/** Rounds of 11 operations (1,100 in all) against the folder while it flips. */
const ROUNDS = 100;

/**
 * Puts the folder and the link in turn at the flipping path, by renames in bursts between short pauses
 * (so the API's requests land at every phase, the path missing included), until stdin closes and it made
 * at least 1,000 swaps; prints how many.
 */
const SWAPPER = `
const { existsSync, lstatSync, renameSync } = require('node:fs');
const [flip, asDir, asLink] = process.argv.slice(1);
let swaps = 0, wantDir = false, junk = 0, stop = false;
process.stdin.on('data', () => {}).on('end', () => (stop = true));
const deadline = Date.now() + 120000;
// Each step looks at what is there now: the API itself may create the folder (mkdir -p) mid-swap.
const step = () => {
  const st = lstatSync(flip, { throwIfNoEntry: false });
  if (!st) {
    renameSync(wantDir ? asDir : asLink, flip);
    wantDir = !wantDir;
    swaps++;
    return;
  }
  const home = st.isSymbolicLink() ? asLink : asDir;
  renameSync(flip, existsSync(home) ? flip + '-junk-' + junk++ : home);
};
const burst = () => {
  for (let i = 0; i < 100; i++) { try { step(); } catch {} }
  if ((stop && swaps >= 1000) || Date.now() > deadline) return process.stdout.write(String(swaps));
  setImmediate(burst);
};
burst();
`;

for (const mode of ['auto', 'off'] as const) {
  describe(`fs confinement under a racing session (sandbox ${mode})`, { timeout: 240_000 }, () => {
    let svc: TestService;
    let id: string;
    let root: string;
    let outside: string;

    beforeAll(async () => {
      svc = await startTestService({ sandbox: mode });
      id = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body.session_id;
      root = svc.sessions.get(id)!.view.root;
      // Outside every folder of the view, so a link's target cannot be mistaken for a view path.
      outside = await mkdtemp('/var/tmp/bcs-race-');
      await writeFile(join(outside, 'f.txt'), CANARY, { mode: 0o600 });
      await writeFile(join(outside, 'outside-only.txt'), CANARY, { mode: 0o600 });
    });
    afterAll(async () => {
      await svc?.close();
      if (outside) await rm(outside, { recursive: true, force: true });
    });

    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${svc.baseUrl}/browsers/${id}/fs/${path}`, { ...init, headers: { authorization: `Bearer ${svc.apiKey}`, ...(init.headers as object) } });
    const q = encodeURIComponent;

    it('finds no escape in 1,100 operations racing at least 1,000 swaps', async () => {
      const home = join(root, 'home/kernel');
      const flip = join(home, 'flip');
      await mkdir(flip);
      await writeFile(join(flip, 'f.txt'), 'inside');
      const { symlink } = await import('node:fs/promises');
      await symlink(outside, join(home, 'flip-link'));
      // The folder starts in place; the link waits beside it.
      const outsideBefore = (await readdir(outside)).sort();
      const modeBefore = (await stat(join(outside, 'f.txt'))).mode;

      const swapper: ChildProcess = spawn(process.execPath, ['-e', SWAPPER, flip, join(home, 'flip-dir'), join(home, 'flip-link')], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let swapped = '';
      swapper.stdout!.on('data', (d) => (swapped += d));
      let swapping = true;
      const done = new Promise<void>((resolve) => swapper.once('exit', () => resolve()));
      void done.then(() => (swapping = false));

      const escapes: string[] = [];
      const statuses = new Map<number, number>();
      const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
      // At least ROUNDS rounds, and more for as long as the swapper is still short of its 1,000 swaps.
      let rounds = 0;
      for (let i = 0; i < ROUNDS || swapping; i++) {
        if (i === ROUNDS) swapper.stdin!.end();
        rounds++;
        const read = await api(`read_file?path=${q('/home/kernel/flip/f.txt')}`);
        count(read.status);
        if ((await read.text()).includes(CANARY)) escapes.push(`read ${i}`);
        const list = await api(`list_files?path=${q('/home/kernel/flip')}`);
        count(list.status);
        if ((await list.text()).includes('outside-only.txt')) escapes.push(`list ${i}`);
        const zip = await api(`download_dir_zip?path=${q('/home/kernel/flip')}`);
        count(zip.status);
        const bytes = Buffer.from(await zip.arrayBuffer());
        if (bytes.includes(Buffer.from(CANARY)) || bytes.includes(Buffer.from('outside-only.txt'))) escapes.push(`zip ${i}`);
        count((await api(`write_file?path=${q(`/home/kernel/flip/w-${i}.txt`)}`, { method: 'PUT', body: 'x' })).status);
        count((await api(`write_file?path=${q('/home/kernel/flip/f.txt')}`, { method: 'PUT', body: 'overwritten' })).status);
        const form = new FormData();
        form.append('files[0][dest_path]', `/home/kernel/flip/u-${i}.txt`);
        form.append('files[0][file]', new Blob(['u']), 'u.txt');
        count((await api('upload', { method: 'POST', body: form })).status);
        const json = { 'content-type': 'application/json' };
        count((await api('set_file_permissions', { method: 'PUT', headers: json, body: JSON.stringify({ path: '/home/kernel/flip/f.txt', mode: '777' }) })).status);
        count((await api('move', { method: 'PUT', headers: json, body: JSON.stringify({ src_path: '/home/kernel/flip/outside-only.txt', dest_path: `/home/kernel/stolen-${i}.txt` }) })).status);
        count((await api('create_directory', { method: 'PUT', headers: json, body: JSON.stringify({ path: `/home/kernel/flip/d-${i}` }) })).status);
        count((await api('delete_file', { method: 'PUT', headers: json, body: JSON.stringify({ path: '/home/kernel/flip/f.txt' }) })).status);
      }
      await done;

      expect(Number(swapped)).toBeGreaterThanOrEqual(1000);
      expect(escapes).toEqual([]);
      expect(rounds).toBeGreaterThanOrEqual(ROUNDS);
      expect((await readdir(outside)).sort()).toEqual(outsideBefore);
      expect((await stat(join(outside, 'f.txt'))).mode).toBe(modeBefore);
      expect(await import('node:fs/promises').then((fs) => fs.readFile(join(outside, 'f.txt'), 'utf8'))).toBe(CANARY);
      // No 5xx answered while the folder moved under the API's feet.
      expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
      console.log(`sandbox ${mode}: ${swapped} swaps during ${rounds * 11} operations, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    });

    it('answers FIFOs, sockets and running programs with a clean 4xx', async () => {
      const tmp = join(root, 'tmp');
      await new Promise<void>((resolve, reject) => spawn('mkfifo', [join(tmp, 'fifo')]).once('exit', (c) => (c === 0 ? resolve() : reject(new Error(`mkfifo ${c}`)))));
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(join(tmp, 'sock'), resolve));
      await copyFile('/bin/sleep', join(tmp, 'sleepy'));
      await chmod(join(tmp, 'sleepy'), 0o755);
      const running = spawn(join(tmp, 'sleepy'), ['30']);
      await new Promise((resolve) => running.once('spawn', resolve));
      try {
        for (const name of ['fifo', 'sock']) {
          const read = await api(`read_file?path=${q(`/tmp/${name}`)}`, { signal: AbortSignal.timeout(10_000) });
          expect(read.status, `read ${name}`).toBe(400);
          expect((await read.json()).message).toContain('not a regular file');
          const write = await api(`write_file?path=${q(`/tmp/${name}`)}`, { method: 'PUT', body: 'x', signal: AbortSignal.timeout(10_000) });
          expect(write.status, `write ${name}`).toBe(400);
        }
        const busy = await api(`write_file?path=${q('/tmp/sleepy')}`, { method: 'PUT', body: 'x', signal: AbortSignal.timeout(10_000) });
        expect(busy.status).toBe(409);
        expect((await busy.json()).message).toContain('running');
      } finally {
        running.kill('SIGKILL');
        server.close();
      }
    });
  });
}
