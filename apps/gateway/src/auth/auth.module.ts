import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { APP_CONFIG } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { TeamsModule } from '../teams/teams.module';
import { ApiKeyGuard } from './api-key.guard';
import { AuthCache } from './auth-cache';
import { AuthInvalidation } from './auth-invalidation';
import { AuthenticateApiKey } from './authenticate-api-key.usecase';

@Module({
  imports: [TeamsModule],
  providers: [
    {
      provide: AuthCache,
      inject: [APP_CONFIG],
      useFactory: (config: GatewayConfig) => new AuthCache(config.WDS_AUTH_CACHE_TTL_MS),
    },
    AuthenticateApiKey,
    AuthInvalidation,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
  exports: [AuthInvalidation, AuthenticateApiKey],
})
export class AuthModule {}
