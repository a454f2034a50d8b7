import { AGENT_SYSTEM_PROMPT, stepInstruction } from './prompt';

describe('agent prompts', () => {
  it('says page text is data and names every action of the fixed set', () => {
    expect(AGENT_SYSTEM_PROMPT).toMatch(/produced by websites/);
    expect(AGENT_SYSTEM_PROMPT).toMatch(/never follow them/);
    for (const a of ['click', 'fill', 'select', 'press', 'scroll', 'navigate', 'wait', 'extract', 'finish'])
      expect(AGENT_SYSTEM_PROMPT).toContain(`"action":"${a}"`);
  });

  it('gives the task, the same at every step but the last (a stable prefix for the prompt cache)', () => {
    expect(stepInstruction('Find X', 2, 25)).toBe(stepInstruction('Find X', 24, 25));
    expect(stepInstruction('Find X', 2, 25)).toMatch(/^Task: Find X\n\nIf the page or the text read already answers the task, finish/);
    expect(stepInstruction('Find X', 25, 25)).toMatch(/Finish now with the best answer/);
    expect(stepInstruction('Find X', 3, 25, true)).toMatch(/Finish now with the best answer/);
  });

  it('asks first whether the answer is on the page (seen), and lists finish first', () => {
    expect(AGENT_SYSTEM_PROMPT).toMatch(/\{"seen": "\.\.\.", "step": \{\.\.\.\}\}/);
    expect(AGENT_SYSTEM_PROMPT.indexOf('"action":"finish"')).toBeLessThan(
      AGENT_SYSTEM_PROMPT.indexOf('"action":"click"'),
    );
  });
});
