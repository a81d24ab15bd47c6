// The per-type `config` of a proxy create body. Which fields are allowed depends on `type`, so the route's
// schema only says "an object" and this checks it against the type's own schema, reporting each problem as
// an invalid_input detail under the body's `config` like any other validation error.
import { Ajv } from 'ajv';
import type { ProxyConfig, ProxyCreateParams, ProxyType } from '../../../api/types.js';
import { badRequest, validationDetails } from '../errors.js';

const country = { type: 'string', pattern: '^[A-Za-z]{2}$' } as const;
const region = { type: 'string', pattern: '^[A-Za-z]{2}$' } as const;
// City aliases have no spaces (`sanfrancisco`), as on the hosted API.
const city = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' } as const;

const schemas: Record<ProxyType, object> = {
  datacenter: { type: 'object', additionalProperties: false, properties: { country } },
  isp: { type: 'object', additionalProperties: false, properties: { country } },
  residential: {
    type: 'object',
    additionalProperties: false,
    properties: {
      country,
      state: region,
      city,
      zip: { type: 'string', pattern: '^[0-9]{5}$' },
      asn: { type: 'string', pattern: '^(AS)?[0-9]{1,10}$' },
      os: { type: 'string', enum: ['windows', 'macos', 'android'] },
    },
    // draft-07's spelling of dependentRequired (the Ajv here is draft-07).
    dependencies: { city: ['country'] },
  },
  mobile: { type: 'object', additionalProperties: false, properties: { country, state: region, city } },
  custom: {
    type: 'object',
    additionalProperties: false,
    required: ['host', 'port'],
    properties: {
      // A host name or an IP address (IPv6 with or without brackets); nothing that could carry a path or user.
      host: { type: 'string', minLength: 1, maxLength: 253, pattern: '^([A-Za-z0-9_.-]+|\\[?[0-9A-Fa-f:.]+\\]?)$' },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      // Basic credentials cannot carry a colon in the user name.
      username: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^:\\r\\n]*$' },
      // The hosted minimum is 5 characters.
      password: { type: 'string', minLength: 5, maxLength: 1024 },
    },
  },
};

const ajv = new Ajv({ allErrors: true, coerceTypes: false, strict: false });
// Compiled on the first proxy created, not when the service starts (every `bcs run` starts one).
const validators = new Map<ProxyType, ReturnType<typeof ajv.compile>>();
const validatorFor = (type: ProxyType) => validators.get(type) ?? validators.set(type, ajv.compile(schemas[type])).get(type)!;

/** The checked config, split into what is shown (and stored) and the password (to be sealed). */
export function checkProxyConfig(body: ProxyCreateParams, input: string): { config: ProxyConfig; password?: string } {
  const field = `${input}.config`;
  const given = body.config ?? {};
  const validate = validatorFor(body.type);
  if (body.type === 'custom' && body.config === undefined) {
    throw badRequest(`${field}: is required for custom proxies`, [
      { code: 'invalid_input', field, message: `${field}: is required for custom proxies (host and port)` },
    ]);
  }
  if (!validate(given)) {
    const details = validationDetails(field, validate.errors as never);
    throw badRequest(details.map((d) => d.message).join('; '), details);
  }
  const { password, ...config } = given as ProxyConfig & { password?: string };
  if (config.country) config.country = config.country.toUpperCase();
  if (config.state) config.state = config.state.toUpperCase();
  // The hosted defaults: datacenter and ISP exits are in the US unless asked otherwise.
  if ((body.type === 'datacenter' || body.type === 'isp') && !config.country) config.country = 'US';
  if (config.host) config.host = config.host.replace(/^\[(.*)\]$/, '$1');
  return { config, ...(password !== undefined ? { password } : {}) };
}

/** Why a proxy of a hosted-only type cannot carry traffic here (its status_detail, and the 400's message). */
export function hostedOnlyReason(type: ProxyType): string {
  return `${type} proxies are pools of exit IPs that only the hosted service has; they cannot route traffic from this service. Only custom proxies route locally`;
}
