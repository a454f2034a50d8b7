import type { Passage } from '../corpus/passage';
import type { Retrieved } from '../search/retriever';
import {
  answerSentences,
  attributeAnswer,
  attributedSentences,
  coverage,
  namedRoutes,
  operationRoute,
  restatesQuestion,
  sameRoute,
  saysNotStated,
} from './citation-check';
import { terms } from './extractive';
import { citedAnswer } from './llm-answer-model';

function passage(ref: string, title: string, body: string): Passage {
  return { source: ref.split('#')[0], ref, title, body, lineStart: 1, lineEnd: 1 };
}

/** Three passages as retrieval returns them for a credit question (shortened from docs/api-v2.md). */
const LIMITS = passage(
  'docs/api-v2.md#limits',
  'API › Limits',
  [
    '| Scrape timeout | 1000 to 300000 ms, default 60000 |',
    '| Interact timeout | 1 to 300 s, default 30 |',
    '- Interact session: 2 credits per browser minute, prorated by the second, billed when the session is stopped.',
    '- Proxy `enhanced`: up to 5 credits per request. With `auto`, a retry on enhanced that succeeds is billed 5 credits.',
  ].join('\n'),
);
const INTERACT = passage(
  'docs/api-v2.md#interact',
  'API › Endpoints › Interact',
  'POST /v2/scrape/{jobId}/interact runs code or a prompt in a browser session bound to a scraped page. The session stays open until it is stopped or times out.',
);
const BROWSER = passage(
  'openapi#/paths/~1v2~1browser/post',
  'POST /v2/browser',
  'Creates a browser session. ttl: seconds the session lives. activityTtl: seconds of inactivity before it is closed.',
);
const retrieved: Retrieved[] = [LIMITS, INTERACT, BROWSER].map((p, i) => ({
  passage: p,
  score: 1 / (i + 1),
  via: ['text'],
}));
const QUESTION = 'How much does an interact browser session cost per minute?';

describe('citation post-check', () => {
  it('keeps the passage the answer is taken from and drops the ones that only mention the topic', () => {
    // The shape a 1.5B model writes when shown these passages: it cites every one of them.
    const result = citedAnswer(
      {
        answer:
          'An interact session costs 2 credits per browser minute, prorated by the second, and is billed when the session is stopped [1].',
        citations: [
          { passage: 1, reason: 'gives the per-minute cost' },
          { passage: 2, reason: 'describes interact sessions' },
          { passage: 3, reason: 'describes browser sessions' },
        ],
      },
      QUESTION,
      retrieved,
    );
    expect(result.evidence).toEqual([
      { pathOrUrl: 'docs/api-v2.md#limits', reason: 'gives the per-minute cost' },
    ]);
    expect(result.unsupported.map((e) => e.pathOrUrl)).toEqual([
      'docs/api-v2.md#interact',
      'openapi#/paths/~1v2~1browser/post',
    ]);
    expect(result.dropped).toBe(0);
  });

  it('keeps two citations when each supports a different sentence of the answer', () => {
    const result = citedAnswer(
      {
        answer:
          'POST /v2/scrape/{jobId}/interact runs code or a prompt in a browser session bound to the scraped page. It costs 2 credits per browser minute, prorated by the second.',
        citations: [
          { passage: 2, reason: 'what interact does' },
          { passage: 1, reason: 'its cost' },
        ],
      },
      'What does interact do and what does it cost?',
      retrieved,
    );
    // The model's order is kept.
    expect(result.evidence.map((e) => e.pathOrUrl)).toEqual([
      'docs/api-v2.md#interact',
      'docs/api-v2.md#limits',
    ]);
    expect(result.unsupported).toEqual([]);
  });

  it('cites the passage the answer was taken from when the model put another number on it', () => {
    // Seen with the 1.5B model: "5 credits per request" taken from the limits passage, cited as another one.
    const result = citedAnswer(
      {
        answer: 'The enhanced proxy costs up to 5 credits per request.',
        citations: [{ passage: 3, reason: 'describes the request' }],
      },
      'How many credits does the enhanced proxy cost?',
      retrieved,
    );
    expect(result.evidence).toEqual([
      {
        pathOrUrl: 'docs/api-v2.md#limits',
        reason: 'States what the answer says: "Proxy `enhanced`: up to 5 credits per request."',
      },
    ]);
    expect(result.unsupported.map((e) => e.pathOrUrl)).toEqual(['openapi#/paths/~1v2~1browser/post']);
    expect(result.reattributed).toBe(1);
  });

  it('keeps the best-supported citation when no sentence is clearly supported, and drops citations of passages not shown', () => {
    const result = citedAnswer(
      {
        answer: 'That depends on several factors.',
        citations: [
          { passage: 7, reason: 'not shown' },
          { passage: 3, reason: 'closest section' },
          { passage: 3, reason: 'repeat' },
        ],
      },
      QUESTION,
      retrieved,
    );
    expect(result.evidence).toEqual([
      { pathOrUrl: 'openapi#/paths/~1v2~1browser/post', reason: 'closest section' },
    ]);
    expect(result.dropped).toBe(1);
  });

  it('gives no evidence for an answer saying that the documentation does not state it, whatever the model cited', () => {
    for (const answer of [
      'The documentation does not cover this specific question.',
      'The documentation does not specify the cost per minute.',
      "These passages don't mention it.",
    ]) {
      const result = citedAnswer(
        { answer, citations: [{ passage: 1, reason: 'closest section' }] },
        QUESTION,
        retrieved,
      );
      expect(result).toMatchObject({ answer, evidence: [], notStated: true });
    }
    // An answer that states something besides is attributed as usual.
    const stated = citedAnswer(
      {
        answer:
          'The documentation does not state a monthly price. An interact session costs 2 credits per browser minute, prorated by the second.',
        citations: [],
      },
      QUESTION,
      retrieved,
    );
    expect(stated.notStated).toBeUndefined();
    expect(stated.evidence.map((e) => e.pathOrUrl)).toEqual(['docs/api-v2.md#limits']);
    expect(saysNotStated('Not stated.')).toBe(false);
    expect(saysNotStated('The docs say it is 2 credits.')).toBe(false);
  });

  it('attributes each sentence to the passage covering most of its words, question words counting half', () => {
    const q = new Set(['inter', 'sessi', 'cost']);
    const words = (p: Passage) =>
      new Set(
        `${p.title} ${p.body}`
          .toLowerCase()
          .match(/[a-z0-9]+/g)!
          .map((w) => w.slice(0, 5)),
      );
    const s = 'An interact session costs 2 credits per browser minute.';
    expect(coverage(s, words(LIMITS), q)).toBeGreaterThan(coverage(s, words(INTERACT), q));
    expect(
      answerSentences('Two credits a minute [1]. Billed on stop [1, 2].\n- prorated by the second'),
    ).toEqual(['Two credits a minute.', 'Billed on stop.', '- prorated by the second']);
    expect(attributeAnswer(s, QUESTION, [INTERACT, LIMITS], new Set([0])).used).toEqual([1]);
    // A one-word answer is attributed together with the question; when no passage covers even
    // that, the model's own citation stays.
    expect(attributeAnswer('No.', QUESTION, [INTERACT, LIMITS], new Set([0])).used).toEqual([1]);
    expect(attributeAnswer('No.', 'Is there a GraphQL API?', [INTERACT, LIMITS], new Set([0])).used).toEqual([
      0,
    ]);
  });
});

/** Two passages that both list 429 and 410 (shortened from docs/api-v2.md and the README). */
const ERRORS = passage(
  'docs/api-v2.md#errors',
  'API › Errors',
  [
    'Status classes: 2xx success, 4xx client error. When plan rate limits or concurrency limits are exceeded the response is 429.',
    '| 409 | Replay context unavailable; the scrape must be rerun |',
    '| 410 | Browser session already destroyed |',
  ].join('\n'),
);
const LIMITS_429 = passage(
  'docs/api-v2.md#limits',
  'API › Limits',
  [
    '| Scrape timeout | 1000 to 300000 ms, default 60000 |',
    '| Concurrent browser sessions | a maximum applies; exceeding gives 429 |',
    '| Activity list | last 24 hours; `limit` 1 to 100, default 50 |',
  ].join('\n'),
);
const WHAT_WORKS = passage(
  'README.md#what-works',
  'WDS › What works',
  [
    '- Browser sessions: `POST/GET /v2/browser` (ttl 30 to 3600 s; `?state=active|destroyed`), and interact.',
    '- The first call rebuilds the page state; later calls reuse the session; 410 after it ended.',
    '- A session has its own Chromium, reports its status and has been tested under load.',
  ].join('\n'),
);

describe('citation post-check: short answers and close calls', () => {
  it('attributes a bare value together with the question it answers', () => {
    // Seen with the 1.5B model: "429" cited as the limits passage, which gives 429 only for browser sessions.
    const q = 'What status code do I get when I exceed the rate limit?';
    expect(attributedSentences('429 [1]', q)).toEqual([`${q} 429`]);
    expect(attributeAnswer('429', q, [LIMITS_429, ERRORS], new Set([0])).used).toEqual([1]);
  });

  it('on equal coverage, prefers the passage with one sentence (table row) that states the answer', () => {
    // Both passages contain every word of the answer; only the errors table states it in one row.
    const s = 'The status 410 means the browser session was destroyed.';
    expect(coverage(s, new Set(terms(`${WHAT_WORKS.title} ${WHAT_WORKS.body}`)), new Set())).toBe(1);
    expect(coverage(s, new Set(terms(`${ERRORS.title} ${ERRORS.body}`)), new Set())).toBe(1);
    expect(attributeAnswer(s, 'What is 410?', [WHAT_WORKS, ERRORS], new Set([0])).used).toEqual([1]);
  });

  it('matches numbers whole: a limit of 100000 is not supported by a passage saying 10000', () => {
    expect(terms('limit 1 to 100000, default 5000; retries retried')).toEqual([
      'limit',
      '100000',
      'defau',
      '5000',
      'retri',
      'retri',
    ]);
    const map = {
      title: 'API › POST /v2/map — List the URLs of a site',
      body: 'Body field limit: integer, 1 to 100000, default 5000',
    };
    const extract = {
      title: 'API › POST /v2/extract — Start an extract job › prompt',
      body: 'Body field prompt: string, 1 to 10000 characters. Body field limit: integer, default 50',
    };
    const answer = 'Map returns up to 5000 links when no limit is set, and the biggest limit is 100000.';
    expect(
      attributeAnswer(answer, 'How many links does map return?', [map, extract], new Set([0])).used,
    ).toEqual([0]);
    expect(coverage(answer, new Set(terms(extract.body)), new Set())).toBeLessThan(0.5);
  });

  it("does not count the platform's own name as support", () => {
    // Every section of the API spec has "Web Data Service API" in its heading trail.
    const operation = {
      title: "API › GET /v2/crawl/active — List the team's running crawls",
      body: "GET /v2/crawl/active: List the team's running crawls.",
    };
    const item = {
      title: 'Web Data Service API, version 2 › Resources and their fields › Active crawl list item',
      body: 'Fields: id, teamId, url, options.',
    };
    const answer =
      'You can list running crawls with a GET request to /v2/crawl/active of the Web Data Service API.';
    expect(
      attributeAnswer(answer, 'How do I list running crawls?', [operation, item], new Set([0])).used,
    ).toEqual([0]);
  });

  it('does not take an answer that names its route from the passage of a twin operation', () => {
    const publicOp = {
      title:
        'API › GET /v2/team/token-usage/historical — Token usage per UTC calendar month, optionally per API key',
      body: 'GET /v2/team/token-usage/historical: Token usage per UTC calendar month, optionally per API key.',
    };
    const adminOp = {
      title: "API › GET /admin/v1/teams/{teamId}/token-usage/historical — A team's LLM tokens per UTC month",
      body: "GET /admin/v1/teams/{teamId}/token-usage/historical: A team's LLM tokens per UTC month, split per API key on request.",
    };
    const question = 'How do I read historical token usage per API key?';
    const detail = 'It splits the LLM tokens per API key on request.';
    // Alone, the detail is the admin twin's words.
    expect(attributeAnswer(detail, question, [publicOp, adminOp], new Set([0, 1])).used).toEqual([1]);
    // An answer that says it is about the public route is not taken from the admin operation.
    const answer = `Use GET /v2/team/token-usage/historical. ${detail}`;
    expect(attributeAnswer(answer, question, [publicOp, adminOp], new Set([0, 1])).used).toEqual([0]);
    // One naming the admin route (with a team's id in it) is.
    const admin = `Operators use GET /admin/v1/teams/t-42/token-usage/historical. ${detail}`;
    expect(attributeAnswer(admin, question, [publicOp, adminOp], new Set([0, 1])).used).toEqual([1]);
  });

  it('reads the routes an answer names and the route of an operation passage', () => {
    expect(
      namedRoutes('Send `DELETE /v2/crawl/{id}`; then GET /v2/crawl/abc-1. See /admin/v1/teams.'),
    ).toEqual([
      { method: 'DELETE', path: '/v2/crawl/{id}' },
      { method: 'GET', path: '/v2/crawl/abc-1' },
      { method: undefined, path: '/admin/v1/teams' },
    ]);
    expect(operationRoute('API › GET /v2/crawl/{id} — Crawl status')).toEqual({
      method: 'GET',
      path: '/v2/crawl/{id}',
    });
    expect(operationRoute('Web Data Service API, version 2 › Endpoints')).toBeUndefined();
    expect(sameRoute({ path: '/v2/crawl/abc-1' }, { method: 'GET', path: '/v2/crawl/{id}' })).toBe(true);
    expect(
      sameRoute({ method: 'DELETE', path: '/v2/crawl/x' }, { method: 'GET', path: '/v2/crawl/{id}' }),
    ).toBe(false);
    expect(sameRoute({ path: '/v2/crawl/active' }, { method: 'GET', path: '/v2/crawl' })).toBe(false);
  });

  it('does not count auxiliaries such as "has been" as support', () => {
    const s = '410 Gone means that the browser session has been destroyed.';
    const q = new Set(terms('What does 410 Gone mean for a browser session?'));
    expect(coverage(s, new Set(terms(WHAT_WORKS.body)), q)).toBeLessThanOrEqual(
      coverage(s, new Set(terms(ERRORS.body)), q),
    );
    expect(
      attributeAnswer(s, 'What does 410 Gone mean for a browser session?', [WHAT_WORKS, ERRORS], new Set([0]))
        .used,
    ).toEqual([1]);
  });
});

describe('citation post-check: restated questions and embedding similarity', () => {
  const INTRO = passage(
    'README.md#start',
    'WDS',
    'Install the platform on Kubernetes with Helm, or follow the steps of `npm start` on one machine.',
  );
  const INSTALL = passage(
    'charts/README.md#install',
    'Helm charts › Install on a cluster, step by step',
    [
      '1. Create the secret `wds-credentials` with the database password and the bootstrap API key.',
      '2. Start from `deploy/values-example.yaml` and label the namespace.',
    ].join('\n'),
  );
  const q = 'How do I install the platform on Kubernetes with Helm?';

  it('does not attribute a sentence that only restates the question while others state something', () => {
    const answer =
      'To install the platform on Kubernetes with Helm, follow these steps: Create the secret wds-credentials with the database password. Start from deploy/values-example.yaml.';
    const qw = new Set(terms(q));
    expect(restatesQuestion('To install the platform on Kubernetes with Helm, follow these steps:', qw)).toBe(
      true,
    );
    expect(restatesQuestion('Create the secret wds-credentials with the database password.', qw)).toBe(false);
    // Words alone would give the restatement to the intro, which shares the question's words.
    expect(attributeAnswer(answer, q, [INTRO, INSTALL], new Set([0, 1])).used).toEqual([1]);
    // An answer that is nothing but a restatement is still attributed.
    expect(
      attributeAnswer('Install the platform on Kubernetes with Helm.', q, [INTRO, INSTALL], new Set([0]))
        .used,
    ).toEqual([0]);
  });

  it("lets embedding similarity choose between passages that share the sentence's words", () => {
    const s = 'The status 410 means the browser session was destroyed.';
    const q410 = 'What is 410?';
    // Equal word coverage; by words the tie goes to the errors table's one row (see above) ...
    expect(attributeAnswer(s, q410, [WHAT_WORKS, ERRORS], new Set([0])).used).toEqual([1]);
    // ... unless the sentence's closest sentence in the other passage is clearly nearer in meaning.
    const sim = new Map([[s, [0.9, 0.4]]]);
    expect(attributeAnswer(s, q410, [WHAT_WORKS, ERRORS], new Set([0]), sim).used).toEqual([0]);
    // Similarity only chooses among passages that cover enough of the words: the limits table
    // (browser, session: 2 of 5 words) is never chosen, however close in meaning.
    const far = new Map([[s, [0, 1]]]);
    expect(attributeAnswer(s, q410, [WHAT_WORKS, LIMITS], new Set([1]), far).used).toEqual([0]);
  });
});
