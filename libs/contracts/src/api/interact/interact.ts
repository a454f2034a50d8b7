import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { CODE_MAX_CHARS, CodeLanguage, ExecuteResult } from '../browser/browser';

export const InteractParams = z.object({ jobId: z.uuid().describe('Scrape job id') });
export type InteractParams = z.output<typeof InteractParams>;

/** POST /v2/scrape/{jobId}/interact body: drive the page by code or by a prompt, never both. */
export const InteractRequest = publicBody({
  code: z.string().min(1).max(CODE_MAX_CHARS).optional(),
  prompt: z.string().min(1).max(10000).optional(),
  language: CodeLanguage.default('node').describe(
    'Only used with code; bash runs agent-browser CLI commands',
  ),
  timeout: z.int().min(1).max(300).default(30).describe('Seconds'),
  ttl: z.int().min(30).max(3600).optional().describe('Seconds; only used when the session is created'),
  activityTtl: z
    .int()
    .min(10)
    .max(3600)
    .optional()
    .describe('Seconds; only used when the session is created'),
}).refine((b) => (b.code === undefined) !== (b.prompt === undefined), {
  message: 'Exactly one of code or prompt must be given',
});
export type InteractRequest = z.output<typeof InteractRequest>;
export type InteractRequestInput = z.input<typeof InteractRequest>;

export const InteractResult = ExecuteResult.extend({
  sessionId: z.string().optional(),
  cdpUrl: z.string().optional(),
  liveViewUrl: z.string().optional(),
  interactiveLiveViewUrl: z.string().optional(),
  playlistUrl: z
    .string()
    .optional()
    .describe(
      "HLS playlist of the interact session's recording (when the deployment records them); also GET /v2/browser/{sessionId}/replay",
    ),
  output: z.string().optional().describe("The agent's final answer; only with a prompt"),
});
export type InteractResult = z.output<typeof InteractResult>;

/** DELETE /v2/scrape/{jobId}/interact answer; billed at 2 credits per browser minute. */
export const InteractStopResponse = z.object({
  success: z.boolean(),
  sessionDurationMs: z.number().min(0),
  creditsBilled: z.number().min(0),
  error: z.string().optional(),
});
export type InteractStopResponse = z.output<typeof InteractStopResponse>;
