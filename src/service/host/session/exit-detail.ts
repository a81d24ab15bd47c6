// How a Chromium that exited on its own is described in its session's recorded end.
import type { ExitInfo, LaunchedChromium } from '../browser/index.js';

export function describeExit(info: ExitInfo, chromium: LaunchedChromium): string {
  const how = info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
  const said = chromium.stderrTail().trim().split('\n').slice(-1)[0];
  return `chromium ${how}${said ? ` (last output: ${said.slice(0, 300)})` : ''}`;
}
