// The two fixed ports inside a session's network namespace (nothing else listens there but the session's own).
/** Where the bridge to the session's egress proxy listens: Chromium's --proxy-server, processes' HTTP(S)_PROXY. */
export const EGRESS_PORT = 3128;
/** Where Chromium's DevTools listens. */
export const DEVTOOLS_PORT = 9222;
