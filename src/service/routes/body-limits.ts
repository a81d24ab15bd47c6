/** Room for a chrome_policy of 5 MiB (the largest taken) beside the other fields of a browser or pool body. */
export const POLICY_BODY_LIMIT = 6 * 1024 * 1024;
