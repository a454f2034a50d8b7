import { EVENTS, type Document, type JobEventInput } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { EVENT_DOCUMENT_MAX_BYTES, JobEvents } from './job-events';
import { toJob, type RawJob } from './job-rows';
import type { JobRow } from './job.types';

/** The events stream as the publisher sees it, in memory. */
class EventsDouble {
  readonly published: { subject: string; event: JobEventInput; msgId?: string }[] = [];
  get messaging(): Messaging {
    return {
      publish: async (def: { subject: string }, event: JobEventInput, opts?: { msgId?: string }) => {
        this.published.push({ subject: def.subject, event, msgId: opts?.msgId });
      },
    } as unknown as Messaging;
  }
}

const baseRow: RawJob = {
  id: 'job-1',
  team_id: 'team-1',
  kind: 'crawl',
  status: 'scraping',
  url: 'https://example.com/',
  options: {},
  page_limit: 10,
  concurrency: 2,
  delay_ms: 0,
  webhook: null,
  zero_data_retention: false,
  discovered: 1,
  succeeded: 0,
  failed: 0,
  inflight: 0,
  credits_used: '0',
  seeded: true,
  robots_txt: null,
  error: null,
  created_at: new Date(0),
  progressed_at: new Date(0),
  expires_at: new Date(0),
  reopened: 0,
};
const job = (over: Partial<JobRow> = {}): JobRow => ({ ...toJob(baseRow), ...over });
const doc: Document = {
  markdown: 'hello',
  metadata: { sourceURL: 'https://example.com/a', statusCode: 200 },
};
const page = { urlKey: 'https://example.com/a', success: true, document: doc, documentBytes: 100 };

describe('JobEvents', () => {
  it('publishes lifecycle events on the events stream with stable webhookIds, new ones per reopened round', async () => {
    const stream = new EventsDouble();
    const events = new JobEvents(stream.messaging, 'crawl');
    await events.lifecycle(job(), 'completed');
    await events.lifecycle(job(), 'completed');
    await events.lifecycle(job({ reopened: 1 }), 'completed');
    const [first, again, round] = stream.published;
    expect(first.subject).toBe(EVENTS.job.subject);
    expect(first.event).toMatchObject({
      type: 'crawl.completed',
      id: 'job-1',
      teamId: 'team-1',
      success: true,
      data: [],
    });
    expect(again.event.webhookId).toBe(first.event.webhookId);
    expect(first.msgId).toBe(first.event.webhookId);
    expect(round.event.webhookId).not.toBe(first.event.webhookId);
  });

  it('sends page events only when the webhook asks for them, or to everyone with pageEvents all', async () => {
    const stream = new EventsDouble();
    await new JobEvents(stream.messaging, 'batch').page(job(), page);
    await new JobEvents(stream.messaging, 'batch').page(
      job({ webhook: { url: 'https://hook.example/', events: ['completed'] } }),
      page,
    );
    expect(stream.published).toHaveLength(0);
    await new JobEvents(stream.messaging, 'batch').page(
      job({ webhook: { url: 'https://hook.example/' } }),
      page,
    );
    await new JobEvents(stream.messaging, 'batch', { pageEvents: 'all' }).page(job(), page);
    expect(stream.published.map((p) => p.event.type)).toEqual(['batch_scrape.page', 'batch_scrape.page']);
    expect(stream.published[0].event).toMatchObject({
      data: [doc],
      webhook: { url: 'https://hook.example/' },
    });
  });

  it("keeps a zero-data-retention job's pages off the stream unless its own webhook wants them", async () => {
    const stream = new EventsDouble();
    await new JobEvents(stream.messaging, 'crawl', { pageEvents: 'all' }).page(
      job({ zeroDataRetention: true }),
      page,
    );
    expect(stream.published).toHaveLength(0);
    await new JobEvents(stream.messaging, 'crawl').page(
      job({ zeroDataRetention: true, webhook: { url: 'https://hook.example/' } }),
      page,
    );
    expect(stream.published[0].event).toMatchObject({ zeroDataRetention: true, type: 'crawl.page' });
  });

  it('types extract and agent events by the job, with the bodies their hooks give, and no page events', async () => {
    const stream = new EventsDouble();
    const asked: string[] = [];
    const events = new JobEvents(stream.messaging, 'batch', {
      pageEvents: 'all',
      lifecycleBodies: async (j, kind) => {
        asked.push(`${j.kind}:${kind}`);
        if (j.kind === 'extract' && kind === 'completed')
          return { kind: 'failed', success: false, data: [], error: 'No page gave an answer' };
        if (j.kind === 'agent' && kind === 'completed')
          return { kind: 'completed', success: true, data: [{ part: 'A-1' }] };
        return undefined;
      },
    });
    const extract = job({ kind: 'extract', webhook: { url: 'https://hook.example/' } });
    await events.lifecycle(extract, 'started');
    await events.page(extract, page);
    await events.lifecycle(extract, 'completed');
    await events.lifecycle(job({ kind: 'agent' }), 'completed');
    await events.lifecycle(job({ kind: 'agent' }), 'cancelled');
    // A batch's own events never ask the hook.
    await events.lifecycle(job({ kind: 'batch' }), 'completed');
    expect(stream.published.map((p) => [p.event.type, p.event.success])).toEqual([
      ['extract.started', true],
      ['extract.failed', false],
      ['agent.completed', true],
      ['agent.cancelled', false],
      ['batch_scrape.completed', true],
    ]);
    expect(asked).toEqual(['extract:started', 'extract:completed', 'agent:completed', 'agent:cancelled']);
    expect(stream.published[1].event).toMatchObject({ error: 'No page gave an answer', data: [] });
    expect(stream.published[2].event.data).toEqual([{ part: 'A-1' }]);
    // A completion that turned into `failed` keeps the webhookId of the completion asked for.
    await events.lifecycle(extract, 'completed');
    expect(stream.published[5].event.webhookId).toBe(stream.published[1].event.webhookId);
    // Job kinds without events (none here) publish nothing.
    await events.lifecycle(job({ kind: 'other' }), 'completed');
    expect(stream.published).toHaveLength(6);
  });

  it('trims a document too large for an event to its metadata and says where to read it', async () => {
    const stream = new EventsDouble();
    await new JobEvents(stream.messaging, 'batch', { pageEvents: 'all' }).page(job(), {
      ...page,
      documentBytes: EVENT_DOCUMENT_MAX_BYTES + 1,
    });
    const [sent] = stream.published[0].event.data as Document[];
    expect(sent.markdown).toBeUndefined();
    expect(sent.metadata).toEqual(doc.metadata);
    expect(sent.warning).toContain('/v2/batch/scrape/job-1');
  });

  it('sends an agent step as agent.action when the webhook asks for it: one webhookId per run and step, ordered by its end', async () => {
    const stream = new EventsDouble();
    const events = new JobEvents(stream.messaging, 'batch');
    const step = { step: 2, action: 'click', outcome: 'ok', url: 'https://example.com/b', ms: 40, at: 1_000 };
    const wants = job({ kind: 'agent', webhook: { url: 'https://hook.example/', events: ['action'] } });
    await events.action(wants, 'run-1', step);
    await events.action(wants, 'run-1', step);
    await events.action(wants, 'run-2', { ...step, outcome: 'refused', at: 2_000 });
    // Not asked for (the filter, or no webhook), or not an agent: nothing is published.
    await events.action(
      job({ kind: 'agent', webhook: { url: 'https://hook.example/', events: ['completed'] } }),
      'run-1',
      step,
    );
    await events.action(job({ kind: 'agent' }), 'run-1', step);
    await events.action(job({ kind: 'extract', webhook: { url: 'https://hook.example/' } }), 'run-1', step);
    expect(stream.published.map((p) => p.event)).toEqual([
      expect.objectContaining({ type: 'agent.action', success: true, data: [step], seq: 1_000 }),
      expect.objectContaining({ type: 'agent.action', success: true, data: [step], seq: 1_000 }),
      expect.objectContaining({ type: 'agent.action', success: false, seq: 2_000 }),
    ]);
    const [a, b, c] = stream.published;
    expect(a.event.webhookId).toBe(b.event.webhookId);
    expect(a.msgId).toBe(a.event.webhookId);
    expect(c.event.webhookId).not.toBe(a.event.webhookId);
    // The operator's `all` publishes steps without a webhook, never those of zero-data-retention jobs.
    const all = new EventsDouble();
    const everything = new JobEvents(all.messaging, 'batch', { pageEvents: 'all' });
    await everything.action(job({ kind: 'agent' }), 'run-1', step);
    await everything.action(job({ kind: 'agent', zeroDataRetention: true }), 'run-1', step);
    expect(all.published).toHaveLength(1);
  });
});
