import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import type { FastifyRequest } from 'fastify';
import { defer, finalize, from, switchMap, type Observable } from 'rxjs';
import { teamOf } from '../http/request-context';
import { ConcurrencyLimiter } from './concurrency-limiter';
import { TeamRateLimiter } from './team-rate-limiter';

/** Seconds a client is told to wait when all its concurrency slots are busy. */
const CONCURRENCY_RETRY_AFTER_SECONDS = 1;

/**
 * Global interceptor for authenticated requests: the team's requests-per-minute budget, then one
 * of its concurrency slots, held until the handler's answer is complete (or failed).
 */
@Injectable()
export class TeamLimitsInterceptor implements NestInterceptor {
  constructor(
    private readonly rate: TeamRateLimiter,
    private readonly concurrency: ConcurrencyLimiter,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const team = teamOf(ctx.switchToHttp().getRequest<FastifyRequest>());
    if (!team) return next.handle();

    return from(this.admit(team.teamId, team.limits.requestsPerMinute, team.limits.maxConcurrency)).pipe(
      switchMap((leaseId) =>
        defer(() => next.handle()).pipe(
          finalize(() => {
            this.concurrency
              .release(leaseId)
              .catch((err: unknown) =>
                this.logger.warn({ err, leaseId }, 'could not release concurrency lease'),
              );
          }),
        ),
      ),
    );
  }

  private async admit(teamId: string, perMinute: number, maxConcurrency: number): Promise<string> {
    const rate = await this.rate.consume(teamId, perMinute);
    if (!rate.allowed) {
      throw new ServiceError(
        ErrorCode.RATE_LIMITED,
        `Rate limit exceeded: ${perMinute} requests per minute; retry after ${rate.retryAfterSeconds} s`,
        undefined,
        rate.retryAfterSeconds,
      );
    }
    const lease = await this.concurrency.acquire(teamId, maxConcurrency);
    if (!lease) {
      throw new ServiceError(
        ErrorCode.CONCURRENCY_LIMITED,
        `Concurrency limit reached: at most ${maxConcurrency} requests in flight`,
        undefined,
        CONCURRENCY_RETRY_AFTER_SECONDS,
      );
    }
    return lease;
  }
}
