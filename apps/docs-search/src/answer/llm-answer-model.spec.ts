import type { Passage } from '../corpus/passage';
import type { Retrieved } from '../search/retriever';
import {
  ANSWER_MAX_CHARS,
  ANSWER_MAX_TOKENS,
  ANSWER_SCHEMA,
  citedAnswer,
  REASON_MAX_CHARS,
  wholeSentences,
  wholeWords,
} from './llm-answer-model';

const PASSAGE: Passage = {
  source: 'docs/api-v2.md',
  ref: 'docs/api-v2.md#limits',
  title: 'API › Limits',
  body: 'The scrape timeout is 1000 to 300000 ms, default 60000. Longer waits are rejected with a 400.',
  lineStart: 1,
  lineEnd: 1,
};

describe('answer length bounds', () => {
  it('admits no reply longer than the output cap at 3 characters per token (prose runs ~4)', () => {
    const { answer, citations } = ANSWER_SCHEMA.properties;
    expect(answer.maxLength).toBe(ANSWER_MAX_CHARS);
    expect(citations.items.properties.reason.maxLength).toBe(REASON_MAX_CHARS);
    const longest = JSON.stringify(
      {
        answer: 'x'.repeat(answer.maxLength),
        citations: Array.from({ length: citations.maxItems }, () => ({
          passage: citations.items.properties.passage.maximum,
          reason: 'x'.repeat(citations.items.properties.reason.maxLength),
        })),
      },
      null,
      2,
    );
    expect(longest.length).toBeLessThanOrEqual(ANSWER_MAX_TOKENS * 3);
  });

  it('keeps an answer shorter than the bound as it is', () => {
    expect(wholeSentences('One. Two', 20)).toBe('One. Two');
    expect(wholeWords('a short reason', 20)).toBe('a short reason');
  });

  it('ends an answer the grammar cut at its bound at its last whole sentence', () => {
    const cut = 'The timeout is 60 s by default. It can be raised to 300 s. Longer waits are rej';
    expect(wholeSentences(cut, cut.length)).toBe(
      'The timeout is 60 s by default. It can be raised to 300 s.',
    );
  });

  it('ends a cut answer without an early enough sentence end, and a cut reason, at a word with "…"', () => {
    const cut = 'Set the waitFor field, in milliseconds, to the time the prices take to appear, up to the li';
    expect(wholeSentences(cut, cut.length)).toBe(
      'Set the waitFor field, in milliseconds, to the time the prices take to appear, up to the…',
    );
    expect(wholeWords('States the scrape timeout range, default and', 44)).toBe(
      'States the scrape timeout range, default…',
    );
  });

  it('returns a cut answer and reason ended at whole sentences and words', () => {
    const answer =
      `The scrape timeout is 1000 to 300000 ms, default 60000. ${'Longer waits are rejected with a 400. '.repeat(30)}`.slice(
        0,
        ANSWER_MAX_CHARS,
      );
    const reason = `States the timeout range ${'and the default '.repeat(20)}`.slice(0, REASON_MAX_CHARS);
    const retrieved: Retrieved[] = [{ passage: PASSAGE, score: 1, via: ['text'] }];
    const result = citedAnswer(
      { answer, citations: [{ passage: 1, reason }] },
      'What is the scrape timeout range?',
      retrieved,
    );
    expect(result.answer).toBe(answer.slice(0, answer.lastIndexOf('.') + 1));
    expect(result.answer.length).toBeGreaterThan(ANSWER_MAX_CHARS - 40);
    expect(result.answer.endsWith('rejected with a 400.')).toBe(true);
    expect(result.evidence).toHaveLength(1);
    expect(result.evidence[0].reason).toMatch(/ (?:the|and|default)…$/);
    expect(result.evidence[0].reason.length).toBeLessThan(REASON_MAX_CHARS + 1);
  });
});
