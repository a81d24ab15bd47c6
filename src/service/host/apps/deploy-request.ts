// What `POST /deployments` asks for, read from its multipart body (the SDK always sends multipart: the zip
// as `file`, `env_vars[NAME]` fields, `source` as JSON text) or taken from a JSON body, and checked against
// the one wire schema either way.
import type { Multipart } from '@fastify/multipart';
import { join } from 'node:path';
import { deploymentCreateParams, type DeploymentCreateParams } from '../../../api/schemas/apps.js';
import { badRequest, invalidField, validationDetails } from '../errors.js';
import { multipartError, spoolUpload } from '../fs/index.js';
import { validatorOnFirstUse } from '../validator.js';

export interface DeployRequest {
  params: DeploymentCreateParams;
  /** The uploaded zip, spooled to disk, with its SHA-256. */
  zip?: { path: string; size: number; checksum: string };
}

const validate = validatorOnFirstUse(deploymentCreateParams, { allErrors: true, strict: false });

/** Checks `params` against the schema; `input` names the request part (`body`). */
export function checkParams(params: unknown, input: string): DeploymentCreateParams {
  if (!validate(params)) {
    const details = validationDetails(input, validate.errors ?? []);
    throw badRequest(details[0]?.message ?? `${input} is invalid`, details);
  }
  return params as DeploymentCreateParams;
}

const ENV_FIELD = /^env_vars\[([^\]]*)\]$|^env_vars\.(.+)$/;

/** Reads the parts into `dir` (the zip as upload.zip). */
export async function readDeployParts(parts: AsyncIterable<Multipart>, dir: string, input: string): Promise<DeployRequest> {
  const fields: Record<string, unknown> = {};
  const env: Record<string, string> = {};
  let zip: DeployRequest['zip'];
  try {
    for await (const part of parts) {
      const name = part.fieldname;
      const field = `${input}.${name}`;
      if (part.type === 'file') {
        if (name !== 'file') throw invalidField(field, 'unexpected file part (the zip goes in `file`)');
        if (zip) throw invalidField(field, 'is given more than once');
        zip = await spoolUpload(part.file, join(dir, 'upload.zip'));
        if (part.file.truncated) throw invalidField(field, 'is larger than the upload limit');
        continue;
      }
      if (part.valueTruncated) throw invalidField(field, 'is too long');
      const value = String(part.value);
      const envName = ENV_FIELD.exec(name);
      if (envName) env[envName[1] ?? envName[2]!] = value;
      else if (name === 'env_vars') Object.assign(env, parseJsonField(value, field, 'an object of strings'));
      else if (name === 'source') fields.source = parseJsonField(value, field, 'an object');
      else if (name === 'force') fields.force = booleanField(value, field);
      else if (name in fields) throw invalidField(field, 'is given more than once');
      else fields[name] = value;
    }
  } catch (err) {
    throw multipartError(err, input);
  }
  if (Object.keys(env).length) fields.env_vars = env;
  return { params: checkParams(fields, input), zip };
}

function parseJsonField(text: string, field: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidField(field, `must be JSON text of ${what}`);
  }
}

function booleanField(text: string, field: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw invalidField(field, 'must be true or false');
}
