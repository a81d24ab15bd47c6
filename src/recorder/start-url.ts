// The URL a recording starts on, as Playwright's codegen takes it: a bare `host:port/path` is http.

export function startUrl(raw: string): string {
  const bareHost = /^[^/:]+:\d+(\/|$)/.test(raw) || !/^[a-z][a-z0-9+.-]*:/i.test(raw);
  let url: URL;
  try {
    url = new URL(bareHost ? `http://${raw}` : raw);
  } catch {
    throw new Error(`'${raw}' is not a URL`);
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol)) throw new Error(`'${raw}': codegen records http, https and file pages`);
  return url.href;
}
