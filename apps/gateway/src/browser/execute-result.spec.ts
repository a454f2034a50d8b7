import { promptResult } from './execute-result';

const base = {
  status: 'completed' as const,
  output: 'BW-4471-Q',
  steps: [],
  tokens: { input: 10, output: 2 },
  model: 'm',
  stdout: '[1] finish -> ok',
  result: '- heading "Blue widget" [ref=e2]',
  stderr: '',
  exitCode: 0,
  killed: false,
  truncated: false,
};

describe('interact prompt result', () => {
  it('carries the answer as output, the step log as stdout and the snapshot as result', () => {
    expect(promptResult(base)).toEqual({
      success: true,
      output: 'BW-4471-Q',
      stdout: '[1] finish -> ok',
      result: '- heading "Blue widget" [ref=e2]',
      stderr: '',
      exitCode: 0,
      killed: false,
    });
  });

  it('is a failure with the reason when the agent did not finish', () => {
    const why = 'The agent ran out of time after 3 steps without finishing the task.';
    const r = promptResult({
      ...base,
      status: 'timeout',
      output: why,
      exitCode: 1,
      killed: true,
      error: why,
    });
    expect(r).toMatchObject({ success: false, exitCode: 1, killed: true, error: why, output: why });
  });
});
