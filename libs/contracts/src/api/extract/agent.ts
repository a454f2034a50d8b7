import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { HttpUrl } from '../common/url';
import { AgentWebhookOption } from '../webhooks/webhook-config';
import { JsonSchemaObject } from '../scrape/formats';
import { EXTRACT_MAX_URLS, JOB_PROMPT_MAX } from './extract';

/** Most credits one agent job may cost when the caller sets no `maxCredits`. */
export const AGENT_MAX_CREDITS_DEFAULT = 2_500;

const notAvailable = (what: string) =>
  z
    .unknown()
    .optional()
    .refine((v) => v === undefined || v === null || v === false, { message: what });

/**
 * POST /v2/agent body (Firecrawl v2 shape): the browser agent carries out `prompt` starting from
 * `urls` (optional), answering `data` that matches `schema` when one is given. `model` and `effort`
 * are accepted for the SDKs' sake: the configured LLM runs every job.
 */
export const AgentRequest = publicBody({
  urls: z.array(HttpUrl).max(EXTRACT_MAX_URLS).optional(),
  prompt: z.string().min(1).max(JOB_PROMPT_MAX),
  schema: JsonSchemaObject.optional(),
  maxCredits: z.int().min(1).max(1_000_000).optional().describe('The job stops once it has cost this much'),
  strictConstrainToURLs: z
    .boolean()
    .optional()
    .describe('Keep navigation on the hosts of `urls` (which it then requires)'),
  model: z.string().max(100).optional().describe('Accepted; the configured LLM runs every job'),
  effort: z.enum(['low', 'medium', 'high']).optional().describe('low: 10 steps, medium: 18, high: 25'),
  zeroDataRetention: z.boolean().optional(),
  webhook: AgentWebhookOption.optional().describe(
    'Events agent.started, agent.completed (with the answer), agent.failed and agent.cancelled; a bare URL is short for {url}',
  ),
  threatProtection: notAvailable('threatProtection is not available on this service'),
  auditMetadata: z
    .object({ username: z.string().max(1024).optional() })
    .optional()
    .describe('Accepted, not stored'),
  threadId: notAvailable('threadId: agent threads are not available on this service'),
  mode: z
    .enum(['extract'], {
      error: 'mode: only `extract`; chat mode (threads) is not available on this service',
    })
    .optional()
    .describe('Only `extract`; `chat` threads are not available'),
  exchange: notAvailable('exchange is not available on this service'),
  location: z
    .object({ country: z.string().max(10).optional() })
    .optional()
    .describe('Accepted; no geo proxies'),
}).refine((b) => !b.strictConstrainToURLs || (b.urls?.length ?? 0) > 0, {
  path: ['strictConstrainToURLs'],
  message: 'strictConstrainToURLs needs urls: navigation is kept on the hosts of the URLs given',
});
export type AgentRequest = z.output<typeof AgentRequest>;
export type AgentRequestInput = z.input<typeof AgentRequest>;

export const AgentCreateResponse = z.object({ success: z.literal(true), id: z.uuid() });
export type AgentCreateResponse = z.output<typeof AgentCreateResponse>;

/**
 * GET /v2/agent/{id}. Only `processing`, `completed` and `failed` (firecrawl-py refuses any other):
 * a cancelled job reads as `failed` with the reason in `error`.
 */
export const AgentStatusResponse = z.object({
  success: z.boolean(),
  id: z.uuid(),
  status: z.enum(['processing', 'completed', 'failed']),
  data: z.unknown().optional(),
  error: z.string().optional(),
  stopReason: z.string().optional(),
  model: z.string().optional(),
  expiresAt: z.string(),
  creditsUsed: z.int().min(0),
  tokensUsed: z.int().min(0),
  steps: z
    .array(z.object({ action: z.string(), target: z.string().optional(), outcome: z.string().optional() }))
    .optional(),
  finalUrl: z.string().optional(),
});
export type AgentStatusResponse = z.output<typeof AgentStatusResponse>;

export const AgentCancelResponse = z.object({ success: z.literal(true) });
export type AgentCancelResponse = z.output<typeof AgentCancelResponse>;
