// Serves app/ on loopback for the Playwright Test project (bcs scenarios use `serve:` instead).
import { createReadStream } from 'node:fs';
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 4290);
createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  createReadStream(new URL('app/index.html', import.meta.url)).pipe(res);
}).listen(port, '127.0.0.1');
