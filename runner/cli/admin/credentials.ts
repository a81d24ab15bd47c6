// `bcs credentials`: what auth connections log in with (`/credentials`): named sets of values (username,
// password, ...) for a domain, an optional TOTP secret and SSO provider. Values and the TOTP secret come
// from environment variables or stdin, never from arguments, and are never printed: the API answers only
// which keys a credential has.
import type { Command } from 'commander';
import type { Credential, CredentialCreateParams, CredentialTotpCode, CredentialUpdateParams } from '../../../src/api/index.js';
import { UsageError } from '../usage-error.js';
import { adminAction, adminFlags, fields, segment, table, type Admin, type Finish, when } from './output.js';
import { fromEnv, readStdin } from './secret-input.js';

/** Values shorter than this are not hidden in messages: replacing every `ab` would garble them, not protect anything. */
const SECRET_MIN_LENGTH = 4;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface ValueFlags {
  value?: string[];
  valuesStdin?: boolean;
  totpSecretEnv?: string;
  ssoProvider?: string;
}

const repeatable = (v: string, l: string[] = []) => [...l, v];

function valueOptions(cmd: Command): Command {
  return cmd
    .option('--value <KEY=ENV_VAR>', "a value (repeatable), read from environment variable ENV_VAR: `--value password=ADA_PASSWORD`", repeatable)
    .option('--values-stdin', 'read values from stdin as a JSON object of strings: `{"username": "...", "password": "..."}`')
    .option('--totp-secret-env <VAR>', 'read the TOTP secret (base32 or an otpauth:// URI) from this environment variable')
    .option('--sso-provider <provider>', 'the identity provider whose "Sign in with ..." button to use (e.g. google)');
}

export function registerCredentials(program: Command, finish: Finish): void {
  const credentials = program.command('credentials').description('manage credentials that auth connections log in with (values never shown)');

  adminFlags(valueOptions(credentials.command('create').description('create a credential').argument('<name>', 'its name, unique in the project')))
    .requiredOption('--domain <domain>', 'the site it logs in to, e.g. example.com')
    .action(
      adminAction(finish, async (admin, name: string, o: ValueFlags & { domain: string }) => {
        const body: CredentialCreateParams = { name, domain: o.domain, values: (await readValues(o, admin)) ?? {} };
        if (o.totpSecretEnv !== undefined) body.totp_secret = secret(admin, fromEnv('--totp-secret-env', o.totpSecretEnv));
        if (o.ssoProvider !== undefined) body.sso_provider = o.ssoProvider;
        const made = await admin.call<Credential>('POST', '/credentials', { body });
        admin.print(made, (c) => `created credential ${c.name} (id ${c.id}) for ${c.domain}: ${summary(c)}`);
      }),
    );

  adminFlags(credentials.command('list').description('list credentials (names and keys, never values)'))
    .option('--domain <domain>', 'only credentials for this domain')
    .option('--query <text>', 'only credentials whose name or domain contains this, or with this id')
    .action(
      adminAction(finish, async (admin, o: { domain?: string; query?: string }) => {
        const rows = await admin.list<Credential>('/credentials', { domain: o.domain, query: o.query });
        admin.print(rows, (list) =>
          table(
            ['ID', 'NAME', 'DOMAIN', 'VALUES', 'TOTP', 'SSO', 'UPDATED'],
            list.map((c) => [c.id, c.name, c.domain, c.has_values ? 'yes' : 'no', c.has_totp_secret ? 'yes' : 'no', c.sso_provider, when(c.updated_at)]),
          ),
        );
      }),
    );

  adminFlags(credentials.command('get').description('show a credential: its keys, never its values').argument('<name>', 'the credential, by name or id')).action(
    adminAction(finish, async (admin, name: string) => {
      const c = await admin.call<Credential>('GET', `/credentials/${segment(name)}`);
      admin.print(c, () => [
        `credential ${c.name} (id ${c.id})`,
        ...fields([
          ['domain', c.domain],
          ['values', c.value_keys?.join(', ') || '(none)'],
          ['TOTP secret', c.has_totp_secret ? 'yes (`bcs credentials totp` prints the current code)' : 'no'],
          ['SSO provider', c.sso_provider],
          ['created', when(c.created_at)],
          ['updated', when(c.updated_at)],
        ]),
      ]);
    }),
  );

  adminFlags(valueOptions(credentials.command('update').description('change values (merged into the ones kept), keys, the TOTP secret, the SSO provider or the name').argument('<name>', 'the credential, by name or id')))
    .option('--remove-key <key>', 'remove this value (repeatable); removed before new values are merged', repeatable)
    .option('--rename <new-name>', 'give it a new name')
    .action(
      adminAction(finish, async (admin, name: string, o: ValueFlags & { removeKey?: string[]; rename?: string }) => {
        const body: CredentialUpdateParams = {};
        const values = await readValues(o, admin);
        if (values) body.values = values;
        if (o.removeKey?.length) body.remove_value_keys = o.removeKey;
        if (o.rename !== undefined) body.name = o.rename;
        if (o.totpSecretEnv !== undefined) body.totp_secret = secret(admin, fromEnv('--totp-secret-env', o.totpSecretEnv));
        // An empty provider removes it, as the API takes it.
        if (o.ssoProvider !== undefined) body.sso_provider = o.ssoProvider;
        if (!Object.keys(body).length) throw new UsageError('nothing to update: give --value, --values-stdin, --remove-key, --totp-secret-env, --sso-provider or --rename');
        const c = await admin.call<Credential>('PATCH', `/credentials/${segment(name)}`, { body });
        admin.print(c, () => `updated credential ${c.name} (id ${c.id}): ${summary(c)}`);
      }),
    );

  adminFlags(credentials.command('delete').description('delete a credential').argument('<name>', 'the credential, by name or id')).action(
    adminAction(finish, async (admin, name: string) => {
      await admin.call('DELETE', `/credentials/${segment(name)}`);
      admin.print({ name, deleted: true }, () => `deleted credential ${name}`);
    }),
  );

  adminFlags(credentials.command('totp').description("print the current code of a credential's TOTP secret").argument('<name>', 'the credential, by name or id')).action(
    adminAction(finish, async (admin, name: string) => {
      const code = await admin.call<CredentialTotpCode>('GET', `/credentials/${segment(name)}/totp-code`);
      const left = Math.max(0, Math.round((Date.parse(code.expires_at) - Date.now()) / 1000));
      admin.print(code, (c) => `${c.code}  (valid until ${when(c.expires_at)}, ${left} s from now)`);
    }),
  );
}

/** `values username, password; TOTP secret; SSO google`: what it holds, never a value. */
function summary(c: Credential): string {
  const parts = [c.value_keys?.length ? `values ${c.value_keys.join(', ')}` : 'no values'];
  if (c.has_totp_secret) parts.push('TOTP secret');
  if (c.sso_provider) parts.push(`SSO ${c.sso_provider}`);
  return parts.join('; ');
}

/** The values of `--values-stdin` and `--value` (which wins for a key in both); undefined when neither was given. */
async function readValues(o: ValueFlags, admin: Admin): Promise<Record<string, string> | undefined> {
  if (!o.valuesStdin && !o.value?.length) return undefined;
  const values: Record<string, string> = o.valuesStdin ? await stdinValues() : {};
  for (const flag of o.value ?? []) {
    const eq = flag.indexOf('=');
    const key = eq < 0 ? flag : flag.slice(0, eq);
    const variable = eq < 0 ? '' : flag.slice(eq + 1);
    if (!key) throw new UsageError('--value takes KEY=ENV_VAR: a key, then the environment variable holding its value');
    // The part after = is not repeated in messages: it may be a value typed there by mistake.
    if (!ENV_NAME.test(variable)) {
      throw new UsageError(`--value ${key}=…: after = comes the name of an environment variable holding the value (letters, digits and _), never the value itself`);
    }
    const value = process.env[variable];
    if (!value) throw new UsageError(`--value ${key}=…: the environment variable named there is not set or empty`);
    values[key] = value;
  }
  for (const value of Object.values(values)) secret(admin, value);
  return values;
}

async function stdinValues(): Promise<Record<string, string>> {
  const text = await readStdin('--values-stdin', `printf '{"password":"%s"}' "$PASSWORD" | bcs credentials create ... --values-stdin`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: it quotes the text, which holds the secrets.
    throw new UsageError('--values-stdin: stdin is not JSON; expected an object of strings such as {"username": "...", "password": "..."}');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('--values-stdin: expected a JSON object of strings');
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new UsageError(`--values-stdin: the value of '${key}' must be a string`);
    values[key] = value;
  }
  return values;
}

/** Keeps `value` out of every message the command prints, and hands it back. */
function secret(admin: Admin, value: string): string {
  if (value.length >= SECRET_MIN_LENGTH) admin.secrets.push(value);
  return value;
}
