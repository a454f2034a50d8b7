import { z } from 'zod';
import { CrawlRequest } from '../../api/crawl/crawl-request';
import { MapRequest } from '../../api/map/map';
import { defineRpc, defineStreamMessage, type ConsumerDef } from '../define';
import { PageTask } from '../page-task';
import { STREAMS } from '../streams';
import { defineJobRpcs, jobPageConsumer } from '../jobs';

/*
 * The crawler's messages. NEVER rename a shipped subject or durable: bump the version.
 */

export const CrawlCreateRequest = z.object({
  crawlId: z.uuid(),
  teamId: z.string().min(1),
  /** The validated public request (re-parsing it is idempotent). */
  request: CrawlRequest,
  /** The team's concurrency limit; the crawl runs at min(maxConcurrency, this), or 1 with `delay`. */
  teamConcurrency: z.int().min(1),
});
export type CrawlCreateRequest = z.output<typeof CrawlCreateRequest>;
export type CrawlCreateRequestInput = z.input<typeof CrawlCreateRequest>;

export const CrawlCreateReply = z.object({ id: z.uuid() });

export const MapRunRequest = z.object({ teamId: z.string().min(1), request: MapRequest });
export type MapRunRequest = z.output<typeof MapRunRequest>;
/** Links as gzip-compressed JSON (`MapLink[]`) in base64: 100,000 URLs do not fit a message as text. */
export const MapRunReply = z.object({ linksGz: z.string(), count: z.int().min(0) });
export type MapRunReply = z.output<typeof MapRunReply>;

/** Seeds a crawl (robots.txt, sitemaps, start URL); one per crawl, de-duplicated by crawl id. */
export const CrawlKickoff = z.object({ crawlId: z.uuid(), teamId: z.string().min(1) });
export type CrawlKickoff = z.output<typeof CrawlKickoff>;

const CRAWLER = 'crawler' as const;

export const CRAWL_RPC = {
  create: defineRpc('wds.crawler.v1.crawl.create', CRAWLER, CrawlCreateRequest, CrawlCreateReply),
  map: defineRpc('wds.crawler.v1.map.run', CRAWLER, MapRunRequest, MapRunReply),
  ...defineJobRpcs(CRAWLER, 'crawl'),
} as const;

export const CRAWL_WORK = {
  page: defineStreamMessage('wds.work.v1.crawl.page', STREAMS.WDS_WORK_V1.name, PageTask),
  kickoff: defineStreamMessage('wds.work.v1.crawl.kickoff', STREAMS.WDS_WORK_V1.name, CrawlKickoff),
} as const;

export const CRAWL_CONSUMERS = {
  page: jobPageConsumer('crawler-page-v1', CRAWL_WORK.page.subject),
  kickoff: {
    stream: STREAMS.WDS_WORK_V1.name,
    durable: 'crawler-kickoff-v1',
    filterSubject: CRAWL_WORK.kickoff.subject,
    // Robots.txt plus up to a few dozen sitemap fetches take long, but the handler's heartbeats
    // cover that: the ack wait is only how long a killed crawler's kickoff waits for redelivery.
    ackWaitMs: 10_000,
    maxDeliver: 5,
  },
} as const satisfies Record<string, ConsumerDef>;
