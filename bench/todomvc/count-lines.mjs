// Lines of each suite that are not blank or comments: `node bench/todomvc/count-lines.mjs`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const files = (dir, test) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f), test) : test.test(f) ? [join(dir, f)] : []));
const count = (file, comment) => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() && !comment.test(l.trim())).length;
const table = (title, list, comment) => {
  let total = 0;
  console.log(title);
  for (const f of list) {
    const n = count(f, comment);
    total += n;
    console.log(`  ${String(n).padStart(4)}  ${f.slice(here.length)}`);
  }
  console.log(`  ${String(total).padStart(4)}  all\n`);
  return total;
};
const yaml = table('YAML (bcs)', files(join(here, 'scenarios'), /\.ya?ml$/), /^#/);
const pw = table('Playwright Test', files(join(here, 'playwright'), /\.ts$/), /^\/\//);
console.log(`YAML / Playwright Test: ${(yaml / pw).toFixed(2)}`);
