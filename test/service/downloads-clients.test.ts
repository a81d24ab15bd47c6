// Downloads stay in the session whoever drives the browser: puppeteer-core and playwright-core as real
// CDP clients, downloads by an <a download> link, by a Content-Disposition answer and by Kernel's recipe
// (Browser.setDownloadBehavior into /tmp/downloads). Every file is read back through the fs API at its
// view path, and the path the client named never appears on the host. Both sandbox modes.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const BODY = randomBytes(20_000);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const PAGE = `<!doctype html><title>downloads</title>
<a id="attach" href="/attachment">attachment</a>
<a id="link" href="/plain.bin" download="linked.bin">link</a>`;

let site: Server;
let siteUrl: string;

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === '/attachment') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="report.bin"' });
      res.end(BODY);
    } else if (req.url === '/plain.bin') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(BODY);
    } else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
});

for (const mode of ['auto', 'off'] as const) {
  describe(`downloads through CDP clients (sandbox ${mode})`, () => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await startTestService({ sandbox: mode });
    });
    afterAll(async () => {
      await svc?.close();
    });

    const readBack = async (id: string, path: string): Promise<Buffer> => {
      const res = await fetch(`${svc.baseUrl}/browsers/${id}/fs/read_file?path=${encodeURIComponent(path)}`, {
        headers: { authorization: `Bearer ${svc.apiKey}` },
      });
      expect(res.status, `${path}: ${res.status}`).toBe(200);
      return Buffer.from(await res.arrayBuffer());
    };
    /** Waits until the file is complete in the view (Chromium writes a .crdownload first). */
    const arrives = (id: string, path: string) =>
      eventually(async () => {
        const info = await svc.call('GET', `/browsers/${id}/fs/file_info?path=${encodeURIComponent(path)}`);
        return info.status === 200 && info.body.size_bytes === BODY.length ? true : undefined;
      });

    it("puppeteer with Kernel's recipe: /tmp/downloads is the view's, not the host's", async () => {
      const hostPath = `/tmp/downloads-${randomBytes(4).toString('hex')}`;
      const b = (await svc.call('POST', '/browsers', { body: {} })).body;
      const browser = await puppeteer.connect({ browserWSEndpoint: b.cdp_ws_url, defaultViewport: null });
      try {
        const page = (await browser.pages())[0]!;
        const cdp = await browser.target().createCDPSession();
        await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: hostPath, eventsEnabled: true });
        await page.goto(siteUrl);
        await page.click('#attach');
        await arrives(b.session_id, `${hostPath}/report.bin`);
        expect(sha(await readBack(b.session_id, `${hostPath}/report.bin`))).toBe(sha(BODY));
        expect(existsSync(hostPath)).toBe(false);

        // A folder outside the view's writable ones is refused with a CDP error, not written anywhere.
        await expect(cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/etc/bcs-downloads' })).rejects.toThrow(/outside the browser host's writable folders/);
        await expect(cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: 'relative/dir' })).rejects.toThrow(/absolute path/);
        // Page.setDownloadBehavior goes the same way.
        const pageCdp = await page.createCDPSession();
        const other = `/home/kernel/page-downloads-${randomBytes(3).toString('hex')}`;
        await pageCdp.send('Page.setDownloadBehavior', { behavior: 'allow', downloadPath: other });
        await page.click('#link');
        await arrives(b.session_id, `${other}/linked.bin`);
        expect(existsSync(other)).toBe(false);
      } finally {
        await browser.disconnect();
        await svc.call('DELETE', `/browsers/${b.session_id}`);
      }
    });

    it('puppeteer with allowAndName: the GUID-named file in the folder it asked for, and the named file in Downloads', async () => {
      const folder = `/tmp/guid-downloads-${randomBytes(4).toString('hex')}`;
      const b = (await svc.call('POST', '/browsers', { body: {} })).body;
      const browser = await puppeteer.connect({ browserWSEndpoint: b.cdp_ws_url, defaultViewport: null });
      try {
        const page = (await browser.pages())[0]!;
        const cdp = await browser.target().createCDPSession();
        const begun: { guid: string; suggestedFilename: string }[] = [];
        const completed: string[] = [];
        cdp.on('Browser.downloadWillBegin', (e) => begun.push(e));
        cdp.on('Browser.downloadProgress', (e) => e.state === 'completed' && completed.push(e.guid));
        await cdp.send('Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: folder, eventsEnabled: true });
        await page.goto(siteUrl);
        await page.click('#attach');
        await eventually(() => (completed.length === 1 ? true : undefined));
        const [first] = begun;
        expect(first!.suggestedFilename).toBe('report.bin');
        expect(completed).toEqual([first!.guid]);
        // As CDP specifies: the file is named by its GUID in the folder asked for (the view's), complete
        // once `completed` is heard, and the named one is in Downloads by then too.
        expect(sha(await readBack(b.session_id, `${folder}/${first!.guid}`))).toBe(sha(BODY));
        expect(sha(await readBack(b.session_id, '/home/kernel/Downloads/report.bin'))).toBe(sha(BODY));
        expect(existsSync(folder)).toBe(false);

        // A client that asked for no events gets none, though the proxy needs them to name the file; a
        // second file of the same name replaces the first, as a download with Chromium's own `allow` does.
        const quiet = await browser.target().createCDPSession();
        let heard = 0;
        quiet.on('Browser.downloadWillBegin', () => heard++);
        quiet.on('Browser.downloadProgress', () => heard++);
        await quiet.send('Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: folder });
        await page.click('#attach');
        await eventually(() => (completed.length === 2 ? true : undefined));
        expect(sha(await readBack(b.session_id, `${folder}/${begun[1]!.guid}`))).toBe(sha(BODY));
        expect(sha(await readBack(b.session_id, '/home/kernel/Downloads/report.bin'))).toBe(sha(BODY));
        const listed = await svc.call('GET', `/browsers/${b.session_id}/fs/list_files?path=/home/kernel/Downloads`);
        expect(listed.body.map((f: { name: string }) => f.name).filter((n: string) => n.startsWith('report') || n.startsWith('.'))).toEqual(['report.bin']);
        // A round trip on the same connection: any event sent to `quiet` before its answer has arrived.
        await quiet.send('Browser.getVersion');
        expect(heard).toBe(0);
      } finally {
        await browser.disconnect();
        await svc.call('DELETE', `/browsers/${b.session_id}`);
      }
    });

    it('with Playwright connected a plain download lands in /home/kernel/Downloads, and again after it leaves', async () => {
      const b = (await svc.call('POST', '/browsers', { body: {} })).body;
      const pw = await chromium.connectOverCDP(b.cdp_ws_url);
      try {
        const page = pw.contexts()[0]!.pages()[0]!;
        await page.goto(siteUrl);
        // Playwright still sees the download happen.
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#attach')]);
        expect(download.suggestedFilename()).toBe('report.bin');
        await arrives(b.session_id, '/home/kernel/Downloads/report.bin');
        expect(sha(await readBack(b.session_id, '/home/kernel/Downloads/report.bin'))).toBe(sha(BODY));
      } finally {
        await pw.close();
      }
      // Playwright's leaving reset Chromium's download behaviour; a client that sets none downloads into Downloads.
      const browser = await eventually(async () => puppeteer.connect({ browserWSEndpoint: b.cdp_ws_url, defaultViewport: null }).catch(() => undefined));
      try {
        const page = (await browser.pages())[0]!;
        await page.goto(siteUrl);
        await page.click('#link');
        await arrives(b.session_id, '/home/kernel/Downloads/linked.bin');
      } finally {
        await browser.disconnect();
        await svc.call('DELETE', `/browsers/${b.session_id}`);
      }
    });
  });
}
