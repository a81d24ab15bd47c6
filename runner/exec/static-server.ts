// Serves a scenario's `serve:` folder on loopback for the length of a run.
import { stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

export async function serveFolder(dir: string): Promise<StaticServer> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new Error(`serve: '${dir}' is not a folder`);
  // Closing must not wait for the browser's keep-alive connections: a pooled browser outlives the run.
  // Loaded for the scenarios that serve a folder, not for every run.
  const [{ default: Fastify }, { default: fastifyStatic }] = await Promise.all([import('fastify'), import('@fastify/static')]);
  const app = Fastify({ logger: false, forceCloseConnections: true });
  await app.register(fastifyStatic, { root: dir, index: ['index.html'], cacheControl: false, etag: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
