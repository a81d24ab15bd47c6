// The pages the recorder tests record on: served from a loopback port, each path's HTML from `pageFor`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A name field, a button that greets by it, and the greeting as a status. */
export const ORDER_FORM = `<!doctype html><title>Order</title>
<h1>Order</h1>
<label>Your name <input id="name"></label>
<button data-testid="greet" style="width:200px;height:60px"
  onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value + '!'">Greet</button>
<p role="status" id="out"></p>`;

export interface PageSite {
  /** The address of `path` on the site. */
  url(path: string): string;
  close(): Promise<void>;
}

export async function servePages(pageFor: (path: string) => string): Promise<PageSite> {
  const site = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(pageFor(req.url ?? '/')));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  return { url: (path) => `${origin}${path}`, close: () => new Promise<void>((r) => site.close(() => r())) };
}
