import { agentCredits, agentTimeoutMs } from './agent-jobs';
import { agentReply, extractReply } from './extract-reply';
import { extractPageCredits } from './job-kind.hooks';

const expiresAt = new Date('2030-01-01T00:00:00.000Z');
const job = (status: 'scraping' | 'completed' | 'failed' | 'cancelled', extra: { error?: string } = {}) => ({
  status,
  expiresAt,
  creditsUsed: 12,
  ...extra,
});
const page = (url: string, json: unknown, tokensUsed = 30) => ({
  ...(json !== undefined ? { json } : {}),
  metadata: { sourceURL: url },
  tokensUsed,
});

describe('extract status replies', () => {
  it('maps the job states: processing with data [], cancelled, failed with the reason', () => {
    expect(extractReply(job('scraping'), { showSources: false }, [page('u1', { a: 1 })], [])).toEqual({
      kind: 'extract',
      status: 'processing',
      data: [],
      expiresAt: expiresAt.toISOString(),
      tokensUsed: 30,
      creditsUsed: 12,
    });
    expect(extractReply(job('cancelled'), { showSources: false }, [], [])).toMatchObject({
      status: 'cancelled',
      data: [],
    });
    expect(
      extractReply(job('failed', { error: 'Insufficient credits' }), { showSources: false }, [], []),
    ).toMatchObject({ status: 'failed', error: 'Insufficient credits' });
  });

  it('completes with the merged data, sources on request and a warning for failed pages', () => {
    const r = extractReply(
      job('completed'),
      { showSources: true },
      [page('u1', { tags: ['a'] }, 31), page('u2', { tags: ['b'] }, 14)],
      [{ url: 'u3', error: 'timed out' }],
    );
    expect(r).toMatchObject({
      status: 'completed',
      data: { tags: ['a', 'b'] },
      sources: { 'tags[0]': ['u1'], 'tags[1]': ['u2'] },
      tokensUsed: 45,
    });
    expect(r.warning).toContain('u3: timed out');
    // The web search query the gateway's model wrote for the job counts with the pages' tokens.
    expect(
      extractReply(
        job('completed'),
        { showSources: false, searchTokens: 120 },
        [page('u1', { tags: ['a'] }, 31)],
        [],
      ).tokensUsed,
    ).toBe(151);
    expect(extractReply(job('failed'), { showSources: false, searchTokens: 120 }, [], []).tokensUsed).toBe(
      120,
    );
    expect(
      extractReply(job('completed'), { showSources: false }, [page('u1', { a: 1 })], []).sources,
    ).toBeUndefined();
  });

  it('fails a completed job whose pages gave no answer, naming the page errors', () => {
    const failures = [1, 2, 3, 4].map((i) => ({ url: `u${i}`, error: 'blocked' }));
    const r = extractReply(job('completed'), { showSources: false }, [], failures);
    expect(r).toMatchObject({ status: 'failed', data: [] });
    expect(r.error).toBe('No page gave an answer: u1: blocked; u2: blocked; u3: blocked; and 1 more');
    const unanswered = extractReply(
      job('completed'),
      { showSources: false },
      [{ ...page('u1', undefined), warning: 'invalid JSON' }],
      [],
    );
    expect(unanswered.error).toBe('No page gave an answer: invalid JSON');
  });

  it('never answers cancelled for an agent job and gives data, else the text answer', () => {
    expect(agentReply(job('cancelled'), undefined, undefined)).toMatchObject({
      status: 'failed',
      stopReason: 'cancelled',
    });
    expect(agentReply(job('scraping'), undefined, undefined).status).toBe('processing');
    const record = { output: 'It costs 25', steps: [{ action: 'finish' }], tokensUsed: 40, browserMs: 900 };
    expect(agentReply(job('completed'), record, undefined)).toMatchObject({
      status: 'completed',
      data: 'It costs 25',
      tokensUsed: 40,
    });
    expect(agentReply(job('completed'), { ...record, data: { price: 25 } }, undefined).data).toEqual({
      price: 25,
    });
    expect(agentReply(job('completed'), undefined, { url: 'x', error: 'step limit' })).toMatchObject({
      status: 'failed',
      error: 'step limit',
    });
  });

  it('tells the tokens and steps of an agent run that ended without an answer, or was cancelled', () => {
    const spent = {
      output: 'The agent reached its step limit (2)',
      steps: [{ action: 'click', target: 'e3', outcome: 'ok' }],
      tokensUsed: 900,
      browserMs: 4000,
      stopReason: 'max_steps',
    };
    // The job completed (its one task ended) but the task failed: failed, with the run's record.
    expect(agentReply(job('completed'), spent, { url: 'x', error: 'step limit' })).toMatchObject({
      status: 'failed',
      error: 'step limit',
      tokensUsed: 900,
      steps: spent.steps,
      stopReason: 'max_steps',
    });
    expect(
      agentReply(job('cancelled'), { ...spent, stopReason: 'cancelled' }, { url: 'x', error: 'cancelled' }),
    ).toMatchObject({ status: 'failed', tokensUsed: 900, steps: spent.steps, stopReason: 'cancelled' });
  });
});

describe('extract and agent credits', () => {
  it('bills an extract page one credit per 15 tokens, at least one', () => {
    expect(extractPageCredits({ creditsUsed: 5, tokensUsed: 0 })).toBe(1);
    expect(extractPageCredits({ creditsUsed: 5 })).toBe(1);
    expect(extractPageCredits({ creditsUsed: 5, tokensUsed: 15 })).toBe(1);
    expect(extractPageCredits({ creditsUsed: 5, tokensUsed: 16 })).toBe(2);
    expect(extractPageCredits({ creditsUsed: 5, tokensUsed: 1500 })).toBe(100);
  });

  it('bills an agent run by tokens and browser time, capped by maxCredits', () => {
    expect(agentCredits({ tokens: 150, browserMs: 60_000 }, 1000)).toBe(17);
    expect(agentCredits({ tokens: 0, browserMs: 1 }, 1000)).toBe(1);
    expect(agentCredits({ tokens: 150_000, browserMs: 600_000 }, 50)).toBe(50);
    // maxCredits pays for this much browser time (7 a minute), within the service's limit.
    expect(agentTimeoutMs(7, 300_000)).toBe(60_000);
    expect(agentTimeoutMs(1, 300_000)).toBe(10_000);
    expect(agentTimeoutMs(2500, 300_000)).toBe(300_000);
  });
});
