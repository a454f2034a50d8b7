import { Injectable } from '@nestjs/common';
import {
  BROWSER_SESSION_RPC,
  ErrorCode,
  ServiceError,
  sessionReplicaRpc,
  type BrowserSessionRecord,
  type CodeLanguage,
  type SessionCreateRequestInput,
  type SessionDeleteReply,
  type SessionExecuteReply,
  type SessionPromptReply,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { AuthenticatedTeam } from '../teams/team';

/** Replicas tried for a new session before answering 429 (each full one refuses at once). */
const CREATE_ATTEMPTS = 8;
/** Time past the code's own timeout for the replica to answer. */
const EXECUTE_MARGIN_MS = 15_000;

/** The gateway's side of browser sessions: which replica to ask, and how its refusals read. */
@Injectable()
export class BrowserSessions {
  constructor(private readonly messaging: Messaging) {}

  /**
   * A team's sessions count against both its browser-session maximum and its concurrency limit:
   * each active session holds one of the team's concurrency slots (taking over the create request's
   * own, `requestLeaseId`), so sessions and requests in flight share the limit.
   */
  limits(
    team: AuthenticatedTeam,
    requestLeaseId: string | undefined,
  ): Pick<SessionCreateRequestInput, 'maxSessions' | 'concurrency'> {
    return {
      maxSessions: Math.min(team.limits.maxBrowserSessions, team.limits.maxConcurrency),
      concurrency: { max: team.limits.maxConcurrency, requestLeaseId },
    };
  }

  async create(req: SessionCreateRequestInput): Promise<BrowserSessionRecord> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.messaging.request(BROWSER_SESSION_RPC.create, req, { timeoutMs: 120_000 }))
          .session;
      } catch (err) {
        const full =
          err instanceof ServiceError &&
          err.code === ErrorCode.CONCURRENCY_LIMITED &&
          (err.details as { reason?: string } | undefined)?.reason === 'capacity';
        if (!full) throw err;
        if (attempt >= CREATE_ATTEMPTS) {
          throw new ServiceError(
            ErrorCode.CONCURRENCY_LIMITED,
            'Every browser-pool replica is at its session capacity; retry shortly',
            { reason: 'capacity' },
            2,
          );
        }
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
      }
    }
  }

  async lookup(
    teamId: string,
    by: { sessionId: string } | { scrapeJobId: string },
  ): Promise<BrowserSessionRecord> {
    return (await this.messaging.request(BROWSER_SESSION_RPC.lookup, { teamId, ...by })).session;
  }

  async list(teamId: string, status?: 'active' | 'destroyed'): Promise<BrowserSessionRecord[]> {
    return (await this.messaging.request(BROWSER_SESSION_RPC.list, { teamId, status })).sessions;
  }

  /** Runs code on the replica holding the session; a destroyed session is 410. */
  async execute(
    teamId: string,
    session: BrowserSessionRecord,
    code: string,
    language: CodeLanguage,
    timeoutSeconds: number,
  ): Promise<SessionExecuteReply> {
    if (session.status === 'destroyed') throw gone();
    try {
      return await this.messaging.request(
        sessionReplicaRpc(session.replicaId).execute,
        { teamId, sessionId: session.id, code, language, timeoutSeconds },
        { timeoutMs: timeoutSeconds * 1000 + EXECUTE_MARGIN_MS },
      );
    } catch (err) {
      throw await this.replicaFailure(teamId, session, err);
    }
  }

  /** Runs an interact prompt (the browser agent) on the replica holding the session. */
  async prompt(
    team: AuthenticatedTeam,
    session: BrowserSessionRecord,
    prompt: string,
    timeoutSeconds: number,
  ): Promise<SessionPromptReply> {
    if (session.status === 'destroyed') throw gone();
    try {
      return await this.messaging.request(
        sessionReplicaRpc(session.replicaId).prompt,
        {
          teamId: team.teamId,
          sessionId: session.id,
          prompt,
          timeoutSeconds,
          apiKey: team.keyPrefix || null,
        },
        { timeoutMs: timeoutSeconds * 1000 + EXECUTE_MARGIN_MS },
      );
    } catch (err) {
      throw await this.replicaFailure(team.teamId, session, err);
    }
  }

  async delete(teamId: string, session: BrowserSessionRecord): Promise<SessionDeleteReply> {
    if (session.status === 'destroyed') return { session, endedNow: false };
    try {
      return await this.messaging.request(
        sessionReplicaRpc(session.replicaId).delete,
        { teamId, sessionId: session.id },
        { timeoutMs: 60_000 },
      );
    } catch (err) {
      throw await this.replicaFailure(teamId, session, err);
    }
  }

  /**
   * The owning replica did not answer: if the session was ended meanwhile (its replica was declared
   * lost), it is gone (410); otherwise the replica is unreachable for now (503).
   */
  private async replicaFailure(
    teamId: string,
    session: BrowserSessionRecord,
    err: unknown,
  ): Promise<unknown> {
    if (!(err instanceof ServiceError) || err.code !== ErrorCode.SERVICE_UNAVAILABLE) return err;
    const now = await this.lookup(teamId, { sessionId: session.id }).catch(() => undefined);
    if (now?.status === 'destroyed') return gone();
    return new ServiceError(
      ErrorCode.SERVICE_UNAVAILABLE,
      'The browser-pool replica holding this session is not answering; retry shortly',
      undefined,
      5,
    );
  }
}

export function gone(): ServiceError {
  return new ServiceError(ErrorCode.GONE, 'Browser session has been destroyed.');
}
