// `bcs run --debug`: the run stops before each step of a scenario and waits for a line on stdin, so the
// page (headed, on this display) can be looked at, and Playwright's inspector-free equivalent of
// stepping through a test is a key press: Enter runs the step, `c` runs the rest of the scenario, `q`
// stops the run (as Ctrl-C would: teardown and reports still happen).
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

export interface StepPause {
  /** Resolves when the user lets the step run; `stop` when they asked the run to stop. */
  before(scenario: string, step: string, where: string): Promise<'run' | 'stop'>;
  close(): void;
}

export function stepPause(input: Readable, output: Writable): StepPause {
  let lines: Interface | undefined;
  const waiting: ((line: string) => void)[] = [];
  const queued: string[] = [];
  let ended = false;
  const open = () => {
    if (lines) return;
    lines = createInterface({ input, terminal: false });
    lines.on('line', (line) => {
      const next = waiting.shift();
      if (next) next(line);
      else queued.push(line);
    });
    // No more input (a closed pipe): nothing more to wait for; the rest runs.
    lines.on('close', () => {
      ended = true;
      for (const next of waiting.splice(0)) next('c');
    });
  };
  /** Scenarios the user let run to their end with `c`. */
  const running = new Set<string>();
  return {
    async before(scenario, step, where) {
      if (running.has(scenario) || ended) return 'run';
      open();
      output.write(`\n⏸  ${scenario}: next is "${step}" (${where})\n   Enter: run it   c: run the rest of this scenario   q: stop the run\n> `);
      const line = queued.shift() ?? (await new Promise<string>((resolve) => waiting.push(resolve)));
      const answer = line.trim().toLowerCase();
      if (answer === 'q') return 'stop';
      if (answer === 'c') running.add(scenario);
      return 'run';
    },
    close() {
      lines?.close();
    },
  };
}
