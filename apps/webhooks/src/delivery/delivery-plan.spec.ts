import type { JobEvent } from '@wds/contracts';
import { planDelivery } from './delivery-plan';

const base: JobEvent = {
  success: true,
  type: 'crawl.page',
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  webhookId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  data: [{ markdown: '# Hi', metadata: { sourceURL: 'https://a.example/' } }],
  teamId: 'team-1',
  webhook: { url: 'https://hooks.example.com/in', metadata: { run: 7 } },
};

describe('planDelivery', () => {
  it('builds the spec body in field order with the metadata echoed and no routing fields', () => {
    const plan = planDelivery({ ...base, error: 'boom', success: false, seq: 4 })!;
    const body = JSON.parse(plan.body.toString('utf8'));
    expect(Object.keys(body)).toEqual(['success', 'type', 'id', 'webhookId', 'data', 'metadata', 'error']);
    expect(body).toMatchObject({ success: false, metadata: { run: 7 }, error: 'boom' });
    expect(plan).toMatchObject({
      phase: 1,
      seq: 4,
      jobId: base.id,
      destination: 'https://hooks.example.com:443',
      expectsStarted: true,
    });
  });

  it('sends error only on page events (api-v2.md), never the zero-data-retention flag', () => {
    const failed = planDelivery({
      ...base,
      type: 'crawl.failed',
      success: false,
      data: [],
      error: 'stalled',
    })!;
    expect(JSON.parse(failed.body.toString('utf8'))).toEqual({
      success: false,
      type: 'crawl.failed',
      id: base.id,
      webhookId: base.webhookId,
      data: [],
      metadata: { run: 7 },
    });
    const zdr = planDelivery({ ...base, zeroDataRetention: true })!;
    expect(zdr.zeroDataRetention).toBe(true);
    expect(JSON.parse(zdr.body.toString('utf8'))).not.toHaveProperty('zeroDataRetention');
    expect(planDelivery(base)!.zeroDataRetention).toBe(false);
  });

  it('orders phases started < page < completed = failed = cancelled', () => {
    const phase = (type: JobEvent['type']) => planDelivery({ ...base, type })!.phase;
    expect([phase('batch_scrape.started'), phase('crawl.page'), phase('crawl.completed')]).toEqual([0, 1, 2]);
    expect(phase('batch_scrape.failed')).toBe(2);
    expect([phase('agent.started'), phase('agent.cancelled'), phase('extract.completed')]).toEqual([0, 2, 2]);
    // An agent's steps come between its start and its end, in the order of their seq (when each ended).
    const step = planDelivery({
      ...base,
      type: 'agent.action',
      data: [{ step: 1, action: 'click' }],
      seq: 1_700_000_000_123,
    })!;
    expect({ phase: step.phase, seq: step.seq }).toEqual({ phase: 1, seq: 1_700_000_000_123 });
    expect(JSON.parse(step.body.toString('utf8')).data).toEqual([{ step: 1, action: 'click' }]);
  });

  it('sends why an extract or agent job failed, what its answer leaves out, and the answer itself', () => {
    const failed = planDelivery({
      ...base,
      type: 'agent.failed',
      success: false,
      data: [],
      error: 'no answer',
    })!;
    expect(JSON.parse(failed.body.toString('utf8'))).toEqual({
      success: false,
      type: 'agent.failed',
      id: base.id,
      webhookId: base.webhookId,
      data: [],
      metadata: { run: 7 },
      error: 'no answer',
    });
    const done = planDelivery({
      ...base,
      type: 'extract.completed',
      data: [{ title: 'x', tags: ['a'] }],
      warning: '1 page(s) could not be read',
    })!;
    expect(JSON.parse(done.body.toString('utf8'))).toMatchObject({
      data: [{ title: 'x', tags: ['a'] }],
      warning: '1 page(s) could not be read',
    });
    // A crawl's warning-free body stays as api-v2.md gives it.
    expect(JSON.parse(planDelivery({ ...base, warning: 'x' })!.body.toString('utf8'))).not.toHaveProperty(
      'warning',
    );
  });

  it('skips jobs without a webhook and events the filter excludes', () => {
    expect(planDelivery({ ...base, webhook: undefined })).toBeUndefined();
    const filtered = { ...base, webhook: { url: 'http://h.example:8080/x', events: ['completed' as const] } };
    expect(planDelivery(filtered)).toBeUndefined();
    const done = planDelivery({ ...filtered, type: 'crawl.completed' })!;
    expect(done.destination).toBe('http://h.example:8080');
    expect(done.expectsStarted).toBe(false);
    expect(JSON.parse(done.body.toString())).not.toHaveProperty('metadata');
  });

  it('keeps custom headers but not the ones the transport and signature own', () => {
    const plan = planDelivery({
      ...base,
      webhook: {
        url: base.webhook!.url,
        headers: { 'X-Token': 't', 'Content-Type': 'text/plain', Host: 'x' },
      },
    })!;
    expect(plan.headers).toEqual({ 'X-Token': 't' });
  });
});
