// Which page actions page-web.ts performs (the rest, page-actions.ts): their own module, so both can name
// them without importing each other. The type follows the list, so the two cannot differ.
import type { PageAction } from '../../src/scenario/plan.js';

const WEB_ACTIONS = ['switch_page', 'close_page', 'dialog', 'route', 'unroute', 'request', 'wait_for_response', 'wait_for_download', 'save_storage_state'] as const;

export type WebAction = Extract<PageAction, { action: (typeof WEB_ACTIONS)[number] }>;

export function isWebAction(action: PageAction): action is WebAction {
  return (WEB_ACTIONS as readonly string[]).includes(action.action);
}
