// Short-lived API keys for app code: each action worker gets one in KERNEL_API_KEY, so the SDK inside the
// action talks to this service as the deployment's project. They live in memory only (hashed, like stored
// keys), never reach the database or the key listing, and die with their worker.
import { hashKey, newApiKey } from '../../ids.js';

export interface AppKeyScope {
  /** Shown as the key id in the audit log. */
  id: string;
  projectId: string | null;
}

export class AppKeys {
  private readonly byHash = new Map<string, AppKeyScope>();

  /** A new key acting in `projectId`; `revoke` ends it. */
  issue(projectId: string | null, id: string): { key: string; revoke: () => void } {
    const key = newApiKey();
    const hash = hashKey(key);
    this.byHash.set(hash, { id, projectId });
    return { key, revoke: () => this.byHash.delete(hash) };
  }

  authenticate(key: string): AppKeyScope | undefined {
    return this.byHash.get(hashKey(key));
  }
}
