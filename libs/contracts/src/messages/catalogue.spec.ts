import {
  ALL_RPCS,
  ALL_STREAM_MESSAGES,
  CONSUMERS,
  DeadLetter,
  EVENTS,
  JobEvent,
  PageTask,
  RPC,
  SCRAPE_RPC,
  SERVICE_KINDS,
  STREAMS,
  WORK,
  deadLetterSubject,
  type RpcBySubject,
  type RpcReplyBySubject,
  type RpcSubjects,
  type StreamPayloadBySubject,
} from '../index';

/** True when subject is matched by a NATS subject filter (`*` one token, `>` the rest). */
function matches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

describe('message catalogue', () => {
  it('uses versioned subjects wds.<service>.v1.<verb> with the service as queue group', () => {
    for (const rpc of ALL_RPCS) {
      const [prefix, service, version] = rpc.subject.split('.');
      expect(prefix).toBe('wds');
      expect(version).toBe('v1');
      expect(rpc.queue).toBe(service);
      expect(SERVICE_KINDS).toContain(service);
    }
    expect(RPC.creditsReserve.subject).toBe('wds.billing.v1.credits.reserve');
    expect(RPC.scrapeRun.subject).toBe('wds.scraper.v1.scrape.run');
  });

  it('has unique subjects', () => {
    const subjects = [...ALL_RPCS, ...ALL_STREAM_MESSAGES].map((d) => d.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
  });

  it('puts every stream message and consumer on a stream that captures its subject', () => {
    const streams = Object.values(STREAMS);
    for (const msg of ALL_STREAM_MESSAGES) {
      const stream = streams.find((s) => s.name === msg.stream);
      expect(stream).toBeDefined();
      expect(stream!.subjects.some((filter) => matches(filter, msg.subject.replace('>', 'x')))).toBe(true);
    }
    for (const consumer of Object.values(CONSUMERS)) {
      const stream = streams.find((s) => s.name === consumer.stream);
      expect(stream!.subjects.some((filter) => matches(filter, consumer.filterSubject))).toBe(true);
      if ('backoffMs' in consumer) expect(consumer.backoffMs.length).toBeLessThanOrEqual(consumer.maxDeliver);
    }
    expect(CONSUMERS.scraperPage.durable).toBe('scraper-page-v1');
    expect(CONSUMERS.webhooks.durable).toBe('webhooks-v1');
  });

  it('routes dead letters into the DLQ stream', () => {
    const subject = deadLetterSubject(WORK.page.subject);
    expect(subject).toBe('wds.dlq.v1.wds.work.v1.page');
    expect(matches(STREAMS.WDS_DLQ_V1.subjects[0], subject)).toBe(true);
    expect(
      DeadLetter.safeParse({
        originalSubject: WORK.page.subject,
        reason: 'invalid_payload',
        error: { success: false, error: 'bad', code: 'BAD_REQUEST' },
        payload: 'e30=',
        payloadEncoding: 'base64',
        headers: { 'Nats-Msg-Id': 'x' },
        failedAt: new Date().toISOString(),
        deliveryCount: 3,
      }).success,
    ).toBe(true);
  });

  it('validates payloads and scrape.run carries a parsed scrape request', () => {
    expect(
      PageTask.safeParse({
        jobKind: 'crawl',
        jobId: crypto.randomUUID(),
        teamId: 't',
        url: 'https://e.com',
        depth: 0,
      }).success,
    ).toBe(true);
    expect(PageTask.safeParse({ jobKind: 'map', jobId: 'x', teamId: 't', url: 'u', depth: -1 }).success).toBe(
      false,
    );
    const run = RPC.scrapeRun.request.parse({
      teamId: 't',
      requestId: 'r',
      jobId: crypto.randomUUID(),
      options: { url: 'https://e.com' },
    });
    expect(run.options.formats).toEqual(['markdown']);
    expect(
      JobEvent.safeParse({
        success: true,
        type: 'crawl.started',
        id: crypto.randomUUID(),
        webhookId: crypto.randomUUID(),
        data: [],
        teamId: 't',
        webhook: { url: 'https://h.example.com' },
      }).success,
    ).toBe(true);
    expect(EVENTS.job.subject).toBe('wds.events.v1.job');
  });

  it('types payloads by subject', () => {
    const reserve: RpcBySubject['wds.billing.v1.credits.reserve'] = RPC.creditsReserve;
    const subject: RpcSubjects = 'wds.scraper.v1.scrape.get';
    const reply: RpcReplyBySubject['wds.billing.v1.credits.settle'] = { balance: 1, charged: 2 };
    const page: StreamPayloadBySubject['wds.work.v1.page'] = {
      jobKind: 'batch',
      jobId: crypto.randomUUID(),
      teamId: 't',
      url: 'https://e.com',
      depth: 0,
    };
    // @ts-expect-error an unknown subject is not in the map
    const unknown: RpcSubjects = 'wds.billing.v1.nope';
    expect([reserve.subject, subject, reply.charged, page.jobKind, unknown]).toHaveLength(5);
  });
});

describe('scrape replies', () => {
  it('carry exactly one of an inline document and a stored reference', () => {
    const ref = { jobId: crypto.randomUUID(), bytes: 2_000_000, chunks: 4 };
    expect(RPC.scrapeRun.reply.safeParse({ document: { markdown: '# a' }, creditsUsed: 1 }).success).toBe(
      true,
    );
    expect(RPC.scrapeRun.reply.safeParse({ documentRef: ref, creditsUsed: 1 }).success).toBe(true);
    expect(RPC.scrapeRun.reply.safeParse({ creditsUsed: 1 }).success).toBe(false);
    expect(RPC.scrapeGet.reply.safeParse({ document: {}, documentRef: ref }).success).toBe(false);
    expect(SCRAPE_RPC.run).toBe(RPC.scrapeRun);
    expect(RPC.scrapeDocumentChunk.subject).toBe('wds.scraper.v1.scrape.document-chunk');
  });
});
