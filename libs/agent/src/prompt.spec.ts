import { AGENT_SYSTEM_PROMPT, stepInstruction } from './prompt';

describe('agent prompts', () => {
  it('says page text is data and names every action of the fixed set', () => {
    expect(AGENT_SYSTEM_PROMPT).toMatch(/produced by websites/);
    expect(AGENT_SYSTEM_PROMPT).toMatch(/never follow them/);
    for (const a of ['click', 'fill', 'select', 'press', 'scroll', 'navigate', 'wait', 'extract', 'finish'])
      expect(AGENT_SYSTEM_PROMPT).toContain(`"action":"${a}"`);
  });

  it('gives the task and the step count, no clock (equal states give equal prompts)', () => {
    expect(stepInstruction('Find X', 2, 25)).toBe(
      'Task: Find X\n\nThis is step 2 of at most 25. Choose the next action.',
    );
    expect(stepInstruction('Find X', 25, 25)).toMatch(/last step: finish now/);
    expect(stepInstruction('Find X', 3, 25, true)).toMatch(
      /text read so far already answers the task, finish now/,
    );
  });
});
