// Which scenarios may share a run-scoped session (fresh context each), which get a session of their own
// prepared ahead, and which are left to create their own browser when they start.
import { describe, expect, it } from 'vitest';
import { compileScenario } from '../../src/scenario/compile.js';
import { ScenarioError } from '../../src/scenario/diagnostics.js';
import { loadScenarioSource } from '../../src/scenario/load.js';
import { browserNeed } from '../../runner/suite/browser-need.js';

function need(yaml: string) {
  const loaded = loadScenarioSource('scenarios/t.yaml', `name: t\n${yaml}`);
  try {
    return browserNeed(compileScenario(loaded, { env: {} }));
  } catch (err) {
    if (err instanceof ScenarioError) throw new Error(JSON.stringify(err.diagnostics));
    throw err;
  }
}
const GOTO = 'steps:\n  - goto: "data:text/html,x"\n';

describe('browserNeed', () => {
  it('shares a session for scenarios that only drive pages, keyed by browser and context settings', () => {
    const plain = need(GOTO);
    expect(plain).toMatchObject({ mode: 'shared', body: {} });
    expect(need(`browser: { headless: true, viewport: { height: 700, width: 1000 } }\n${GOTO}`)!.key).toBe(
      need(`browser: { viewport: { width: 1000, height: 700 }, headless: true }\n${GOTO}`)!.key,
    );
    expect(need(`browser: { headless: true }\n${GOTO}`)!.key).not.toBe(plain!.key);
    expect(need(`context: { locale: de-DE }\n${GOTO}`)).toMatchObject({ mode: 'shared', context: { locale: 'de-DE' } });
    expect(need(`serve: site\n${GOTO}  - click: "#go"\n  - expect: { text: done }\n  - screenshot: s\n`)!.mode).toBe('shared');
  });

  it('gives a session of its own to scenarios that use their session, or name and label it', () => {
    expect(need(`${GOTO}  - exec: { command: ls }\n`)!.mode).toBe('own');
    expect(need(`${GOTO}  - computer: [{ click: { x: 1, y: 1 } }]\n`)!.mode).toBe('own');
    expect(need(`replay: { record: true }\n${GOTO}`)!.mode).toBe('own');
    expect(need(`telemetry: true\n${GOTO}`)!.mode).toBe('own');
    expect(need(`${GOTO}  - script: "return 1"\n`)!.mode).toBe('own');
    expect(need(`browser: { name: mine }\n${GOTO}`)!.mode).toBe('own');
    expect(need(`${GOTO}  - wait_for_download: { name: { equals: a.csv } }\n`)!.mode).toBe('own');
    // Inside a block counts as much as at the top.
    expect(need(`${GOTO}  - repeat: { times: 2, steps: [ { exec: { command: ls } } ] }\n`)!.mode).toBe('own');
  });

  it('prepares nothing ahead for what only exists when the scenario starts', () => {
    expect(need(`browser: { pool: warm }\n${GOTO}`)).toBeUndefined();
    expect(need(`browser: { profile: { name: p, save_changes: true } }\n${GOTO}`)).toBeUndefined();
    expect(need(`context: { storage_state: /tmp/state.json }\n${GOTO}`)).toBeUndefined();
    // A HAR belongs to the scenario's artifacts, written when its own context closes.
    expect(need(`context: { record_har: true }\n${GOTO}`)).toBeUndefined();
  });
});
