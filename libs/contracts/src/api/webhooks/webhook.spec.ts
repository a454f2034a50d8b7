import {
  AgentWebhookOption,
  ExtractWebhookOption,
  JobEvent,
  WebhookEvent,
  WebhookOption,
  webhookEventKind,
  webhookEventType,
  webhookJobKind,
  webhookWants,
} from '../../index';

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

describe('extract and agent webhook options', () => {
  const url = 'https://hooks.example.com/x';

  it('take the events of their jobs and refuse the others with the reason', () => {
    expect(ExtractWebhookOption.parse(url)).toEqual({ url });
    expect(ExtractWebhookOption.parse({ url, events: ['completed'] }).events).toEqual(['completed']);
    const page = ExtractWebhookOption.safeParse({ url, events: ['page'] });
    expect(page.success).toBe(false);
    expect(JSON.stringify(page.error?.issues)).toContain('no page events');
    expect(AgentWebhookOption.parse({ url, events: ['cancelled', 'failed'] }).events).toEqual([
      'cancelled',
      'failed',
    ]);
    expect(AgentWebhookOption.parse({ url, events: ['action'] }).events).toEqual(['action']);
    const agentPage = AgentWebhookOption.safeParse({ url, events: ['page'] });
    expect(agentPage.success).toBe(false);
    expect(JSON.stringify(agentPage.error?.issues)).toContain(
      'started, action, completed, failed and cancelled',
    );
    // Only agent jobs have steps.
    expect(WebhookOption.safeParse({ url, events: ['action'] }).success).toBe(false);
    expect(ExtractWebhookOption.safeParse({ url, events: ['action'] }).success).toBe(false);
    // A crawl or batch never sends `cancelled`, so its webhook cannot ask for it.
    expect(WebhookOption.safeParse({ url, events: ['cancelled'] }).success).toBe(false);
    expect(ExtractWebhookOption.safeParse({ url, events: ['cancelled'] }).success).toBe(false);
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

  it('accepts the extract and agent event types, with any answer in data', () => {
    for (const type of ['extract.started', 'extract.completed', 'extract.failed']) {
      expect(WebhookEvent.safeParse({ ...base, type, data: [{ title: 'x' }] }).success).toBe(true);
    }
    for (const type of [
      'agent.started',
      'agent.action',
      'agent.completed',
      'agent.failed',
      'agent.cancelled',
    ]) {
      expect(WebhookEvent.safeParse({ ...base, type, data: ['a text answer'] }).success).toBe(true);
    }
    expect(WebhookEvent.safeParse({ ...base, type: 'extract.page' }).success).toBe(false);
    expect(WebhookEvent.safeParse({ ...base, type: 'crawl.cancelled' }).success).toBe(false);
    expect(WebhookEvent.safeParse({ ...base, type: 'crawl.action' }).success).toBe(false);
    expect(WebhookEvent.safeParse({ ...base, type: 'extract.action' }).success).toBe(false);
  });

  it('keeps crawl and batch data to page documents, and extract answers whole', () => {
    const event = { ...base, teamId: 't1' };
    expect(JobEvent.safeParse({ ...event, type: 'crawl.page', data: ['not a document'] }).success).toBe(
      false,
    );
    expect(JobEvent.safeParse({ ...event, type: 'crawl.page', data: [{ markdown: '# x' }] }).success).toBe(
      true,
    );
    const answer = { title: 'x', price: 3, tags: ['a'] };
    const parsed = JobEvent.parse({ ...event, type: 'extract.completed', data: [answer] });
    expect(parsed.data).toEqual([answer]);
  });

  it('maps between event types and kinds', () => {
    expect(webhookEventKind('batch_scrape.page')).toBe('page');
    expect(webhookEventType('batch', 'started')).toBe('batch_scrape.started');
    expect(webhookEventType('crawl', 'failed')).toBe('crawl.failed');
    expect(webhookEventType('extract', 'completed')).toBe('extract.completed');
    expect(webhookEventType('agent', 'cancelled')).toBe('agent.cancelled');
    expect(() => webhookEventType('crawl', 'cancelled')).toThrow('crawl jobs have no cancelled events');
    expect(() => webhookEventType('extract', 'page')).toThrow();
    expect(webhookEventKind('agent.cancelled')).toBe('cancelled');
    expect(webhookJobKind('batch_scrape.page')).toBe('batch');
    expect(webhookJobKind('agent.failed')).toBe('agent');
  });
});
