// A deployed suite's secrets, read when a check runs (never stored with the deploy, never in its files): a value
// of one of the project's credentials, or one of the service's own BCS_SECRET_* variables, which its operator
// set for monitors. Channels name them the same way, so a Slack URL's token lives where passwords do.
import type { MonitorChannelSpec, SecretSource } from '../../../api/schemas/monitors.js';
import type { CredentialStore } from '../credentials/index.js';
import type { Channel } from './alert.js';

/** A secret that could not be read; the message names it and where it was looked for, never a value. */
export class SecretUnavailable extends Error {
  override name = 'SecretUnavailable';
}

export interface SecretReader {
  credentials: Pick<CredentialStore, 'find' | 'open'>;
  env: NodeJS.ProcessEnv;
}

export async function readSecret(reader: SecretReader, projectId: string | null, name: string, source: SecretSource | undefined): Promise<string> {
  if (!source) throw new SecretUnavailable(`secret '${name}' is not in the suite's secrets`);
  if ('env' in source) {
    const value = reader.env[source.env];
    if (value === undefined) throw new SecretUnavailable(`secret '${name}': the service's environment has no ${source.env}`);
    return value;
  }
  const row = await reader.credentials.find(projectId, source.credential).catch(() => undefined);
  if (!row) throw new SecretUnavailable(`secret '${name}': credential '${source.credential}' does not exist in the suite's project`);
  const value = reader.credentials.open(row).values[source.field];
  if (value === undefined) throw new SecretUnavailable(`secret '${name}': credential '${source.credential}' has no value '${source.field}'`);
  return value;
}

/** Every secret of the suite, as the check's run environment gets them. */
export async function readAllSecrets(reader: SecretReader, projectId: string | null, sources: Record<string, SecretSource>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, source] of Object.entries(sources)) out[name] = await readSecret(reader, projectId, name, source);
  return out;
}

const DEFAULT_PAGERDUTY = 'https://events.pagerduty.com/v2/enqueue';

/** A channel of the manifest with its secrets read, as a sender takes it. */
export async function resolveChannel(
  reader: SecretReader,
  projectId: string | null,
  name: string,
  spec: MonitorChannelSpec,
  sources: Record<string, SecretSource>,
): Promise<Channel> {
  const value = (v: string | { secret: string }) => (typeof v === 'string' ? Promise.resolve(v) : readSecret(reader, projectId, v.secret, sources[v.secret]));
  switch (spec.type) {
    case 'webhook':
      return { type: 'webhook', name, url: await value(spec.url), ...(spec.secret ? { secret: await value(spec.secret) } : {}) };
    case 'slack':
      return { type: 'slack', name, url: await value(spec.url) };
    case 'pagerduty':
      return { type: 'pagerduty', name, url: spec.url === undefined ? DEFAULT_PAGERDUTY : await value(spec.url), routing_key: await value(spec.routing_key) };
    case 'email': {
      const { host, port, secure, user, password } = spec.smtp;
      return {
        type: 'email',
        name,
        smtp: { host, port, secure: secure ?? port === 465, ...(user ? { user: await value(user) } : {}), ...(password ? { password: await value(password) } : {}) },
        from: spec.from,
        to: spec.to,
      };
    }
  }
}
