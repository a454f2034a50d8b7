import { WebhookEvent, WebhookOption, webhookEventKind, webhookEventType, webhookWants } from '../../index';

describe('WebhookOption', () => {
  it('normalises a bare URL string to {url}', () => {
    expect(WebhookOption.parse('https://hooks.example.com/x')).toEqual({
      url: 'https://hooks.example.com/x',
    });
  });

  it('keeps the object form with headers, metadata and events', () => {
    const config = WebhookOption.parse({
      url: 'https://hooks.example.com/x',
      headers: { 'X-Token': 't' },
      metadata: { run: 7 },
      events: ['completed', 'failed'],
    });
    expect(config.events).toEqual(['completed', 'failed']);
    expect(webhookWants(config, 'page')).toBe(false);
    expect(webhookWants(config, 'failed')).toBe(true);
    expect(webhookWants({ url: 'https://h.example.com' }, 'page')).toBe(true);
  });

  it('rejects unknown events, unknown keys and non-http URLs', () => {
    expect(WebhookOption.safeParse({ url: 'https://h.example.com', events: ['done'] }).success).toBe(false);
    expect(WebhookOption.safeParse({ url: 'https://h.example.com', secret: 'x' }).success).toBe(false);
    expect(WebhookOption.safeParse('file:///etc/passwd').success).toBe(false);
  });
});

describe('WebhookEvent', () => {
  const base = {
    success: true,
    id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    webhookId: '0f8fad5b-d9cb-469f-a165-70867728950e',
    data: [],
  };

  it('accepts all eight event types', () => {
    for (const type of [
      'crawl.started',
      'crawl.page',
      'crawl.completed',
      'crawl.failed',
      'batch_scrape.started',
      'batch_scrape.page',
      'batch_scrape.completed',
      'batch_scrape.failed',
    ]) {
      expect(WebhookEvent.safeParse({ ...base, type }).success).toBe(true);
    }
    expect(WebhookEvent.safeParse({ ...base, type: 'crawl.finished' }).success).toBe(false);
  });

  it('maps between event types and kinds', () => {
    expect(webhookEventKind('batch_scrape.page')).toBe('page');
    expect(webhookEventType('batch', 'started')).toBe('batch_scrape.started');
    expect(webhookEventType('crawl', 'failed')).toBe('crawl.failed');
  });
});
