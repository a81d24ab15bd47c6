// The bytes of run artifacts: one file each in the blob dir (<dir>/<run_id>/<artifact_id>), written as the
// upload arrives (hashed and counted on the way) and kept only once complete.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { invalidField } from '../errors.js';

/** What one artifact may weigh: room for a long replay video. */
export const MAX_ARTIFACT_BYTES = 512 * 1024 * 1024;

/**
 * The content type an artifact is served with, from its name only: what the uploader says is not trusted,
 * since a file served from the service's own origin as HTML could run script there.
 */
const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.zip': 'application/zip',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.vtt': 'text/vtt; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
};

export function contentTypeOf(name: string): string {
  return TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Whether a browser may show it in place (images, videos); anything else downloads. */
export function showsInline(contentType: string): boolean {
  return /^(image|video)\//.test(contentType);
}

export class ArtifactFiles {
  constructor(private readonly dir: string) {}

  /** Removes what interrupted uploads left. */
  async prepare(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (const run of await readdir(this.dir)) {
      const files = await readdir(join(this.dir, run)).catch(() => [] as string[]);
      for (const name of files) if (name.includes('.incoming')) await rm(join(this.dir, run, name), { force: true });
    }
  }

  path(runId: string, artifactId: string): string {
    return join(this.dir, safe(runId), safe(artifactId));
  }

  /**
   * Writes `source` as the artifact's file; its size and SHA-256. Over MAX_ARTIFACT_BYTES it is refused and
   * nothing is left. `field` names the body in the refusal.
   */
  async write(runId: string, artifactId: string, source: NodeJS.ReadableStream, field: string): Promise<{ size: number; checksum: string }> {
    const final = this.path(runId, artifactId);
    const incoming = `${final}.incoming`;
    await mkdir(join(this.dir, safe(runId)), { recursive: true, mode: 0o700 });
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > MAX_ARTIFACT_BYTES) return done(invalidField(field, `is larger than ${MAX_ARTIFACT_BYTES / 1024 / 1024} MiB, the most an artifact may be`));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, tap, createWriteStream(incoming, { mode: 0o600 }));
      await rename(incoming, final);
    } catch (err) {
      await rm(incoming, { force: true });
      throw err;
    }
    return { size, checksum: hash.digest('hex') };
  }

  async remove(runId: string, artifactId: string): Promise<void> {
    await rm(this.path(runId, artifactId), { force: true });
  }

  /** Every file of the run, and its folder. */
  async removeRun(runId: string): Promise<void> {
    await rm(join(this.dir, safe(runId)), { recursive: true, force: true, maxRetries: 3 });
  }
}

/** Ids are the service's own ([a-z0-9]); anything else never names a file. */
function safe(id: string): string {
  if (!/^[a-z0-9]{1,64}$/.test(id)) throw new Error(`not an id: ${JSON.stringify(id)}`);
  return id;
}
