// A page server whose titles are queued per path: each request takes the next (the last one repeats), which
// is how a test makes a scenario fail once and then pass, with nothing timed.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TitleSite {
  url: string;
  /** Titles to serve, per path, in turn. */
  titles: Map<string, string[]>;
  close(): Promise<void>;
}

export async function startTitleSite(): Promise<TitleSite> {
  const titles = new Map<string, string[]>();
  const site = createServer((req, res) => {
    const queue = titles.get(req.url ?? '') ?? ['none'];
    const title = queue.length > 1 ? queue.shift()! : queue[0]!;
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>${title}</title><h1>${title}</h1>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    titles,
    close: () => new Promise<void>((r) => site.close(() => r())),
  };
}
