// Reads a service's GET /metrics: the Prometheus text format parsed here (prom-client writes it but has
// no parser), one scrape at a time, and a poll for expected values (never a sleep).
import { expect } from 'vitest';
import { eventually, type TestService } from './service.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The sample lines of the text exposition format 0.0.4: `name{a="x",b="y"} value`, comments skipped. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

export type Scrape = (name: string, labels?: Record<string, string>) => number | undefined;

/** One scrape: the value of each series asked for, undefined for a series that is not there. */
export async function scrape(service: TestService): Promise<Scrape> {
  const res = await service.call('GET', '/metrics');
  expect(res.status).toBe(200);
  const samples = parseExposition(res.body as string);
  return (name, labels = {}) => {
    const wanted = Object.entries(labels);
    const found = samples.filter((s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v));
    expect(found.length, `${name} ${JSON.stringify(labels)} appears at most once`).toBeLessThanOrEqual(1);
    return found[0]?.value;
  };
}

/** Polls until every series has exactly the value given (undefined: absent). */
export function metricsShow(service: TestService, expected: [name: string, labels: Record<string, string>, value: number | undefined][]): Promise<Scrape> {
  return eventually(async () => {
    const m = await scrape(service);
    return expected.every(([name, labels, value]) => m(name, labels) === value) ? m : undefined;
  }, 30_000);
}
