// Writes openapi.json, published with the package: the document GET /openapi.json serves, taken from the
// built service (dist/) started on a temporary data dir. Run by `npm pack` (prepack), after the build.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function writeOpenApiFile(out = join(root, 'openapi.json')) {
  const { startService } = await import(new URL('../dist/src/service/index.js', import.meta.url).href);
  const dataDir = await mkdtemp(join(tmpdir(), 'bcs-openapi-'));
  // No session ever starts: sessions would need neither the sandbox nor a standby browser.
  const service = await startService({ dataDir, standby: 0, sandbox: 'off', logLevel: 'silent' });
  try {
    const res = await fetch(`${service.baseUrl}/openapi.json`, { headers: { authorization: `Bearer ${service.apiKey}` } });
    if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
    await writeFile(out, `${JSON.stringify(await res.json(), null, 2)}\n`);
    // The window-frame probe Chromium launches at start; let it finish before the service goes.
    await service.sessions.windowFrame().catch(() => undefined);
  } finally {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeOpenApiFile();
}
