// One scenario with every kind of block and continued failure, for the reporter tests: each report must
// show the same nesting, loop passes, ignored and soft failures, and retried-away attempts.
export function blocksScenario(name: string, opts: { softName?: string } = {}): string {
  return `name: ${name}
steps:
  - goto: "data:text/html,<h1>Hi</h1>"
  - repeat:
      times: 2
      as: round
      steps:
        - name: "round {{ round }}"
          expect: { text: Hi }
  - name: maybe there
    expect: { text: Banner, timeout: 200ms }
    continue_on_error: true
${opts.softName ? `  - name: ${opts.softName}\n    expect_soft: { text: Nope, timeout: 200ms }` : '  - expect_soft: { text: Nope, timeout: 200ms }'}
  - retry:
      attempts: 2
      steps:
        - name: count the tries
          execute: { code: "return await page.evaluate(() => window.__n = (window.__n || 0) + 1)", expect: { result: 2 } }
`;
}
