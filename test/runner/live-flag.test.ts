// `bcs run --live`: the link of each scenario's live view is said as its browser starts; someone who opens
// it sees the page and can act in it while the scenario runs (here: the click the scenario waits for).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { eventually } from '../helpers/service.js';

const PAGE = '<title>waiting</title><button style="position:fixed;left:0;top:0;width:400px;height:300px" onclick="document.title=`clicked`">click me</button>';

const project = await inlineFiles({
  'watched.yaml': `name: watched
browser: { viewport: { width: 800, height: 600 } }
steps:
  - goto: "data:text/html,${encodeURIComponent(PAGE)}"
  - expect: { title: clicked, timeout: 45s }
`,
});

describe('bcs run --live', () => {
  it("says each scenario's live view link; a person can watch and click through it", async () => {
    const out = project.path('out');
    const { child, done } = startCli(['run', 'watched.yaml', '--live', '--reporter', 'list,json,html', '--output-dir', out], {}, { cwd: project.path('.') });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const link = await eventually(() => /live view of 'watched': (http:\/\/\S+)/.exec(stderr)?.[1], 60_000);
    const url = new URL(link);
    const ws = new WebSocket(`ws://${url.host}/browsers/${url.pathname.split('/')[2]}/live?token=${url.searchParams.get('token')}`);
    const frames: Buffer[] = [];
    const messages: { type: string; mode?: string }[] = [];
    ws.on('message', (data, binary) => (binary ? frames.push(data as Buffer) : messages.push(JSON.parse(String(data)))));
    await eventually(() => messages.find((m) => m.type === 'hello'), 30_000);
    expect(messages[0]).toMatchObject({ type: 'hello', mode: 'interactive', width: 800, height: 600 });
    await eventually(() => frames[0], 30_000);
    ws.send(JSON.stringify({ type: 'mouse', action: 'down', x: 100, y: 100, button: 'left' }));
    ws.send(JSON.stringify({ type: 'mouse', action: 'up', x: 100, y: 100, button: 'left' }));
    const res = await done;
    expect(res.code, res.stdout + res.stderr).toBe(0);
    ws.close();

    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.scenarios[0].live_view_url).toBe(link);
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain(`class="live" href="${link.replaceAll('&', '&amp;')}"`);
  });
});
