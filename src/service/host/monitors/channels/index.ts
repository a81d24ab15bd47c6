// Alert channels: what a monitor sends an alert with. deliver() is the one entry point for sending;
// verifySignature() is for receivers of the webhook (and the tests); the message builders are pure, for
// previews and tests.
export { deliver, BACKOFF_MS, DEFAULT_TIMEOUT_MS, MAX_ATTEMPTS, RETRY_AFTER_CAP_MS } from './deliver.js';
export type { DeliveryDeps, DeliveryResult } from './deliver.js';
export { allowAddressUnder, systemResolve } from './egress.js';
export type { AllowAddress, Resolve, ResolvedAddress } from './egress.js';
export { SIGNATURE_HEADER, signatureHeader, verifySignature } from './webhook.js';
export { slackMessage } from './slack.js';
export type { SlackMessage } from './slack.js';
export { alertMail } from './email.js';
export type { AlertMail } from './email.js';
export { dedupKey, pagerDutyEvent } from './pagerduty.js';
export type { PagerDutyEvent } from './pagerduty.js';
