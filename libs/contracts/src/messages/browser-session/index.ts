import { z } from 'zod';
import { BrowserSessionStatus, CodeLanguage, ExecuteResult } from '../../api/browser/browser';
import { BrowserProfile } from '../../api/scrape/scrape-request';
import { defineRpc, type RpcDef } from '../define';
import { AgentRunStatus, AgentStep } from '../browser-agent';
import { LiveViewMode } from './live-view';

export * from './live-view';
export * from './recording';

/*
 * Live browser sessions of the browser-pool (docs/adr/0008-browser-sessions.md). A session lives on
 * one replica: create goes to the `browser-pool` queue group (a replica at capacity refuses and the
 * caller asks again, so another replica takes it); every later call for the session goes to the
 * subjects of the replica that owns it (`sessionReplicaRpc(replicaId)`). NEVER rename a shipped
 * subject: bump its version.
 */

/** A session as stored (browser_pool.sessions); the token is the secret of its cdpUrl and live views. */
export const BrowserSessionRecord = z.object({
  id: z.uuid(),
  teamId: z.string(),
  status: BrowserSessionStatus,
  replicaId: z.string(),
  /** The scrape job it was created for (interact), if any. */
  scrapeJobId: z.uuid().optional(),
  streamWebView: z.boolean(),
  ttlSeconds: z.int(),
  activityTtlSeconds: z.int(),
  createdAt: z.string(),
  lastActivity: z.string(),
  expiresAt: z.string(),
  endedAt: z.string().optional(),
  /** Why it ended: deleted, ttl, inactivity, replica-lost, drained, failed. */
  endReason: z.string().optional(),
  durationMs: z.int().min(0).optional(),
  creditsBilled: z.int().min(0).optional(),
  /** Unguessable per-session token (cdpUrl, live views); only while active. */
  token: z.string().optional(),
  /** The token of the session's recording (`recordSession`), kept after the session ends. */
  recordingToken: z.string().optional(),
});
export type BrowserSessionRecord = z.output<typeof BrowserSessionRecord>;

/**
 * How long a request-concurrency lease (a gateway.concurrency_leases row) lives without renewal: the
 * gateway renews its requests' leases and browser-pool its sessions' well within it, so a crashed
 * holder's slots come free after this.
 */
export const CONCURRENCY_LEASE_TTL_MS = 30_000;

export const SessionCreateRequest = z.object({
  teamId: z.string().min(1),
  ttl: z.int().min(30).max(3600),
  activityTtl: z.int().min(10).max(3600),
  streamWebView: z.boolean().default(true),
  /** Record the session's screen (recording.ts). */
  recordSession: z.boolean().default(false),
  profile: BrowserProfile.optional(),
  /** The team's maximum of active sessions (min of its browser-session and concurrency limits). */
  maxSessions: z.int().min(0),
  /**
   * The team's request-concurrency limit: an active session holds one of its slots, as a lease of
   * the gateway's concurrency machinery (a gateway.concurrency_leases row whose id is the session's,
   * renewed by the owning replica, deleted when the session ends, expiring if that replica dies).
   * `requestLeaseId` is the create request's own lease: the session takes over its slot, so it is
   * not counted. Absent: the session holds no lease.
   */
  concurrency: z.object({ max: z.int().min(1), requestLeaseId: z.uuid().optional() }).optional(),
  /** Interact: build the session at this scrape's page state from its replay context. */
  scrapeJobId: z.uuid().optional(),
  /**
   * Interact on a scrape the fetch engine served (no browser, so no replay context stored): the
   * page's URL, opened instead. Such scrapes had no actions, waitFor or profile to replay.
   */
  fallbackUrl: z.url().optional(),
  /** Interact: the runtime of the code about to run, started while the scrape is replayed. */
  runtime: CodeLanguage.optional(),
});
export type SessionCreateRequest = z.output<typeof SessionCreateRequest>;
export type SessionCreateRequestInput = z.input<typeof SessionCreateRequest>;

export const SessionReply = z.object({ session: BrowserSessionRecord });
export type SessionReply = z.output<typeof SessionReply>;

export const SessionLookupRequest = z
  .object({
    teamId: z.string().min(1),
    sessionId: z.string().min(1).max(200).optional(),
    scrapeJobId: z.uuid().optional(),
  })
  .refine((r) => (r.sessionId === undefined) !== (r.scrapeJobId === undefined), {
    message: 'Exactly one of sessionId or scrapeJobId',
  });
/** A session of the team (other team: FORBIDDEN; unknown: NOT_FOUND). */
export const SessionLookupReply = z.object({ session: BrowserSessionRecord });

export const SessionListRequest = z.object({
  teamId: z.string().min(1),
  status: BrowserSessionStatus.optional(),
});
export const SessionListReply = z.object({ sessions: z.array(BrowserSessionRecord) });

export const SessionExecuteRequest = z.object({
  teamId: z.string().min(1),
  sessionId: z.uuid(),
  code: z.string().min(1),
  language: CodeLanguage,
  timeoutSeconds: z.int().min(1).max(300),
});
export type SessionExecuteRequest = z.output<typeof SessionExecuteRequest>;

/** What running code produced (the public result minus `success`/`error`, which callers derive). */
export const SessionExecuteReply = ExecuteResult.pick({
  stdout: true,
  result: true,
  stderr: true,
  exitCode: true,
  killed: true,
  truncated: true,
}).extend({ error: z.string().optional() });
export type SessionExecuteReply = z.output<typeof SessionExecuteReply>;

/** An interact prompt: the browser agent works the session's page (docs/adr/0021-browser-agent.md). */
export const SessionPromptRequest = z.object({
  teamId: z.string().min(1),
  sessionId: z.uuid(),
  prompt: z.string().min(1).max(10_000),
  timeoutSeconds: z.int().min(1).max(300),
  /** Public prefix of the API key the call came with (token usage records); null without one. */
  apiKey: z.string().min(1).max(64).nullable(),
});
export type SessionPromptRequest = z.output<typeof SessionPromptRequest>;

/**
 * The run as an execute result (stdout = the step log, result = the final snapshot, exitCode 1 and
 * `error` when the agent did not finish, killed when its time ran out) plus the agent's answer.
 */
export const SessionPromptReply = SessionExecuteReply.extend({
  status: AgentRunStatus,
  output: z.string(),
  steps: z.array(AgentStep),
  tokens: z.object({ input: z.int().min(0), output: z.int().min(0) }),
  model: z.string(),
});
export type SessionPromptReply = z.output<typeof SessionPromptReply>;

export const SessionDeleteRequest = z.object({ teamId: z.string().min(1), sessionId: z.uuid() });
export const SessionDeleteReply = z.object({
  session: BrowserSessionRecord,
  /** False when the session had already ended before this call. */
  endedNow: z.boolean(),
});
export type SessionDeleteReply = z.output<typeof SessionDeleteReply>;

/** Token check for cdpUrl / live views: an active session with this token, and where it lives. */
export const SessionResolveRequest = z.object({
  sessionId: z.string().min(1).max(200),
  token: z.string().min(1).max(200),
  /** `cdp`: the token must be the session's own; `live`: one of its live-view tokens. */
  purpose: z.enum(['cdp', 'live']).default('cdp'),
});
export const SessionResolveReply = z.object({
  /** http://host:port of the owning replica's session endpoint (internal network). */
  endpoint: z.string(),
  /** For `purpose: live`, which view the token opens. */
  mode: LiveViewMode.optional(),
});

const BROWSER_POOL = 'browser-pool';

export const BROWSER_SESSION_RPC = {
  /** Any replica with room creates it; at capacity CONCURRENCY_LIMITED (details.reason 'capacity'). */
  create: defineRpc('wds.browser-pool.v1.session.create', BROWSER_POOL, SessionCreateRequest, SessionReply),
  lookup: defineRpc(
    'wds.browser-pool.v1.session.lookup',
    BROWSER_POOL,
    SessionLookupRequest,
    SessionLookupReply,
  ),
  list: defineRpc('wds.browser-pool.v1.session.list', BROWSER_POOL, SessionListRequest, SessionListReply),
  /** Wrong token, unknown or ended session: NOT_FOUND (one answer, so nothing is learnt from it). */
  resolve: defineRpc(
    'wds.browser-pool.v1.session.resolve',
    BROWSER_POOL,
    SessionResolveRequest,
    SessionResolveReply,
  ),
} as const;

/** Subject-safe form of a replica id (`host.name-123` → `host_name-123`). */
export function replicaToken(replicaId: string): string {
  return replicaId.replace(/[^A-Za-z0-9_-]/g, '_');
}

export interface SessionReplicaRpcs {
  execute: RpcDef<typeof SessionExecuteRequest, typeof SessionExecuteReply>;
  delete: RpcDef<typeof SessionDeleteRequest, typeof SessionDeleteReply>;
  prompt: RpcDef<typeof SessionPromptRequest, typeof SessionPromptReply>;
}

/** The subjects of one replica: calls for a session go to the replica that holds its browser. */
export function sessionReplicaRpc(replicaId: string): SessionReplicaRpcs {
  const t = replicaToken(replicaId);
  const queue = `browser-pool.${t}`;
  return {
    execute: defineRpc(
      `wds.browser-pool.v1.replica.${t}.execute`,
      queue,
      SessionExecuteRequest,
      SessionExecuteReply,
    ),
    delete: defineRpc(
      `wds.browser-pool.v1.replica.${t}.delete`,
      queue,
      SessionDeleteRequest,
      SessionDeleteReply,
    ),
    prompt: defineRpc(
      `wds.browser-pool.v1.replica.${t}.prompt`,
      queue,
      SessionPromptRequest,
      SessionPromptReply,
    ),
  };
}
