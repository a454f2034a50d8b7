import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  AGENT_MAX_CREDITS_DEFAULT,
  ErrorCode,
  EXTRACT_RPC,
  ScrapeOptions,
  ServiceError,
  type AgentCancelResponse,
  type AgentCreateResponse,
  type AgentListQuery,
  type AgentListResponse,
  type AgentSnapshotResponse,
  type AgentThreadResponse,
  type AgentTraceEvent,
  type AgentTraceResponse,
  type AgentRequest,
  type AgentStatusResponse,
  type ExtractCreateResponse,
  type ExtractJobReply,
  type ExtractRequest,
  type ExtractStatusResponse,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { RecordCallActivity } from '../credits/call-activity';
import { agentView } from './agent-live-view';
import { CreditsService, type UsageIdentity } from '../credits/credits.service';
import { ExtractWebSearch } from './extract-web-search';
import { assertTeamMay } from '../teams/assert-team-may';
import type { AuthenticatedTeam } from '../teams/team';

/** Expanding URL globs runs a map of the site first. */
const CREATE_TIMEOUT_MS = 120_000;
/** Agent steps by `effort` (the default is the loop's maximum). */
const STEPS_BY_EFFORT = { low: 10, medium: 18, high: 25 } as const;
/** Agent jobs per page of GET /v2/agent. */
export const AGENT_LIST_PAGE = 20;

/** POST/GET /v2/extract and /v2/agent (validated by the controllers): authorisation here, the jobs in the batch service. */
@Injectable()
export class ExtractUseCases {
  constructor(
    private readonly messaging: Messaging,
    private readonly credits: CreditsService,
    private readonly activity: RecordCallActivity,
    private readonly webSearch: ExtractWebSearch,
  ) {}

  async createExtract(
    team: AuthenticatedTeam,
    request: ExtractRequest,
    usage: UsageIdentity,
  ): Promise<ExtractCreateResponse> {
    await this.credits.requireCreditsToStart(team.teamId, 'an extract job');
    const createdAt = Date.now();
    // No urls, or enableWebSearch: a web search for the prompt finds (more) pages first.
    const { urls, searchTokens } = ExtractWebSearch.wanted(request)
      ? await this.webSearch.pages(team, usage, request)
      : { urls: request.urls, searchTokens: 0 };
    const { id } = await this.messaging.request(
      EXTRACT_RPC.create,
      {
        jobId: randomUUID(),
        teamId: team.teamId,
        urls,
        ...(request.prompt ? { prompt: request.prompt } : {}),
        ...(request.systemPrompt ? { systemPrompt: request.systemPrompt } : {}),
        ...(request.schema ? { schema: request.schema } : {}),
        showSources: request.showSources,
        limit: request.limit,
        includeSubdomains: request.includeSubdomains,
        ignoreSitemap: request.ignoreSitemap,
        scrapeOptions: request.scrapeOptions ?? ScrapeOptions.parse({}),
        ...(request.timeout !== undefined ? { pageTimeoutMs: request.timeout } : {}),
        teamConcurrency: team.limits.maxConcurrency,
        apiKey: team.keyPrefix,
        ...(request.webhook ? { webhook: request.webhook } : {}),
        searchTokens,
      },
      { timeoutMs: CREATE_TIMEOUT_MS },
    );
    await this.activity.execute({
      team,
      endpoint: 'extract',
      id,
      target: urls[0] ?? null,
      createdAt,
    });
    return {
      success: true,
      id,
      urlTrace: [],
      ...(request.invalidURLs.length > 0 ? { invalidURLs: request.invalidURLs } : {}),
    };
  }

  /** GET /v2/extract/{id}: an extract job, or an agent job (api-v2's activity table reads them here). */
  async extractStatus(team: AuthenticatedTeam, id: string): Promise<ExtractStatusResponse> {
    const r = await this.read(team, id);
    return {
      success: r.status !== 'failed',
      id,
      status: r.status,
      data: r.data ?? [],
      ...(r.error ? { error: r.error } : {}),
      ...(r.warning ? { warning: r.warning } : {}),
      expiresAt: r.expiresAt,
      ...(r.sources ? { sources: r.sources } : {}),
      tokensUsed: r.tokensUsed,
      creditsUsed: r.creditsUsed,
    };
  }

  async createAgent(
    team: AuthenticatedTeam,
    request: AgentRequest,
    usage: UsageIdentity,
  ): Promise<AgentCreateResponse> {
    assertTeamMay(team, { zeroDataRetention: request.zeroDataRetention });
    await this.credits.requireCreditsToStart(team.teamId, 'an agent job');
    const createdAt = Date.now();
    // No page to start from and no thread to continue: the agent starts on the web results for
    // its prompt when this deployment has a search engine (from a blank page otherwise).
    const urls =
      (request.urls?.length ?? 0) > 0 || request.threadId
        ? (request.urls ?? [])
        : await this.webSearch.agentStart(team, usage, request.prompt, request.zeroDataRetention ?? false);
    const { id, threadId, threadTurn } = await this.messaging.request(EXTRACT_RPC.agentCreate, {
      jobId: randomUUID(),
      teamId: team.teamId,
      prompt: request.prompt,
      urls,
      ...(request.schema ? { schema: request.schema } : {}),
      maxCredits: request.maxCredits ?? AGENT_MAX_CREDITS_DEFAULT,
      maxSteps: STEPS_BY_EFFORT[request.effort ?? 'high'],
      ...(request.strictConstrainToURLs && request.urls?.length
        ? { allowedDomains: [...new Set(request.urls.map((u) => new URL(u).hostname))] }
        : {}),
      zeroDataRetention: request.zeroDataRetention ?? false,
      teamConcurrency: team.limits.maxConcurrency,
      apiKey: team.keyPrefix,
      ...(request.webhook ? { webhook: request.webhook } : {}),
      ...(request.model ? { model: request.model } : {}),
      ...(request.effort ? { effort: request.effort } : {}),
      ...(request.origin ? { origin: request.origin } : {}),
      ...(request.integration ? { integration: request.integration } : {}),
      ...(request.threadId ? { threadId: request.threadId } : {}),
      mode: request.mode ?? 'extract',
    });
    await this.activity.execute({
      team,
      endpoint: 'agent',
      id,
      target: request.zeroDataRetention ? null : (urls[0] ?? null),
      createdAt,
    });
    return { success: true, id, ...(threadId ? { threadId, threadTurn } : {}) };
  }

  async agentStatus(team: AuthenticatedTeam, id: string): Promise<AgentStatusResponse> {
    const r = await this.read(team, id);
    if (r.kind !== 'agent') throw new ServiceError(ErrorCode.NOT_FOUND, 'Agent job not found');
    return {
      success: true,
      id,
      // Never `cancelled` (firecrawl-py refuses it): the batch service reads a cancelled job as failed.
      status: r.status === 'cancelled' ? 'failed' : r.status,
      ...(r.status === 'completed' ? { data: r.data } : {}),
      ...(r.error ? { error: r.error } : {}),
      ...(r.stopReason ? { stopReason: r.stopReason } : {}),
      expiresAt: r.expiresAt,
      creditsUsed: r.creditsUsed,
      tokensUsed: r.tokensUsed,
      ...(r.steps ? { steps: r.steps } : {}),
      ...(r.finalUrl ? { finalUrl: r.finalUrl } : {}),
      ...(r.threadId ? { threadId: r.threadId, threadTurn: r.threadTurn } : {}),
      ...(r.mode ? { mode: r.mode } : {}),
      ...(r.message !== undefined ? { message: r.message } : {}),
    };
  }

  /** GET /v2/agent/threads/{threadId}. */
  async agentThread(
    team: AuthenticatedTeam,
    threadId: string,
    includeData: boolean,
  ): Promise<AgentThreadResponse> {
    const thread = await this.messaging.request(EXTRACT_RPC.agentThread, {
      teamId: team.teamId,
      threadId,
      includeData,
    });
    return { success: true, thread };
  }

  /** GET /v2/agent: the team's agent jobs, newest first; `next` while there are more. */
  async listAgents(team: AuthenticatedTeam, query: AgentListQuery, base: string): Promise<AgentListResponse> {
    const page = await this.messaging.request(EXTRACT_RPC.agentList, {
      teamId: team.teamId,
      ...(query.before !== undefined ? { before: query.before } : {}),
      limit: AGENT_LIST_PAGE,
    });
    return {
      success: true,
      agents: page.agents.map((a) => ({
        id: a.id,
        createdAt: a.createdAt,
        targetHint: targetHint(a.urls, a.prompt),
        origin: a.origin ?? 'api',
        ...(a.integration ? { integration: a.integration } : {}),
        settings: { hidden: false, starred: false },
        status: a.status,
        options: {
          ...(a.urls.length > 0 ? { urls: a.urls } : {}),
          prompt: a.prompt,
          ...(a.schema ? { schema: a.schema } : {}),
          model: a.model ?? 'default',
          ...(a.effort ? { effort: a.effort } : {}),
        },
      })),
      ...(page.nextBefore !== undefined ? { next: `${base}/v2/agent?before=${page.nextBefore}` } : {}),
    };
  }

  /**
   * GET /v2/agent/{id}/trace. With `liveView`, `activeBrowserSessions` names the live view of the
   * run in progress (asked of its replica once the job is known to be the team's), else none.
   */
  async agentTrace(
    team: AuthenticatedTeam,
    id: string,
    liveView: boolean,
    base: string,
  ): Promise<AgentTraceResponse> {
    const trace = await this.messaging.request(EXTRACT_RPC.agentTrace, { teamId: team.teamId, jobId: id });
    const view = liveView && trace.running ? await agentView(this.messaging, id) : undefined;
    return {
      success: true,
      id,
      events: trace.events as unknown as AgentTraceEvent[],
      creditsUsed: trace.creditsUsed,
      ...(liveView
        ? {
            activeBrowserSessions: view
              ? [{ id, liveViewUrl: `${base}/v2/agent/${id}/live/${view.token}`, viewport: view.viewport }]
              : [],
          }
        : {}),
    };
  }

  /** GET /v2/agent/{id}/snapshots/{snapshotId}. */
  async agentSnapshot(
    team: AuthenticatedTeam,
    id: string,
    snapshotId: string,
  ): Promise<AgentSnapshotResponse> {
    const r = await this.messaging.request(EXTRACT_RPC.agentSnapshot, {
      teamId: team.teamId,
      jobId: id,
      snapshotId,
    });
    return { success: true, id, snapshotId, snapshot: r.snapshot };
  }

  async cancelAgent(team: AuthenticatedTeam, id: string): Promise<AgentCancelResponse> {
    await this.messaging.request(EXTRACT_RPC.agentCancel, { teamId: team.teamId, jobId: id });
    return { success: true };
  }

  private async read(team: AuthenticatedTeam, id: string): Promise<ExtractJobReply> {
    return this.messaging.request(EXTRACT_RPC.status, { teamId: team.teamId, jobId: id });
  }
}

/** What a listed agent job is about: the host of its first URL, else the start of its prompt. */
function targetHint(urls: readonly string[], prompt: string): string {
  if (urls[0]) {
    try {
      return new URL(urls[0]).hostname;
    } catch {
      return urls[0];
    }
  }
  const line = prompt.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
