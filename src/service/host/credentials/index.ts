// Credentials, their TOTP codes, and the external providers that hold credentials elsewhere.
import { connectOnePassword } from './onepassword.js';
import type { ProviderConnector } from './providers.js';

export { CredentialStore, type CredentialSecrets } from './credentials.js';
export { CredentialProviders, matchesDomain, type ProviderClient, type ProviderConnector, type ProviderReference } from './providers.js';
export { normalizeTotpSecret, totpCodeAt, type TotpCode } from './totp.js';

/** Each provider type's client; a new type is one more case here and one ProviderClient. */
export const connectProvider: ProviderConnector = (type, token, signal) => {
  switch (type) {
    case 'onepassword':
      return connectOnePassword(token, signal);
  }
};
