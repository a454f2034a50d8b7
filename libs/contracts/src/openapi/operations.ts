import type { z } from 'zod';
import * as api from './api-schemas';
import { ARTIFACT_OPERATIONS } from './artifact-operations';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** A named schema: becomes `#/components/schemas/<name>`. */
export interface NamedSchema {
  readonly name: string;
  readonly schema: z.ZodType;
}

export interface OperationDef {
  readonly method: HttpMethod;
  /** OpenAPI path template, e.g. `/v2/crawl/{id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly security: 'apiKey' | 'adminToken';
  readonly pathParams?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: NamedSchema;
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly schema?: NamedSchema;
    /** Media types of a binary answer (no JSON schema). */
    readonly binary?: readonly string[];
  };
  /** Error statuses beyond the ones every operation can answer (401, 429, 500). */
  readonly errors?: readonly number[];
}

const n = (name: string, schema: z.ZodType): NamedSchema => ({ name, schema });

const ok = (schema: NamedSchema, description = 'Success') => ({ status: 200, description, schema });

/** Every operation of the public API and the admin API, in documentation order. */
export const OPERATIONS: readonly OperationDef[] = [
  {
    method: 'post',
    path: '/v2/scrape',
    operationId: 'scrape',
    summary: 'Scrape one URL',
    tag: 'Scraping',
    security: 'apiKey',
    body: n('ScrapeRequest', api.ScrapeRequest),
    success: ok(n('ScrapeResponse', api.ScrapeResponse)),
    errors: [400, 402, 403, 404, 408, 502],
  },
  {
    method: 'get',
    path: '/v2/scrape/{id}',
    operationId: 'getScrape',
    summary: 'Read the result of a scrape job',
    tag: 'Scraping',
    security: 'apiKey',
    pathParams: api.ScrapeIdParams,
    success: ok(n('ScrapeResponse', api.ScrapeResponse)),
    errors: [400, 403, 404],
  },
  ...ARTIFACT_OPERATIONS,
  {
    method: 'post',
    path: '/v2/scrape/{jobId}/interact',
    operationId: 'interact',
    summary: 'Run code or a prompt in a live browser attached to a scrape job',
    tag: 'Interact',
    security: 'apiKey',
    pathParams: api.InteractParams,
    body: n('InteractRequest', api.InteractRequest),
    success: ok(n('InteractResult', api.InteractResult)),
    errors: [400, 402, 403, 404, 409, 410, 502, 503],
  },
  {
    method: 'delete',
    path: '/v2/scrape/{jobId}/interact',
    operationId: 'stopInteraction',
    summary: 'Stop the browser session of a scrape job',
    tag: 'Interact',
    security: 'apiKey',
    pathParams: api.InteractParams,
    success: ok(n('InteractStopResponse', api.InteractStopResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'get',
    path: '/v2/browser',
    operationId: 'listBrowsers',
    summary: 'List browser sessions',
    tag: 'Browser',
    security: 'apiKey',
    query: api.ListBrowsersQuery,
    success: ok(n('ListBrowsersResponse', api.ListBrowsersResponse)),
    errors: [400],
  },
  {
    method: 'post',
    path: '/v2/browser/{sessionId}/execute',
    operationId: 'browserExecute',
    summary: 'Run code in a browser session',
    tag: 'Browser',
    security: 'apiKey',
    pathParams: api.SessionIdParams,
    body: n('ExecuteRequest', api.ExecuteRequest),
    success: ok(n('ExecuteResult', api.ExecuteResult)),
    errors: [400, 403, 404, 410, 502, 503],
  },
  {
    method: 'post',
    path: '/v2/crawl',
    operationId: 'crawl',
    summary: 'Start a crawl',
    tag: 'Crawling',
    security: 'apiKey',
    body: n('CrawlRequest', api.CrawlRequest),
    success: ok(n('CrawlCreateResponse', api.CrawlCreateResponse)),
    errors: [400, 402, 403],
  },
  {
    method: 'post',
    path: '/v2/crawl/params-preview',
    operationId: 'crawlParamsPreview',
    summary: 'Generate crawl options from a prompt',
    tag: 'Crawling',
    security: 'apiKey',
    body: n('CrawlParamsPreviewRequest', api.CrawlParamsPreviewRequest),
    success: ok(n('CrawlParamsPreviewResponse', api.CrawlParamsPreviewResponse)),
    errors: [400, 502, 503],
  },
  {
    method: 'get',
    path: '/v2/crawl/active',
    operationId: 'getActiveCrawls',
    summary: "List the team's running crawls",
    tag: 'Crawling',
    security: 'apiKey',
    success: ok(n('ActiveCrawlsResponse', api.ActiveCrawlsResponse)),
  },
  {
    method: 'get',
    path: '/v2/crawl/{id}',
    operationId: 'getCrawlStatus',
    summary: 'Crawl status and pages',
    tag: 'Crawling',
    security: 'apiKey',
    pathParams: api.JobIdParams,
    success: ok(n('CrawlStatusResponse', api.CrawlStatusResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'delete',
    path: '/v2/crawl/{id}',
    operationId: 'cancelCrawl',
    summary: 'Cancel a crawl',
    tag: 'Crawling',
    security: 'apiKey',
    pathParams: api.JobIdParams,
    success: ok(n('CancelJobResponse', api.CancelJobResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'get',
    path: '/v2/crawl/{id}/errors',
    operationId: 'getCrawlErrors',
    summary: 'Failed and robots-blocked pages of a crawl',
    tag: 'Crawling',
    security: 'apiKey',
    pathParams: api.JobIdParams,
    success: ok(n('JobErrorsResponse', api.JobErrorsResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'post',
    path: '/v2/map',
    operationId: 'map',
    summary: 'List the URLs of a site',
    tag: 'Mapping',
    security: 'apiKey',
    body: n('MapRequest', api.MapRequest),
    success: ok(n('MapResponse', api.MapResponse)),
    errors: [400, 402, 403, 408],
  },
  {
    method: 'post',
    path: '/v2/batch/scrape',
    operationId: 'batchScrape',
    summary: 'Start a batch scrape',
    tag: 'Batch scraping',
    security: 'apiKey',
    body: n('BatchScrapeRequest', api.BatchScrapeRequest),
    success: ok(n('BatchScrapeCreateResponse', api.BatchScrapeCreateResponse)),
    errors: [400, 402, 403, 404],
  },
  {
    method: 'get',
    path: '/v2/batch/scrape/{id}',
    operationId: 'getBatchScrapeStatus',
    summary: 'Batch scrape status and pages',
    tag: 'Batch scraping',
    security: 'apiKey',
    pathParams: api.JobIdParams,
    success: ok(n('BatchScrapeStatusResponse', api.BatchScrapeStatusResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'delete',
    path: '/v2/batch/scrape/{id}',
    operationId: 'cancelBatchScrape',
    summary: 'Cancel a batch scrape',
    tag: 'Batch scraping',
    security: 'apiKey',
    pathParams: api.JobIdParams,
    success: ok(n('CancelJobResponse', api.CancelJobResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'get',
    path: '/v2/batch/scrape/{id}/errors',
    operationId: 'getBatchScrapeErrors',
    summary: 'Failed and robots-blocked pages of a batch scrape',
    tag: 'Batch scraping',
    security: 'apiKey',
    pathParams: api.JobIdParams,
    success: ok(n('JobErrorsResponse', api.JobErrorsResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'get',
    path: '/v2/team/activity',
    operationId: 'getTeamActivity',
    summary: 'Activity of the last 24 hours',
    tag: 'Team',
    security: 'apiKey',
    query: api.TeamActivityQuery,
    success: ok(n('TeamActivityResponse', api.TeamActivityResponse)),
    errors: [400],
  },
  {
    method: 'get',
    path: '/v2/team/token-usage/historical',
    operationId: 'getTokenUsageHistorical',
    summary: 'Token usage per month',
    tag: 'Team',
    security: 'apiKey',
    query: api.TokenUsageQuery,
    success: ok(n('TokenUsageResponse', api.TokenUsageResponse)),
    errors: [400],
  },
  {
    method: 'post',
    path: '/v2/support/docs-search',
    operationId: 'docsSearch',
    summary: "Answer a question from the service's documentation, with citations",
    tag: 'Support',
    security: 'apiKey',
    body: n('DocsSearchRequest', api.DocsSearchRequest),
    success: ok(n('DocsSearchResponse', api.DocsSearchResponse)),
    errors: [400, 502, 503],
  },
  {
    method: 'get',
    path: '/v2/webhooks/deliveries',
    operationId: 'getWebhookDeliveries',
    summary: "Delivery log of a job's webhook events (attempts, status codes, last error)",
    tag: 'Webhooks',
    security: 'apiKey',
    query: api.WebhookDeliveriesQuery,
    success: ok(n('WebhookDeliveriesResponse', api.WebhookDeliveriesResponse)),
    errors: [400, 503],
  },
  {
    method: 'post',
    path: '/admin/v1/teams',
    operationId: 'adminCreateTeam',
    summary: 'Create a team and its first API key',
    tag: 'Admin',
    security: 'adminToken',
    body: n('AdminCreateTeamRequest', api.AdminCreateTeamRequest),
    success: {
      status: 201,
      description: 'Created',
      schema: n('AdminCreateTeamResponse', api.AdminCreateTeamResponse),
    },
    errors: [400, 403, 404],
  },
  {
    method: 'post',
    path: '/admin/v1/teams/{teamId}/api-keys',
    operationId: 'adminCreateApiKey',
    summary: 'Create an API key for a team',
    tag: 'Admin',
    security: 'adminToken',
    pathParams: api.AdminTeamParams,
    body: n('AdminCreateApiKeyRequest', api.AdminCreateApiKeyRequest),
    success: {
      status: 201,
      description: 'Created',
      schema: n('AdminCreateApiKeyResponse', api.AdminCreateApiKeyResponse),
    },
    errors: [400, 403, 404],
  },
  {
    method: 'delete',
    path: '/admin/v1/api-keys/{prefix}',
    operationId: 'adminRevokeApiKey',
    summary: 'Revoke an API key at once',
    tag: 'Admin',
    security: 'adminToken',
    pathParams: api.AdminApiKeyParams,
    success: ok(n('AdminOkResponse', api.AdminOkResponse)),
    errors: [403, 404],
  },
  {
    method: 'post',
    path: '/admin/v1/teams/{teamId}/credits',
    operationId: 'adminGrantCredits',
    summary: 'Grant or deduct credits',
    tag: 'Admin',
    security: 'adminToken',
    pathParams: api.AdminTeamParams,
    body: n('AdminCreditsRequest', api.AdminCreditsRequest),
    success: ok(n('AdminCreditsResponse', api.AdminCreditsResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'put',
    path: '/admin/v1/teams/{teamId}/limits',
    operationId: 'adminSetLimits',
    summary: 'Set rate, concurrency and browser-session limits',
    tag: 'Admin',
    security: 'adminToken',
    pathParams: api.AdminTeamParams,
    body: n('AdminLimitsRequest', api.AdminLimitsRequest),
    success: ok(n('AdminOkResponse', api.AdminOkResponse)),
    errors: [400, 403, 404],
  },
  {
    method: 'put',
    path: '/admin/v1/teams/{teamId}/webhook-secret',
    operationId: 'adminSetWebhookSecret',
    summary: 'Set the HMAC secret that signs webhook deliveries',
    tag: 'Admin',
    security: 'adminToken',
    pathParams: api.AdminTeamParams,
    body: n('AdminWebhookSecretRequest', api.AdminWebhookSecretRequest),
    success: ok(n('AdminOkResponse', api.AdminOkResponse)),
    errors: [400, 403, 404],
  },
];
