import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { PendingCreditGrants } from '../credits/pending-grants';
import { EnsureBootstrapTeam, GrantCreationCredits } from './ensure-bootstrap-team.usecase';

const GRANT_RETRY_MS = 2000;

/**
 * Runs the bootstrap at start-up. The team and key are created before the gateway serves; the
 * credit grant needs the billing service, which may start later, so it is retried in the
 * background until it succeeds (it is idempotent, so every start re-sends it safely). Until then
 * the grant is pending (`PendingCreditGrants`): a request of the bootstrap team that finds no
 * credits tries the grant at once and waits for it rather than answering 402.
 */
@Injectable()
export class BootstrapTeamInitializer implements OnApplicationBootstrap, OnApplicationShutdown {
  private retry?: NodeJS.Timeout;
  /** Settles `granted` when the gateway stops before billing confirmed the grant. */
  private giveUp?: () => void;
  private stopped = false;
  /** Settles when the creation credits are granted (tests and start-up logs wait on it). */
  granted: Promise<void> = Promise.resolve();

  constructor(
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
    private readonly ensureTeam: EnsureBootstrapTeam,
    private readonly grantCredits: GrantCreationCredits,
    private readonly pendingGrants: PendingCreditGrants,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const apiKey = this.config.WDS_BOOTSTRAP_API_KEY;
    if (!apiKey) return;
    const team = await this.ensureTeam.execute({
      apiKey,
      webhookSecret: this.config.WDS_BOOTSTRAP_WEBHOOK_SECRET,
    });
    this.logger.info(
      { teamId: team.teamId, keyPrefix: team.keyPrefix, created: team.created },
      'bootstrap team ready',
    );
    this.granted = this.grantUntilDone(team.teamId);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    this.giveUp?.();
  }

  private grantUntilDone(teamId: string): Promise<void> {
    let inFlight = false;
    let resolveDone!: () => void;
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    this.giveUp = resolveDone;
    const attempt = () => {
      if (this.retry) clearTimeout(this.retry);
      this.retry = undefined;
      if (this.stopped) return resolveDone();
      if (inFlight) return;
      inFlight = true;
      this.grantCredits.execute(teamId, this.config.WDS_BOOTSTRAP_CREDITS).then(
        () => {
          inFlight = false;
          resolveDone();
        },
        (err: unknown) => {
          inFlight = false;
          this.logger.warn(
            { err, teamId },
            'bootstrap credits not granted yet (billing unavailable?); retrying',
          );
          if (this.stopped) return resolveDone();
          this.retry = setTimeout(attempt, GRANT_RETRY_MS);
          this.retry.unref();
        },
      );
    };
    this.pendingGrants.track(teamId, { done, nudge: attempt });
    attempt();
    return done;
  }
}
