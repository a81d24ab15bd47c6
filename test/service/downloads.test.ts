// A real download lands in /home/kernel/Downloads and is read back through the fs API, as on the
// hosted service, so scenarios that read downloads run the same in both places.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const REPORT = randomBytes(48_000);
const PAGE = `<!doctype html><title>downloads</title>
<a id="dl" href="/report.bin" style="position:absolute;left:0;top:0;width:300px;height:100px;display:block">download</a>`;

let svc: TestService;
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === '/report.bin') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="report.bin"' });
      res.end(REPORT);
    } else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
  site.close();
});

async function readBack(id: string, path: string): Promise<Buffer> {
  await eventually(async () => {
    const info = await svc.call('GET', `/browsers/${id}/fs/file_info?path=${encodeURIComponent(path)}`);
    return info.status === 200 && info.body.size_bytes === REPORT.length ? true : undefined;
  });
  const res = await fetch(`${svc.baseUrl}/browsers/${id}/fs/read_file?path=${encodeURIComponent(path)}`, {
    headers: { authorization: `Bearer ${svc.apiKey}` },
  });
  return Buffer.from(await res.arrayBuffer());
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('downloads', () => {
  it('a link clicked at OS level downloads into /home/kernel/Downloads', async () => {
    const b = (await svc.call('POST', '/browsers', { body: { start_url: siteUrl, viewport: { width: 800, height: 600 } } })).body;
    // The page loads on its own (start_url); nothing but the computer API touches the browser. A click that
    // lands before the page has loaded does nothing, so click until the download begins.
    await eventually(async () => {
      expect((await svc.call('POST', `/browsers/${b.session_id}/computer/click_mouse`, { body: { x: 50, y: 50 } })).status).toBe(200);
      const info = await svc.call('GET', `/browsers/${b.session_id}/fs/list_files?path=${encodeURIComponent('/home/kernel/Downloads')}`);
      return info.status === 200 && info.body.length > 0 ? true : undefined;
    }, 20_000, 750);
    expect(sha(await readBack(b.session_id, '/home/kernel/Downloads/report.bin'))).toBe(sha(REPORT));
    if (b.sandboxed) {
      // Processes see the same folder under the same name.
      const ls = await svc.call('POST', `/browsers/${b.session_id}/process/exec`, { body: { command: 'ls', args: ['/home/kernel/Downloads'] } });
      expect(Buffer.from(ls.body.stdout_b64, 'base64').toString()).toContain('report.bin');
    }
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('with Playwright connected, Browser.setDownloadBehavior points downloads at the same folder', async () => {
    // Sandboxed or not: the CDP proxy takes the folder as a path of the session's view.
    const b = (await svc.call('POST', '/browsers')).body;
    const browser = await chromium.connectOverCDP(b.cdp_ws_url);
    const page = browser.contexts()[0]!.pages()[0]!;
    const cdp = await browser.newBrowserCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/home/kernel/Downloads', eventsEnabled: true });
    await page.goto(siteUrl);
    await page.click('#dl');
    expect(sha(await readBack(b.session_id, '/home/kernel/Downloads/report.bin'))).toBe(sha(REPORT));
    await browser.close();
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });
});
