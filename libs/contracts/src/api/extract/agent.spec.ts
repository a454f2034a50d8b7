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

  it('answers clearly for chat mode and for strictConstrainToURLs without urls', () => {
    const chat = AgentRequest.safeParse({ ...ok, mode: 'chat' });
    expect(chat.success).toBe(false);
    expect(chat.error?.issues[0].message).toMatch(/chat mode .* not available/);
    const strict = AgentRequest.safeParse({ prompt: 'x', strictConstrainToURLs: true });
    expect(strict.success).toBe(false);
    expect(strict.error?.issues[0]).toMatchObject({
      path: ['strictConstrainToURLs'],
      message: expect.stringMatching(/needs urls/),
    });
  });
});
