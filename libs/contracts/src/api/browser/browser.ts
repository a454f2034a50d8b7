import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { BrowserProfile } from '../scrape/scrape-request';
import { CREDIT_PRICES } from '../../pricing/prices';

export const CODE_MAX_CHARS = 100000;
export const CodeLanguage = z.enum(['python', 'node', 'bash']);
export type CodeLanguage = z.infer<typeof CodeLanguage>;

export const BrowserSessionStatus = z.enum(['active', 'destroyed']);
export type BrowserSessionStatus = z.infer<typeof BrowserSessionStatus>;

/** Browser sessions are billed at this rate, prorated by the second, with a one-minute minimum. */
export const BROWSER_CREDITS_PER_MINUTE = CREDIT_PRICES.browserSessionPerMinute;
/** Once an interact prompt ran in a session, it is billed at this rate instead. */
export const INTERACT_PROMPT_CREDITS_PER_MINUTE = CREDIT_PRICES.browserSessionPromptPerMinute;
export { browserSessionCredits } from '../../pricing/prices';

export const BrowserSession = z.object({
  id: z.string(),
  status: BrowserSessionStatus,
  cdpUrl: z.string().describe('WebSocket URL for CDP connections'),
  liveViewUrl: z.string().describe('Read-only real-time view'),
  interactiveLiveViewUrl: z.string().describe('Real-time view that accepts clicks, typing and scrolling'),
  streamWebView: z.boolean(),
  playlistUrl: z
    .string()
    .optional()
    .describe('HLS playlist of the session recording (recordSession), while the recording is kept'),
  videoUrl: z.string().optional().describe('The whole recording as one MP4 file, once the session has ended'),
  createdAt: z.string(),
  lastActivity: z.string(),
});
export type BrowserSession = z.output<typeof BrowserSession>;

/** GET /v2/browser/{sessionId}: one session of the team, active or ended. */
export const GetBrowserResponse = BrowserSession.extend({
  success: z.literal(true),
  expiresAt: z.string().describe('When the ttl ends the session'),
  endedAt: z.string().optional(),
  endReason: z
    .string()
    .optional()
    .describe('Why it ended: deleted, ttl, inactivity, replica-lost, drained, failed, browser-exited'),
  sessionDurationMs: z.int().min(0).optional().describe('Once ended'),
  creditsBilled: z.int().min(0).optional().describe('Once ended'),
});
export type GetBrowserResponse = z.output<typeof GetBrowserResponse>;

/** GET /v2/browser query. */
export const ListBrowsersQuery = z.object({ status: BrowserSessionStatus.optional() });
export type ListBrowsersQuery = z.output<typeof ListBrowsersQuery>;

export const ListBrowsersResponse = z.object({ success: z.literal(true), sessions: z.array(BrowserSession) });
export type ListBrowsersResponse = z.output<typeof ListBrowsersResponse>;

export const SessionIdParams = z.object({ sessionId: z.string().min(1).max(200) });
export type SessionIdParams = z.output<typeof SessionIdParams>;

/** GET /v2/browser/{sessionId}/live/{token}: a live-view page (the token is the credential). */
export const LiveViewParams = z.object({
  sessionId: z.uuid(),
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'a live-view token'),
});
export type LiveViewParams = z.output<typeof LiveViewParams>;

/** A file of a session recording: its HLS playlist, one of its segments, or the whole video as MP4. */
export const RECORDING_FILE_PATTERN = /^(?:index\.m3u8|seg\d{5,8}\.ts|recording\.mp4)$/;

/** GET /v2/browser/{sessionId}/recording/{token}/{file}: a file of a recording (the token is the credential). */
export const RecordingParams = z.object({
  sessionId: z.uuid(),
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'a recording token'),
  file: z
    .string()
    .regex(RECORDING_FILE_PATTERN, 'a recording file (index.m3u8, segNNNNN.ts or recording.mp4)'),
});
export type RecordingParams = z.output<typeof RecordingParams>;

/** DELETE /v2/browser/{sessionId}/replay answer: how many files of the recording were deleted. */
export const DeleteReplayResponse = z.object({ success: z.literal(true), deleted: z.int().min(0) });
export type DeleteReplayResponse = z.output<typeof DeleteReplayResponse>;

/** POST /v2/browser body. The Python SDK's `blockAds` and `location` are accepted and ignored. */
export const CreateBrowserRequest = publicBody({
  ttl: z.int().min(30).max(3600).default(600).describe('Seconds the session may live at most'),
  activityTtl: z
    .int()
    .min(10)
    .max(3600)
    .default(300)
    .describe('Seconds without activity after which the session ends'),
  streamWebView: z.boolean().default(true),
  recordSession: z
    .boolean()
    .default(false)
    .describe(
      "Record the session's screen as HLS video (H.264): playlistUrl, also GET /v2/browser/{id}/replay",
    ),
  profile: BrowserProfile.optional(),
  blockAds: z.boolean().optional().describe('Accepted for the Python SDK; ignored'),
  location: z.looseObject({}).optional().describe('Accepted for the Python SDK; ignored'),
});
export type CreateBrowserRequest = z.output<typeof CreateBrowserRequest>;
export type CreateBrowserRequestInput = z.input<typeof CreateBrowserRequest>;

export const CreateBrowserResponse = z.object({
  success: z.literal(true),
  id: z.string(),
  cdpUrl: z.string(),
  liveViewUrl: z.string(),
  interactiveLiveViewUrl: z.string(),
  playlistUrl: z
    .string()
    .optional()
    .describe('HLS playlist of the recording (recordSession only); the token in it is the credential'),
  expiresAt: z.string(),
});
export type CreateBrowserResponse = z.output<typeof CreateBrowserResponse>;

/** DELETE /v2/browser/{sessionId} answer. */
export const DeleteBrowserResponse = z.object({
  success: z.literal(true),
  status: z.enum(['stopped', 'failed']),
  cleanupQueued: z.boolean(),
  sessionDurationMs: z.int().min(0),
  creditsBilled: z.int().min(0),
});
export type DeleteBrowserResponse = z.output<typeof DeleteBrowserResponse>;

/** POST /v2/browser/{sessionId}/execute body. */
export const ExecuteRequest = publicBody({
  code: z.string().min(1).max(CODE_MAX_CHARS),
  language: CodeLanguage.default('node'),
  timeout: z.int().min(1).max(300).optional().describe('Seconds'),
});
export type ExecuteRequest = z.output<typeof ExecuteRequest>;
export type ExecuteRequestInput = z.input<typeof ExecuteRequest>;

/** Code execution result of execute; `error` may accompany `success: true`. */
export const ExecuteResult = z.object({
  success: z.boolean(),
  stdout: z.string().nullable(),
  result: z.string().nullable().describe('Last expression value (node); alias of stdout for execute'),
  stderr: z.string().nullable(),
  exitCode: z.int().nullable(),
  killed: z.boolean().describe('true when terminated because of the timeout'),
  truncated: z.boolean().optional().describe('true when stdout or stderr was cut at 1 MiB'),
  error: z.string().nullable().optional(),
});
export type ExecuteResult = z.output<typeof ExecuteResult>;
