// The scenario lines shown around a failing step in the summary and the HTML report.
import { describe, expect, test } from 'vitest';
import { codeFrame } from '../../runner/reporters/code-frame.js';
import { inlineFiles } from '../helpers/inline-files.js';

const project = await inlineFiles({ 's.yaml': 'name: s\nsteps:\n  - goto: /\n  - click: { role: button }\n    timeout: 1s\n\n' });

describe('codeFrame', () => {
  test('two lines either side, the step marked with a caret under its column, trailing blank lines left out', () => {
    expect(codeFrame(`${project.path('s.yaml')}:4:5`)).toEqual([
      '  2 | steps:',
      '  3 |   - goto: /',
      '> 4 |   - click: { role: button }',
      '    |     ^',
      '  5 |     timeout: 1s',
    ]);
  });

  test('nothing for a file that is not there or a line past its end', () => {
    expect(codeFrame(`${project.path('gone.yaml')}:1:1`)).toEqual([]);
    expect(codeFrame(`${project.path('s.yaml')}:99:1`)).toEqual([]);
    expect(codeFrame('no location')).toEqual([]);
  });
});
