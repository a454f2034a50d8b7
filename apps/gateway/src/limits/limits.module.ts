import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ConcurrencyLimiter } from './concurrency-limiter';
import { LimitsHousekeeping } from './limits-housekeeping';
import { TeamLimitsInterceptor } from './team-limits.interceptor';
import { TeamRateLimiter } from './team-rate-limiter';

@Module({
  providers: [
    TeamRateLimiter,
    ConcurrencyLimiter,
    LimitsHousekeeping,
    { provide: APP_INTERCEPTOR, useClass: TeamLimitsInterceptor },
  ],
  exports: [ConcurrencyLimiter],
})
export class LimitsModule {}
