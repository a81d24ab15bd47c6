// What `POST /monitors/deployments` sends: the folder's zip as `file` (spooled to disk) and the manifest as a
// JSON text field `manifest`, checked against the one wire schema.
import type { Multipart } from '@fastify/multipart';
import { join } from 'node:path';
import { monitorManifest, type MonitorManifest } from '../../../api/schemas/monitors.js';
import { badRequest, invalidField, validationDetails } from '../errors.js';
import { multipartError, spoolUpload } from '../fs/index.js';
import { validatorOnFirstUse } from '../validator.js';

const validate = validatorOnFirstUse(monitorManifest, { allErrors: true, strict: false });

export async function readMonitorDeploy(parts: AsyncIterable<Multipart>, dir: string, input: string): Promise<{ manifest: MonitorManifest; zipPath: string }> {
  let manifest: unknown;
  let zipPath: string | undefined;
  try {
    for await (const part of parts) {
      const field = `${input}.${part.fieldname}`;
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw invalidField(field, 'unexpected file part (the zip goes in `file`)');
        if (zipPath) throw invalidField(field, 'is given more than once');
        zipPath = (await spoolUpload(part.file, join(dir, 'upload.zip'))).path;
        if (part.file.truncated) throw invalidField(field, 'is larger than the upload limit');
        continue;
      }
      if (part.fieldname !== 'manifest') throw invalidField(field, 'is not a field of this upload (send `file` and `manifest`)');
      if (manifest !== undefined) throw invalidField(field, 'is given more than once');
      if (part.valueTruncated) throw invalidField(field, 'is too long');
      try {
        manifest = JSON.parse(String(part.value));
      } catch {
        throw invalidField(field, 'is not JSON');
      }
    }
  } catch (err) {
    throw multipartError(err, input);
  }
  if (!zipPath) throw invalidField(`${input}.file`, 'is required: a zip of the suite folder');
  if (manifest === undefined) throw invalidField(`${input}.manifest`, 'is required: the manifest as JSON text');
  if (!validate(manifest)) {
    const details = validationDetails(`${input}.manifest`, validate.errors ?? []);
    throw badRequest(details[0]?.message ?? `${input}.manifest is invalid`, details);
  }
  return { manifest: manifest as MonitorManifest, zipPath };
}
