import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import type { Logger } from '@wds/observability';
import { Reflector } from '@nestjs/core';
import { LOGGER } from '@wds/service-kit';
import type { FastifyRequest } from 'fastify';
import {
  catchError,
  concatMap,
  defer,
  finalize,
  from,
  map,
  switchMap,
  throwError,
  type Observable,
} from 'rxjs';
import { setConcurrencyLease, teamOf } from '../http/request-context';
import { ConcurrencyLimiter } from './concurrency-limiter';
import { SESSION_SLOT_ROUTE } from './session-slot-route';
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
    private readonly reflector: Reflector,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    const team = teamOf(req);
    if (!team) return next.handle();
    if (this.reflector.getAllAndOverride<boolean>(SESSION_SLOT_ROUTE, [ctx.getHandler(), ctx.getClass()])) {
      return from(this.consumeRate(team.teamId, team.limits.requestsPerMinute)).pipe(
        switchMap(() => next.handle()),
      );
    }

    return from(this.admit(team.teamId, team.limits.requestsPerMinute, team.limits.maxConcurrency)).pipe(
      switchMap((leaseId) => {
        setConcurrencyLease(req, leaseId);
        // The slot is given back before the answer is written, so a client's next request (or its
        // queue-status call) never sees the previous one still in flight; when the answer never
        // comes (the client went away), as the handler ends.
        let released: Promise<void> | undefined;
        const release = () =>
          (released ??= this.concurrency
            .release(leaseId)
            .catch((err: unknown) =>
              this.logger.warn({ err, leaseId }, 'could not release concurrency lease'),
            ));
        return defer(() => next.handle()).pipe(
          concatMap((value) => from(release()).pipe(map(() => value))),
          catchError((err: unknown) => from(release()).pipe(switchMap(() => throwError(() => err)))),
          finalize(() => void release()),
        );
      }),
    );
  }

  private async admit(teamId: string, perMinute: number, maxConcurrency: number): Promise<string> {
    await this.consumeRate(teamId, perMinute);
    const lease = await this.concurrency.acquire(teamId, maxConcurrency);
    if (!lease) {
      throw new ServiceError(
        ErrorCode.CONCURRENCY_LIMITED,
        `Concurrency limit reached: at most ${maxConcurrency} requests in flight (active browser sessions count)`,
        undefined,
        CONCURRENCY_RETRY_AFTER_SECONDS,
      );
    }
    return lease;
  }

  private async consumeRate(teamId: string, perMinute: number): Promise<void> {
    const rate = await this.rate.consume(teamId, perMinute);
    if (!rate.allowed) {
      throw new ServiceError(
        ErrorCode.RATE_LIMITED,
        `Rate limit exceeded: ${perMinute} requests per minute; retry after ${rate.retryAfterSeconds} s`,
        undefined,
        rate.retryAfterSeconds,
      );
    }
  }
}
