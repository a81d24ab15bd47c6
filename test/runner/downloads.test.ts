// Downloads a step starts: waited out, kept among the step's artifacts, checked, and readable on the
// browser host in /home/kernel/Downloads, where a second download of the same name replaces the first.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenarioYaml } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { appSuite } from '../helpers/app-suite.js';

const CSV = 'id,name\n1,Ada\n2,Grace\n';
const HOME = `<!doctype html><title>home</title>
<a id=csv href="/export.csv">export</a>
<button id=late onclick="setTimeout(() => location.href = '/export.csv', 300)">export later</button>`;

const project = await inlineFiles({});
const web = appSuite((req, res) => {
  if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(HOME);
  if (req.url === '/export.csv') return res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="report.csv"' }).end(CSV);
  res.writeHead(404).end();
});

describe('wait_for_download', { timeout: 120_000 }, () => {
  it('keeps what a step downloaded, checks it, and finds it on the browser host', async () => {
    const { res, out, main } = await runScenarioYaml(project.dir, 'downloads', `name: downloads
base_url: ${web.url()}
steps:
  - goto: /
  - click: { role: link, name: export }
  - wait_for_download: { name: report.csv, expect: { contains: "1,Ada" }, save: first }
  - click: { role: button, name: export later }
  - wait_for_download: { name: { matches: "^report" }, url: "**/export.csv", save: second }
  - read_file: { path: "{{ first.path }}", expect: { equals: ${JSON.stringify(CSV)} } }
  - read_file: { path: "{{ second.path }}", expect: { bytes_at_least: ${CSV.length} } }
`, web.env());
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const [first, second] = main.filter((s) => s.kind === 'wait_for_download');
    expect(first!.output).toMatchObject({ name: 'report.csv', path: '/home/kernel/Downloads/report.csv', size_bytes: CSV.length });
    // The same name again: on the host it replaces the first; each step keeps its own artifact.
    expect(second!.output).toMatchObject({ name: 'report.csv', path: '/home/kernel/Downloads/report.csv' });
    expect(first!.artifacts).toEqual([{ type: 'file', path: expect.stringMatching(/downloads\/report\.csv$/) }]);
    expect(second!.artifacts[0]!.path).toMatch(/downloads\/6-report\.csv$/);
    expect(await readFile(join(out, first!.artifacts[0]!.path), 'utf8')).toBe(CSV);
    expect(await readFile(join(out, second!.artifacts[0]!.path), 'utf8')).toBe(CSV);
  });

  it('fails, naming what did download, when the wanted file never comes; and on content that differs', async () => {
    const { res, main } = await runScenarioYaml(project.dir, 'no-download', `name: no-download
base_url: ${web.url()}
steps:
  - goto: /
  - click: { role: link, name: export }
  - wait_for_download: invoice.pdf
    timeout: 2s
    continue_on_error: true
  - click: { role: link, name: export }
  - wait_for_download: { expect: { contains: "Linus" } }
`, web.env());
    expect(res.code).toBe(1);
    const [missing, differs] = main.filter((s) => s.kind === 'wait_for_download');
    expect(missing!.error?.message).toMatch(/no download named "invoice\.pdf" began within 2000 ms; the downloads since the step before: "report\.csv" from http:\/\/127\.0\.0\.1:\d+\/export\.csv/);
    expect(differs!.error?.message).toContain('Linus');
  });
});
