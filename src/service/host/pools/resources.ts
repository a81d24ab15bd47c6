// The profile and extensions of a browser pool, as its create and update bodies set them. The stored config
// keeps them as sent (echoed in browser_pool_config) plus the resolved ids its launches use (`profile_id`
// and `extension_ids`, shown at the top of the pool object instead). Pool browsers load the profile
// read-only: `save_changes` is accepted and dropped, as on the hosted API.
import type { BrowserExtensionSelector, BrowserProfileSelector } from '../../../api/types.js';
import { invalidField } from '../errors.js';
import type { StoredPoolConfig } from '../../store/pools-repo.js';
import type { ExtensionStore } from '../extensions/index.js';
import type { ProfileStore } from '../profiles/index.js';

export interface PoolResourceFields {
  profile?: BrowserProfileSelector;
  extensions?: BrowserExtensionSelector[];
  refresh_on_profile_update?: boolean;
}

export interface PoolResourceStores {
  profiles?: Pick<ProfileStore, 'select'>;
  extensions?: Pick<ExtensionStore, 'selectAll' | 'checkAvailable'>;
}

/**
 * Applies the body's profile, extensions and refresh_on_profile_update to `config` (on update, a copy of
 * the pool's current one). On update `profile: {id: ""}` clears the profile, which also unsets the
 * refresh flag, and `extensions: []` clears the extensions.
 */
export async function applyPoolResources(
  config: StoredPoolConfig,
  body: PoolResourceFields,
  projectId: string | null,
  stores: PoolResourceStores,
  input: string,
): Promise<void> {
  const { profile, extensions, refresh_on_profile_update: refresh } = body;
  if (profile !== undefined) {
    const { save_changes: _readOnly, ...selector } = profile;
    // "" is only valid in update bodies (the create schema refuses it).
    if (profile.id === '' || profile.name === '') {
      delete config.profile;
      delete config.profile_id;
      delete config.refresh_on_profile_update;
    } else if (stores.profiles) {
      const row = await stores.profiles.select(projectId, selector, `${input}.profile`);
      // Defaults to true when a profile is set on a pool that had none.
      if (config.profile_id === undefined) config.refresh_on_profile_update = true;
      config.profile = selector;
      config.profile_id = row.id;
    }
  }
  if (refresh !== undefined) {
    if (refresh && config.profile_id === undefined) throw invalidField(`${input}.refresh_on_profile_update`, 'needs a profile on the pool');
    if (config.profile_id !== undefined) config.refresh_on_profile_update = refresh;
  }
  if (extensions !== undefined) {
    if (extensions.length === 0) {
      delete config.extensions;
      delete config.extension_ids;
    } else if (stores.extensions) {
      stores.extensions.checkAvailable();
      config.extension_ids = (await stores.extensions.selectAll(projectId, extensions, `${input}.extensions`)).map((row) => row.id);
      config.extensions = extensions;
    }
  }
}
