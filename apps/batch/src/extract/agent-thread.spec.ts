import {
  AGENT_TASK_MAX,
  continueFrom,
  threadContext,
  threadRunStatus,
  threadTask,
  THREAD_CONTEXT_TURNS,
  type EarlierTurn,
} from './agent-thread';

const turn = (n: number, state: Partial<EarlierTurn['state']> = {}): EarlierTurn => ({
  turn: n,
  prompt: `question ${n}`,
  state: { status: 'completed', data: `answer ${n}`, ...state },
});

describe('agent threads', () => {
  it('tells a follow-up the earlier turns, oldest first, with how each ended', () => {
    const context = threadContext([
      turn(1, { finalUrl: 'http://shop.test/parts' }),
      turn(2, { status: 'failed', data: undefined, error: 'The agent ran out of time' }),
      turn(3, { data: { part: 'A-1' } }),
      turn(4, { data: undefined, message: 'It is blue.' }),
    ]);
    expect(context).toContain(
      'Turn 1. Asked: question 1\nAnswered: answer 1\nEnded on: http://shop.test/parts',
    );
    expect(context).toContain('Turn 2. Asked: question 2\nAnswered: (no answer: The agent ran out of time)');
    expect(context).toContain('Answered: {"part":"A-1"}');
    expect(context).toContain('Answered: It is blue.');
    expect(context.indexOf('Turn 1.')).toBeLessThan(context.indexOf('Turn 4.'));
    expect(threadContext([])).toBe('');
  });

  it('keeps the latest turns and cuts long prompts and answers', () => {
    const many = Array.from({ length: THREAD_CONTEXT_TURNS + 3 }, (_, i) => turn(i + 1));
    const context = threadContext(many);
    expect(context).not.toContain('Turn 1.');
    expect(context).toContain(`Turn ${many.length}.`);
    const long = threadContext([turn(1, { data: 'x'.repeat(5_000) })]);
    expect(long.length).toBeLessThan(1_000);
    expect(long).toContain('…');
    const huge = threadContext(
      Array.from({ length: THREAD_CONTEXT_TURNS }, (_, i) => ({
        turn: i + 1,
        prompt: 'p'.repeat(2_000),
        state: { status: 'completed' as const, data: 'a'.repeat(2_000) },
      })),
    );
    expect(huge.length).toBeLessThan(3_300);
    expect(huge).toContain(`Turn ${THREAD_CONTEXT_TURNS}.`);
  });

  it('puts the account before the prompt, within the task limit', () => {
    expect(threadTask(undefined, 'find it')).toBe('find it');
    expect(threadTask('earlier', 'find it')).toBe('earlier\nfind it');
    const task = threadTask('c'.repeat(3_000), 'p'.repeat(AGENT_TASK_MAX));
    expect(task.length).toBe(AGENT_TASK_MAX);
    expect(task.endsWith('p')).toBe(true);
  });

  it('starts a follow-up without URLs where the last turn ended (http pages only)', () => {
    expect(
      continueFrom([turn(1, { finalUrl: 'http://a.test/' }), turn(2, { finalUrl: 'https://b.test/x' })]),
    ).toBe('https://b.test/x');
    expect(continueFrom([turn(1, { finalUrl: 'about:blank' })])).toBeUndefined();
    expect(continueFrom([])).toBeUndefined();
  });

  it('names a run of a thread by how it ended', () => {
    expect(threadRunStatus({ status: 'processing' })).toBe('processing');
    expect(threadRunStatus({ status: 'completed' })).toBe('succeeded');
    expect(threadRunStatus({ status: 'failed', stopReason: 'cancelled' })).toBe('cancelled');
    expect(threadRunStatus({ status: 'failed', stopReason: 'max_tokens' })).toBe('credit_limit_reached');
    expect(threadRunStatus({ status: 'failed', stopReason: 'max_steps' })).toBe('failed');
  });
});
