import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import type { FastifyRequest } from 'fastify';
import type { UsageIdentity } from '../credits/credits.service';
import type { AuthenticatedTeam } from '../teams/team';

/** Per-request state the gateway attaches to Fastify requests. */
interface GatewayRequestState {
  requestId: string;
  team?: AuthenticatedTeam;
  /** The request's concurrency lease (TeamLimitsInterceptor). */
  concurrencyLease?: string;
}

const STATE = new WeakMap<object, GatewayRequestState>();

/** Keyed by the raw IncomingMessage, which Fastify hooks and Nest handlers share. */
export function setRequestId(req: FastifyRequest, requestId: string): void {
  STATE.set(req.raw, { ...STATE.get(req.raw), requestId });
}

export function requestIdOf(req: FastifyRequest): string | undefined {
  return STATE.get(req.raw)?.requestId;
}

export function setTeam(req: FastifyRequest, team: AuthenticatedTeam): void {
  const state = STATE.get(req.raw) ?? { requestId: '' };
  STATE.set(req.raw, { ...state, team });
}

export function teamOf(req: FastifyRequest): AuthenticatedTeam | undefined {
  return STATE.get(req.raw)?.team;
}

export function setConcurrencyLease(req: FastifyRequest, leaseId: string): void {
  const state = STATE.get(req.raw) ?? { requestId: '' };
  STATE.set(req.raw, { ...state, concurrencyLease: leaseId });
}

/** The concurrency lease the request holds while it runs (a browser session takes over its slot). */
export function concurrencyLeaseOf(req: FastifyRequest): string | undefined {
  return STATE.get(req.raw)?.concurrencyLease;
}

/** The authenticated team; only valid behind the API key guard. */
export function requireTeam(req: FastifyRequest): AuthenticatedTeam {
  const team = teamOf(req);
  if (!team) throw new ServiceError(ErrorCode.UNAUTHORIZED, 'Unauthorized: missing API key');
  return team;
}

/** `@CurrentTeam() team: AuthenticatedTeam` in controllers behind the API key guard. */
export const CurrentTeam = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  requireTeam(ctx.switchToHttp().getRequest<FastifyRequest>()),
);

/** `@RequestId() id: string`: the sanitised X-Request-Id echoed on the response. */
export const RequestId = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext) =>
    requestIdOf(ctx.switchToHttp().getRequest<FastifyRequest>()) ?? '',
);

/** The usage identity of a billable request: its Idempotency-Key header (first value) and request id. */
export function usageIdentityOf(req: FastifyRequest): UsageIdentity {
  const header = req.headers['idempotency-key'];
  return {
    idempotencyKey: Array.isArray(header) ? header[0] : header,
    requestId: requestIdOf(req),
  };
}

/** `@Usage() usage: UsageIdentity`: what keys the request's credit usage (see CreditsService.requestKey). */
export const Usage = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  usageIdentityOf(ctx.switchToHttp().getRequest<FastifyRequest>()),
);

/** `@RequestOrigin() origin: string`: `<protocol>://<host>` the client addressed (for links in answers). */
export const RequestOrigin = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const req = ctx.switchToHttp().getRequest<FastifyRequest>();
  return `${req.protocol}://${req.host}`;
});
