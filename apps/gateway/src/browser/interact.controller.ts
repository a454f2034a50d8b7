import { Body, Controller, Delete, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import {
  ErrorCode,
  InteractParams,
  InteractRequest,
  ServiceError,
  type BrowserSessionRecord,
  type CodeLanguage,
  type InteractResult,
  type InteractStopResponse,
} from '@wds/contracts';
import { ScrapeClient } from '@wds/jobs';
import { APP_CONFIG } from '@wds/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../teams/team';
import type { GatewayConfig } from '../config';
import { RecordCallActivity } from '../credits/call-activity';
import { concurrencyLeaseOf, CurrentTeam } from '../http/request-context';
import { SessionSlotRoute } from '../limits/session-slot-route';
import { validate } from '../http/validate';
import { publicBaseUrl } from '../jobs/public-url';
import { BrowserSessions, gone } from './browser-sessions.service';
import { executeResult, promptResult } from './execute-result';
import { cdpUrl, liveViewUrls, playlistUrl } from './session-urls';

/**
 * Interact on a scrape: the first call creates a session at the scrape's page state (replay), later
 * calls reuse it, and after it ended every call is 410 (the state table of api-v2.md).
 */
@Controller('v2/scrape/:jobId/interact')
export class InteractController {
  constructor(
    private readonly sessions: BrowserSessions,
    private readonly scraper: ScrapeClient,
    private readonly activity: RecordCallActivity,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(200)
  async interact(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Body() body: unknown,
  ): Promise<InteractResult> {
    const { jobId } = validate(InteractParams, params, 'path');
    const run = validate(InteractRequest, body, 'body');
    // Refused before a session is created (and billed) when no model can run the agent.
    if (run.prompt !== undefined && !this.config.WDS_LLM_BASE_URL) {
      throw new ServiceError(
        ErrorCode.BAD_REQUEST,
        'prompt: the browser agent needs an LLM, and no LLM provider is configured on this service (WDS_LLM_BASE_URL); send code instead',
        { field: 'prompt' },
      );
    }
    const { session, recorded } = await this.sessionFor(
      team,
      concurrencyLeaseOf(req),
      jobId,
      run.ttl ?? 600,
      run.activityTtl ?? 300,
      run.prompt === undefined ? run.language : undefined,
    );
    const base = publicBaseUrl(this.config.WDS_PUBLIC_BASE_URL, req);
    const urls = {
      sessionId: session.id,
      cdpUrl: cdpUrl(base, session),
      ...liveViewUrls(base, session),
      ...playlistUrl(base, session),
    };
    // The new session's activity record is written while its first call runs (not before it).
    try {
      if (run.prompt !== undefined) {
        const reply = await this.sessions.prompt(team, session, run.prompt, run.timeout);
        return { ...promptResult(reply), ...urls };
      }
      const reply = await this.sessions.execute(team.teamId, session, run.code!, run.language, run.timeout);
      return { ...executeResult(reply, run.language), ...urls };
    } finally {
      await recorded;
    }
  }

  @Delete()
  @SessionSlotRoute()
  async stop(
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
  ): Promise<InteractStopResponse> {
    const { jobId } = validate(InteractParams, params, 'path');
    const session = await this.sessions.lookup(team.teamId, { scrapeJobId: jobId }).catch((err: unknown) => {
      if (err instanceof ServiceError && err.code === ErrorCode.NOT_FOUND)
        throw new ServiceError(ErrorCode.NOT_FOUND, 'No browser session found for this scrape job');
      throw err;
    });
    const { session: ended } = await this.sessions.delete(team.teamId, session);
    return {
      success: true,
      sessionDurationMs: ended.durationMs ?? 0,
      creditsBilled: ended.creditsBilled ?? 0,
    };
  }

  /**
   * The scrape's session: existing (active, or 410 once ended) or created now from its replay
   * context; `recorded` settles once a new session's call activity is written (it never rejects).
   */
  private async sessionFor(
    team: AuthenticatedTeam,
    requestLease: string | undefined,
    jobId: string,
    ttl: number,
    activityTtl: number,
    runtime: CodeLanguage | undefined,
  ): Promise<{ session: BrowserSessionRecord; recorded: Promise<void> }> {
    const existing = await this.find(team.teamId, jobId);
    if (existing) {
      if (existing.status === 'destroyed') throw gone();
      return { session: existing, recorded: Promise.resolve() };
    }
    const request = {
      teamId: team.teamId,
      ttl,
      activityTtl,
      streamWebView: true,
      ...this.sessions.limits(team, requestLease),
      scrapeJobId: jobId,
      runtime,
    };
    const createdAt = Date.now();
    // RecordCallActivity logs its own failures: the promise never rejects.
    const recorded = (session: BrowserSessionRecord) => ({
      session,
      recorded: this.activity.execute({
        team,
        endpoint: 'interact',
        id: session.id,
        target: null,
        createdAt,
      }),
    });
    try {
      return recorded(await this.sessions.create(request));
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      // Two first calls at once: the other one created it.
      if (err.code === ErrorCode.CONFLICT && /already has a browser session/.test(err.message)) {
        const raced = await this.find(team.teamId, jobId);
        if (raced?.status === 'active') return { session: raced, recorded: Promise.resolve() };
        if (raced) throw gone();
      }
      if (err.code !== ErrorCode.NOT_FOUND) throw err;
    }
    // No replay context: a scrape the fetch engine served (nothing to replay but its URL), one
    // that is unknown (404), another team's (403), or one whose data is gone (409).
    const url = await this.scrapedUrl(team.teamId, jobId);
    return recorded(await this.sessions.create({ ...request, fallbackUrl: url }));
  }

  private async find(teamId: string, jobId: string): Promise<BrowserSessionRecord | undefined> {
    try {
      return await this.sessions.lookup(teamId, { scrapeJobId: jobId });
    } catch (err) {
      if (err instanceof ServiceError && err.code === ErrorCode.NOT_FOUND) return undefined;
      if (err instanceof ServiceError && err.code === ErrorCode.FORBIDDEN)
        throw new ServiceError(ErrorCode.FORBIDDEN, 'This scrape job belongs to another team');
      throw err;
    }
  }

  private async scrapedUrl(teamId: string, jobId: string): Promise<string> {
    let reply;
    try {
      reply = await this.scraper.get(teamId, jobId);
    } catch (err) {
      if (err instanceof ServiceError && err.code === ErrorCode.NOT_FOUND)
        throw new ServiceError(ErrorCode.NOT_FOUND, 'Job not found.');
      throw err;
    }
    const doc = await this.scraper.document(teamId, reply);
    const url = doc.metadata?.url ?? doc.metadata?.sourceURL;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      throw new ServiceError(
        ErrorCode.CONFLICT,
        'The replay context of this scrape is unavailable; rerun the scrape and try again',
      );
    }
    return url;
  }
}
