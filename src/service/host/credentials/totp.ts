// TOTP (RFC 6238) through otpauth: what a credential's `totp_secret` may be, and the code it gives at a time.
// The clock is the caller's, so tests (and the RFC's vectors) pick the instant.
import { Secret, TOTP, URI } from 'otpauth';
import { invalidField } from '../errors.js';

/** 80 bits: the shortest secret sites hand out (RFC 4226 asks for 128 and more). */
const MIN_BASE32_CHARS = 16;

export interface TotpCode {
  code: string;
  expires_at: string;
}

/**
 * The form a secret is stored in: a base32 secret without spaces, dashes or padding, upper case; or an
 * `otpauth://totp/` URI as otpauth writes it (keeping its algorithm, digits and period). `field` names the
 * input in errors.
 */
export function normalizeTotpSecret(input: string, field: string): string {
  const text = input.trim();
  if (/^otpauth:\/\//i.test(text)) {
    let parsed: ReturnType<typeof URI.parse>;
    try {
      parsed = URI.parse(text);
    } catch (err) {
      throw invalidField(field, `is not a valid otpauth URI (${(err as Error).message})`);
    }
    if (!(parsed instanceof TOTP)) throw invalidField(field, 'is an HOTP URI; only time-based (otpauth://totp/) secrets are supported');
    return parsed.toString();
  }
  const base32 = text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (!/^[A-Z2-7]*$/.test(base32)) throw invalidField(field, 'must be a base32 secret (letters A-Z and digits 2-7) or an otpauth://totp/ URI');
  if (base32.length < MIN_BASE32_CHARS) throw invalidField(field, `is too short: a base32 secret has at least ${MIN_BASE32_CHARS} characters (80 bits)`);
  return base32;
}

export function totpCodeAt(stored: string, at: Date): TotpCode {
  const totp = stored.startsWith('otpauth://') ? (URI.parse(stored) as TOTP) : new TOTP({ secret: Secret.fromBase32(stored) });
  const timestamp = at.getTime();
  const periodMs = totp.period * 1000;
  return {
    code: totp.generate({ timestamp }),
    expires_at: new Date((Math.floor(timestamp / periodMs) + 1) * periodMs).toISOString(),
  };
}
