import type { z } from 'zod';
import {
  defineRpc,
  defineStreamMessage,
  type ConsumerDef,
  type RpcDef,
  type StreamMessageDef,
} from './define';
import { STREAMS } from './streams';
import type { ServiceKind } from './services';
import { CreditsReserveReply, CreditsReserveRequest } from './credits-reserve';
import { CreditsSettleReply, CreditsSettleRequest } from './credits-settle';
import { CreditsGrantReply, CreditsGrantRequest } from './credits-grant';
import { CreditsBalanceReply, CreditsBalanceRequest } from './credits-balance';
import {
  CreditsBlockTakeReply,
  CreditsBlockTakeRequest,
  CreditsUsageReportReply,
  CreditsUsageReportRequest,
} from './credit-blocks';
import { ScrapeHitBatch, ScrapeRunReply, ScrapeRunRequest } from './scrape-run';
import { ScrapeGetReply, ScrapeGetRequest } from './scrape-get';
import { ScrapeDocumentChunkReply, ScrapeDocumentChunkRequest } from './scrape-document';
import { PageTask } from './page-task';
import { JobEvent } from './job-event';
import { DLQ_PREFIX, DeadLetter } from './dead-letter';
import { webhookSecretRpc } from './webhook-secret';
import { webhookDeliveriesListRpc, webhookDeliveriesRequeueRpc } from './webhook-deliveries';
import { ActivityBatch } from './activity';
import {
  ActivityListReply,
  ActivityListRequest,
  UsageCurrentReply,
  UsageCurrentRequest,
  UsageHistoricalReply,
  UsageHistoricalRequest,
} from './team-usage';

/*
 * The internal message catalogue.
 * NEVER rename a shipped subject, stream or durable consumer name: bump its version
 * (`.v1.` -> `.v2.`, `-v1` -> `-v2`) and run both until the old one drains.
 *
 * RPC subjects are `wds.<service>.v1.<verb>`, served by the queue group named after the service.
 */

const BILLING: ServiceKind = 'billing';
const SCRAPER: ServiceKind = 'scraper';

export const RPC = {
  creditsReserve: defineRpc(
    'wds.billing.v1.credits.reserve',
    BILLING,
    CreditsReserveRequest,
    CreditsReserveReply,
  ),
  creditsSettle: defineRpc(
    'wds.billing.v1.credits.settle',
    BILLING,
    CreditsSettleRequest,
    CreditsSettleReply,
  ),
  creditsGrant: defineRpc('wds.billing.v1.credits.grant', BILLING, CreditsGrantRequest, CreditsGrantReply),
  creditsBalance: defineRpc(
    'wds.billing.v1.credits.balance',
    BILLING,
    CreditsBalanceRequest,
    CreditsBalanceReply,
  ),
  /** Takes a block of a team's credits to spend locally (see credit-blocks). */
  creditsBlockTake: defineRpc(
    'wds.billing.v1.credits.block.take',
    BILLING,
    CreditsBlockTakeRequest,
    CreditsBlockTakeReply,
  ),
  /** Records usage against a block, renews it, and optionally closes it. */
  creditsUsageReport: defineRpc(
    'wds.billing.v1.credits.usage.report',
    BILLING,
    CreditsUsageReportRequest,
    CreditsUsageReportReply,
  ),
  /** A page of a team's recorded activity (newest first, keyset cursor). */
  activityList: defineRpc('wds.billing.v1.activity.list', BILLING, ActivityListRequest, ActivityListReply),
  /** A team's balance, granted credits and current period. */
  usageCurrent: defineRpc('wds.billing.v1.usage.current', BILLING, UsageCurrentRequest, UsageCurrentReply),
  /** A team's credits and LLM tokens per UTC calendar month, optionally per API key. */
  usageHistorical: defineRpc(
    'wds.billing.v1.usage.historical',
    BILLING,
    UsageHistoricalRequest,
    UsageHistoricalReply,
  ),
  scrapeRun: defineRpc('wds.scraper.v1.scrape.run', SCRAPER, ScrapeRunRequest, ScrapeRunReply),
  scrapeGet: defineRpc('wds.scraper.v1.scrape.get', SCRAPER, ScrapeGetRequest, ScrapeGetReply),
  /** Reads a stored document too large for one message (see `documentRef` of the two above). */
  scrapeDocumentChunk: defineRpc(
    'wds.scraper.v1.scrape.document-chunk',
    SCRAPER,
    ScrapeDocumentChunkRequest,
    ScrapeDocumentChunkReply,
  ),
  /** A team's webhook HMAC secret, served by the gateway (owner of teams) to the webhooks service. */
  webhookSecret: webhookSecretRpc,
  /** A job's webhook delivery log, served by the webhooks service to the gateway. */
  webhookDeliveriesList: webhookDeliveriesListRpc,
  webhookDeliveriesRequeue: webhookDeliveriesRequeueRpc,
} as const;

/** Durable work on WDS_WORK_V1. */
export const WORK = {
  page: defineStreamMessage('wds.work.v1.page', STREAMS.WDS_WORK_V1.name, PageTask),
} as const;

/** Cache hits a gateway answered from its hot copies, for the scraper to record (ADR 0006). */
export const SCRAPE_HITS = defineStreamMessage(
  'wds.scraper.v1.hits',
  STREAMS.WDS_SCRAPE_HITS_V1.name,
  ScrapeHitBatch,
);

/** Activity events and LLM token usage for billing to record (messages/activity). */
export const ACTIVITY = defineStreamMessage(
  'wds.activity.v1.batch',
  STREAMS.WDS_ACTIVITY_V1.name,
  ActivityBatch,
);

/** Job events on WDS_EVENTS_V1. */
export const EVENTS = {
  job: defineStreamMessage('wds.events.v1.job', STREAMS.WDS_EVENTS_V1.name, JobEvent),
} as const;

/** Dead letters on WDS_DLQ_V1; the concrete subject is `deadLetterSubject(original)`. */
export const DLQ = {
  deadLetter: defineStreamMessage(`${DLQ_PREFIX}>`, STREAMS.WDS_DLQ_V1.name, DeadLetter),
} as const;

const SECOND = 1000;
const MINUTE = 60 * SECOND;

export const CONSUMERS = {
  /**
   * Page tasks, consumed by the scraper. No back-off list: handlers that want a delayed retry nak
   * with a delay. A page may take the maximum scrape timeout (300 s): the consumer's heartbeats
   * cover that, so the ack wait is only how long a killed scraper's tasks wait for redelivery.
   */
  scraperPage: {
    stream: STREAMS.WDS_WORK_V1.name,
    durable: 'scraper-page-v1',
    filterSubject: WORK.page.subject,
    ackWaitMs: 10 * SECOND,
    maxDeliver: 3,
  },
  /** Hit batches into the scraper's job rows: one INSERT per batch, idempotent per job. */
  scraperHits: {
    stream: STREAMS.WDS_SCRAPE_HITS_V1.name,
    durable: 'scraper-hits-v1',
    filterSubject: SCRAPE_HITS.subject,
    ackWaitMs: 30 * SECOND,
    maxDeliver: 10,
    backoffMs: [SECOND, 5 * SECOND, 30 * SECOND, MINUTE, 5 * MINUTE],
  },
  /** Activity and token batches into billing's records: idempotent per event id. */
  billingActivity: {
    stream: STREAMS.WDS_ACTIVITY_V1.name,
    durable: 'billing-activity-v1',
    filterSubject: ACTIVITY.subject,
    ackWaitMs: 30 * SECOND,
    // Redelivered every 5 minutes after the back-off list: about 8 hours of a failing database.
    maxDeliver: 100,
    backoffMs: [SECOND, 5 * SECOND, 30 * SECOND, MINUTE, 5 * MINUTE],
  },
  /**
   * Job events into the webhooks service's outbox. The consumer only records each wanted event in
   * PostgreSQL (delivery and its retry schedule run from there, see docs/webhooks.md); this back-off
   * paces redelivery when that write fails. Each step doubles as the ack wait (heartbeats cover a
   * slow write), so the first one is short: a killed webhooks process's events come back in 5 s.
   */
  webhooks: {
    stream: STREAMS.WDS_EVENTS_V1.name,
    durable: 'webhooks-v1',
    filterSubject: EVENTS.job.subject,
    ackWaitMs: 30 * SECOND,
    maxDeliver: 8,
    backoffMs: [5 * SECOND, 30 * SECOND, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, 60 * MINUTE],
  },
} as const satisfies Record<string, ConsumerDef>;

type RpcCatalogue = typeof RPC;
type StreamCatalogue = typeof WORK & typeof EVENTS & typeof DLQ;

/** Every RPC subject. */
export type RpcSubjects = RpcCatalogue[keyof RpcCatalogue]['subject'];
/** The RPC definition of a subject, e.g. `RpcBySubject['wds.billing.v1.credits.reserve']`. */
export type RpcBySubject = { [K in keyof RpcCatalogue as RpcCatalogue[K]['subject']]: RpcCatalogue[K] };
/** Request (input) and reply (output) types by subject. */
export type RpcRequestBySubject = { [S in RpcSubjects]: z.input<RpcBySubject[S]['request']> };
export type RpcReplyBySubject = { [S in RpcSubjects]: z.output<RpcBySubject[S]['reply']> };

/** Every stream-message subject (DLQ as its `>` pattern). */
export type StreamSubjects = StreamCatalogue[keyof StreamCatalogue]['subject'];
export type StreamMessageBySubject = {
  [K in keyof StreamCatalogue as StreamCatalogue[K]['subject']]: StreamCatalogue[K];
};
export type StreamPayloadBySubject = {
  [S in StreamSubjects]: z.output<StreamMessageBySubject[S]['payload']>;
};

/** All RPC definitions as a list (for registering handlers or health checks). */
export const ALL_RPCS: readonly RpcDef[] = Object.values(RPC);
export const ALL_STREAM_MESSAGES: readonly StreamMessageDef[] = [
  ...Object.values(WORK),
  ACTIVITY,
  ...Object.values(EVENTS),
  ...Object.values(DLQ),
];
