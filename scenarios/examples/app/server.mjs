// A stand-in for the app under test: `web-server.yaml` starts it, waits for it, and stops it.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 4173);
createServer((req, res) => {
  res.setHeader('content-type', 'text/html');
  res.end(`<!doctype html><title>App</title><h1>Served on port ${port}</h1><p>${req.url}</p>`);
}).listen(port, '127.0.0.1', () => console.log(`app listening on ${port}`));
