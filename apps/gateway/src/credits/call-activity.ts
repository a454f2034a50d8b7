import { Inject, Injectable } from '@nestjs/common';
import type { ActivityEndpoint } from '@wds/contracts';
import { recordActivity } from '@wds/credits';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import type { AuthenticatedTeam } from '../teams/team';

export interface CallActivity {
  team: AuthenticatedTeam;
  endpoint: ActivityEndpoint;
  /** The job id the call created (or a fresh id for a call without a job, such as a map). */
  id: string;
  /** The URL or query; pass null for zero-data-retention calls (never stored). */
  target: string | null;
  /** When the call was made (ms since the epoch). */
  createdAt: number;
}

/**
 * Records a crawl, batch or map call as team activity (billing records it from the activity
 * stream; a scrape's record is published by the scraper with its job row instead). Awaited before
 * the answer, so an answered call is on record; a failure to publish is logged and does not fail
 * the call, whose job already exists (failing it would invite a retry that starts a second job).
 */
@Injectable()
export class RecordCallActivity {
  constructor(
    private readonly messaging: Messaging,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(call: CallActivity): Promise<void> {
    try {
      await recordActivity(this.messaging, {
        eventId: `${call.endpoint}:${call.id}`,
        teamId: call.team.teamId,
        id: call.id,
        endpoint: call.endpoint,
        createdAt: call.createdAt,
        target: call.target,
        apiKey: call.team.keyPrefix,
        credits: 0,
      });
    } catch (err) {
      this.logger.error(
        { err, endpoint: call.endpoint, id: call.id },
        'could not record the call as team activity',
      );
    }
  }
}
