// Several scenarios from one file: the default export may be a list, each entry its own scenario with its
// own plan and results. Plain TypeScript builds them: here, one per visitor, sharing a reusable part.
//   npx bcs run scenarios/examples/greetings.scenario.ts
import { scenario, type ScenarioBuilder } from 'browser-scenarios';

const visitors = ['Ada', 'Grace', 'Katherine'];

/** Serve the site and open its form: any builder can `.use(openGreeter)`. */
const openGreeter = (s: ScenarioBuilder) =>
  s.serve('../site').browser({ headless: true }).goto('{{ serve.url }}/index.html');

export default visitors.map((name) =>
  scenario(`greet ${name}`)
    .tags('typescript')
    .use(openGreeter)
    .click({ label: 'Your name' })
    // OS-level input as one batch: type the name, press Return to submit the form.
    .computer((c) => c.type(name).key('Return'), { name: `type ${name} at OS level` })
    .expect({ text: `Hello, ${name}!` }),
);
