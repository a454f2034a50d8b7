import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  cacheHitMetadata,
  ErrorCode,
  readsScrapeCache,
  scrapeCacheKey,
  scrapeEstimate,
  ServiceError,
  unsupportedScrapeFeature,
  type ScrapeRequest,
  type ScrapeResponse,
} from '@wds/contracts';
import { creditsOwedByFailure, ScrapeClient } from '@wds/jobs';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import type { AuthenticatedTeam } from '../teams/team';
import { CreditsService, type UsageIdentity } from '../credits/credits.service';
import { assertTeamMay } from '../teams/assert-team-may';
import { HitRecorder } from './hit-recorder';
import { HotScrapeCache } from './hot-scrape-cache';

export interface ScrapePageCommand {
  team: AuthenticatedTeam;
  /** The validated body of POST /v2/scrape. */
  options: ScrapeRequest;
  /** What keys the request's credit usage (Idempotency-Key, request id). */
  usage: UsageIdentity;
}

/** An answer already serialised as JSON: a hot hit's large document is serialised once per copy. */
export class SerializedAnswer {
  constructor(readonly json: string) {}
}

/** POST /v2/scrape: authorise, hold credits, scrape through the scraper service (or a hot copy), settle. */
@Injectable()
export class ScrapePageUseCase {
  constructor(
    private readonly scraper: ScrapeClient,
    private readonly credits: CreditsService,
    private readonly hot: HotScrapeCache,
    private readonly recorder: HitRecorder,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute({ team, options, usage }: ScrapePageCommand): Promise<ScrapeResponse | SerializedAnswer> {
    // Browser features are decided by the scraper, which knows whether a browser-pool is deployed.
    const unsupported = unsupportedScrapeFeature(options, { browser: true, llm: true });
    if (unsupported) {
      throw new ServiceError(ErrorCode.BAD_REQUEST, unsupported.message, { field: unsupported.field });
    }
    assertTeamMay(team, options);
    const estimate = scrapeEstimate(options);
    const held = await this.credits.hold({
      usage,
      teamId: team.teamId,
      endpoint: 'scrape',
      estimate,
      apiKey: team.keyPrefix,
    });
    // Only requests the fetch engine alone serves: the scraper would refuse nothing else about them.
    const hotKey =
      this.hot.enabled && readsScrapeCache(options) && !unsupportedScrapeFeature(options)
        ? scrapeCacheKey(options)
        : undefined;
    if (hotKey !== undefined) {
      const answered = await this.fromHotCopy(team, hotKey, options.url, options.maxAge);
      if (answered) {
        this.credits.settle(held, answered.creditsUsed);
        return new SerializedAnswer(answered.json);
      }
    }
    let reply;
    try {
      reply = await this.scraper.run({
        teamId: team.teamId,
        requestId: usage.requestId ?? randomUUID(),
        jobId: randomUUID(),
        options,
        zeroDataRetention: options.zeroDataRetention,
        // The scraper records the call as team activity with its job row.
        activity: { apiKey: team.keyPrefix },
        usage: { endpoint: 'scrape', apiKey: team.keyPrefix },
      });
    } catch (err) {
      // Some failures are billable (a lockdown cache miss costs 1); the scraper says so in details.
      const owed = creditsOwedByFailure(err);
      if (owed > 0) this.credits.settle(held, owed);
      else this.credits.release(held);
      throw err;
    }
    // The scrape is done: its cost is charged even if reading a large document back fails.
    this.credits.settle(held, reply.creditsUsed);
    if (reply.cached && reply.document) {
      this.hot.remember(reply.cached, reply.document).catch((err: unknown) => {
        this.logger.warn({ err }, 'could not keep a hot copy of a cache entry');
      });
    }
    const document = await this.scraper.document(team.teamId, reply);
    return { success: true, data: document };
  }

  /**
   * A hit answered from this gateway's hot copy of the cache entry, once the hit is durably on its
   * way to become a job (so GET /v2/scrape/{id} returns it). Undefined when there is no usable copy
   * or it could not be recorded: the scrape then takes the ordinary path.
   */
  private async fromHotCopy(
    team: AuthenticatedTeam,
    key: string,
    url: string,
    maxAgeMs: number,
  ): Promise<{ json: string; creditsUsed: number } | undefined> {
    const entry = this.hot.get(key, maxAgeMs);
    if (!entry) return undefined;
    const jobId = randomUUID();
    const creditsUsed = entry.contentCredits;
    try {
      // The hit's record carries what its activity needs: no message of its own (ADR 0006).
      await this.recorder.record({
        teamId: team.teamId,
        jobId,
        url,
        fetchedAt: entry.fetchedAt,
        creditsUsed,
        statusCode: entry.document.metadata?.statusCode,
        documentGz: entry.documentGz,
        apiKey: team.keyPrefix,
        answeredAt: Date.now(),
      });
    } catch {
      // The ordinary path reports the platform's state (NATS down, ...) as it always does.
      return undefined;
    }
    const metadata = { ...entry.document.metadata, ...cacheHitMetadata(jobId, entry.fetchedAt, creditsUsed) };
    return { json: `${entry.answerPrefix}${JSON.stringify(metadata)}}}`, creditsUsed };
  }
}
