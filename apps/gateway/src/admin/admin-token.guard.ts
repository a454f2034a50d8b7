import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { APP_CONFIG } from '@wds/service-kit';
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/api-key';
import type { GatewayConfig } from '../config';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * The admin API exists only when WDS_ADMIN_TOKEN is set (404 otherwise). Missing credentials are
 * 401; any other bearer value, API keys included, is 403. Digests make the comparison constant-time
 * whatever the presented length.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(@Inject(APP_CONFIG) config: GatewayConfig) {
    this.expected = config.WDS_ADMIN_TOKEN === undefined ? undefined : digest(config.WDS_ADMIN_TOKEN);
  }

  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    if (!this.expected)
      throw new ServiceError(ErrorCode.NOT_FOUND, `Cannot ${req.method} ${req.url.split('?')[0]}`);
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) {
      throw new ServiceError(
        ErrorCode.UNAUTHORIZED,
        'Unauthorized: admin token required (Authorization: Bearer <WDS_ADMIN_TOKEN>)',
      );
    }
    if (!timingSafeEqual(digest(token), this.expected)) {
      throw new ServiceError(ErrorCode.FORBIDDEN, 'Forbidden: not the admin token');
    }
    return true;
  }
}
