import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { setTeam } from '../http/request-context';
import { bearerToken } from './api-key';
import { AuthenticateApiKey } from './authenticate-api-key.usecase';
import { CAPABILITY_ROUTE, PUBLIC_ROUTE, isApiKeyRoute } from './public-route';

/**
 * Global guard: every /v2 route requires `Authorization: Bearer <API key>`, so a new controller
 * cannot forget it. The team is attached to the request for `@CurrentTeam()`.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticate: AuthenticateApiKey,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    if (!isApiKeyRoute(req.routeOptions.url ?? req.url)) return true;
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [ctx.getHandler(), ctx.getClass()]))
      return true;
    if (
      this.reflector.getAllAndOverride<boolean>(CAPABILITY_ROUTE, [ctx.getHandler(), ctx.getClass()]) &&
      typeof (req.query as Record<string, unknown> | undefined)?.signature === 'string'
    )
      return true;
    setTeam(req, await this.authenticate.execute(bearerToken(req.headers.authorization)));
    return true;
  }
}
