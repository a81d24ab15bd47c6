// The 1Password provider, through 1Password's official SDK and a service account token. The SDK signs in
// against 1Password's servers, so with no route to them every call fails with the SDK's own reason.
import type { ProviderClient, ProviderItem, ProviderLogin, ProviderVault } from './providers.js';

const INTEGRATION = { integrationName: 'browser-scenarios', integrationVersion: '1' };

/** The field types a login form can be filled from; the rest (cards, addresses, keys) are not login values. */
const VALUE_FIELD_TYPES = new Set(['Text', 'Concealed', 'Email', 'Phone', 'Url']);

export async function connectOnePassword(token: string, signal: AbortSignal): Promise<ProviderClient> {
  // Loaded on first use: the SDK carries a WebAssembly core nothing else needs.
  const sdk = await import('@1password/sdk');
  signal.throwIfAborted();
  const client = await sdk.createClient({ auth: token, ...INTEGRATION });

  const vaults = async (): Promise<ProviderVault[]> => (await client.vaults.list()).map((v) => ({ id: v.id, name: v.title }));

  return {
    vaults,
    async items(aborted) {
      const items: ProviderItem[] = [];
      for (const vault of await vaults()) {
        aborted.throwIfAborted();
        for (const item of await client.items.list(vault.id)) {
          items.push({
            id: item.id,
            path: `${vault.name}/${item.title}`,
            title: item.title,
            vault_id: vault.id,
            vault_name: vault.name,
            urls: item.websites.map((w) => w.url),
          });
        }
      }
      return items;
    },
    async login(item): Promise<ProviderLogin> {
      const full = await client.items.get(item.vault_id, item.id);
      const values: Record<string, string> = {};
      let totp: string | null = null;
      for (const field of full.fields) {
        if (field.fieldType === 'Totp') totp ||= field.value || null;
        else if (VALUE_FIELD_TYPES.has(field.fieldType) && field.value) {
          // A Login item's built-in fields have the ids username and password; others go by their label.
          const key = field.id === 'username' || field.id === 'password' ? field.id : (field.title || field.id).toLowerCase();
          values[key] ??= field.value;
        }
      }
      return { values, totp };
    },
  };
}
