// The quickstart (../quickstart.yaml) as a TypeScript scenario: the same steps, compiled to the same plan,
// plus a function step that drives the page with Playwright directly.
//   npx bcs run scenarios/examples/quickstart.scenario.ts
//   npx bcs plan scenarios/examples/quickstart.scenario.ts
import { scenario } from 'browser-scenarios';

export default scenario('quickstart in TypeScript')
  .description('Greets a visitor through a form, reads the greeting with Playwright, then visits the about page.')
  .tags('smoke', 'typescript')
  .serve('../site') // relative to this file; its URL is {{ serve.url }}
  .vars({ visitor: 'Ada' })
  .browser({ headless: true, viewport: { width: 1280, height: 800 } })
  .goto('{{ serve.url }}/index.html')
  .expect({ title: 'Quickstart' })
  .fill({ label: 'Your name' }, '{{ visitor }}')
  .click({ role: 'button', name: 'Greet' })
  .expect({ text: 'Hello, {{ visitor }}!' })
  .fill({ label: 'Your name', value: 'Grace' }, { name: 'greet again with the keyboard' })
  .press({ key: 'Enter', label: 'Your name' })
  .expect({ text: 'Hello, Grace!', timeout: '5s' })
  // Arbitrary code with the live page: what it returns is the step's output and, saved, {{ greeting }}.
  .fn('read the greeting with Playwright', async ({ page }) => {
    const greeting = await page.getByRole('status').textContent();
    if (!greeting?.startsWith('Hello, ')) throw new Error(`expected a greeting, found '${greeting}'`);
    return greeting;
  }, { save: 'greeting' })
  .expect({ text: '{{ greeting }}' })
  .screenshot('greeted')
  .click('#about')
  .expect({ url: { contains: '/about.html' }, visible: { role: 'heading', name: 'About this site' } })
  .sleep('100ms');
