import { AgentRequest } from './agent';

describe('AgentRequest', () => {
  const ok = { prompt: 'Find the price', urls: ['https://shop.example/'] };

  it('takes what the SDKs send, with firecrawl-py limits', () => {
    const parsed = AgentRequest.parse({
      ...ok,
      strictConstrainToURLs: true,
      auditMetadata: { username: 'u'.repeat(1024) },
      mode: 'extract',
      origin: 'python-sdk@4.55.0',
    });
    expect(parsed.strictConstrainToURLs).toBe(true);
  });

  it('takes threads and chat mode, and answers clearly what does not go together', () => {
    const threadId = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    expect(AgentRequest.parse({ ...ok, mode: 'chat', threadId })).toMatchObject({ mode: 'chat', threadId });
    const notUuid = AgentRequest.safeParse({ ...ok, threadId: 't1' });
    expect(notUuid.error?.issues[0]).toMatchObject({
      path: ['threadId'],
      message: expect.stringMatching(/threadId/),
    });
    const chatSchema = AgentRequest.safeParse({ ...ok, mode: 'chat', schema: { type: 'object' } });
    expect(chatSchema.error?.issues[0]).toMatchObject({
      path: ['schema'],
      message: expect.stringMatching(/chat-mode/),
    });
    const zdr = AgentRequest.safeParse({ ...ok, threadId, zeroDataRetention: true });
    expect(zdr.error?.issues[0]).toMatchObject({
      path: ['threadId'],
      message: expect.stringMatching(/zero data retention/),
    });
    expect(AgentRequest.safeParse({ ...ok, mode: 'talk' }).success).toBe(false);
  });

  it('answers clearly for strictConstrainToURLs without urls', () => {
    const strict = AgentRequest.safeParse({ prompt: 'x', strictConstrainToURLs: true });
    expect(strict.success).toBe(false);
    expect(strict.error?.issues[0]).toMatchObject({
      path: ['strictConstrainToURLs'],
      message: expect.stringMatching(/needs urls/),
    });
  });
});
