import { Controller, Get, Inject, Res } from '@nestjs/common';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import type { FastifyReply } from 'fastify';

const PING_TIMEOUT_MS = 3000;

export interface ReadinessBody {
  status: 'ready' | 'unavailable';
  checks: { nats: 'up' | 'down'; postgres: 'up' | 'down' };
  down: string[];
}

/** Kubernetes probes: liveness = the process answers; readiness = NATS and PostgreSQL both reachable. */
@Controller('health')
export class HealthController {
  constructor(
    @Inject(Messaging) private readonly messaging: Messaging,
    @Inject(Database) private readonly database: Database,
  ) {}

  @Get('live')
  live(): { status: 'live' } {
    return { status: 'live' };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) res: FastifyReply): Promise<ReadinessBody> {
    const [nats, postgres] = await Promise.all([
      Promise.resolve(this.messaging.isConnected()),
      withTimeout(this.database.ping(), PING_TIMEOUT_MS).then(
        () => true,
        () => false,
      ),
    ]);
    const checks = { nats: up(nats), postgres: up(postgres) } as const;
    const down = Object.entries(checks)
      .filter(([, v]) => v === 'down')
      .map(([k]) => k);
    if (down.length) void res.code(503);
    return { status: down.length ? 'unavailable' : 'ready', checks, down };
  }
}

function up(ok: boolean): 'up' | 'down' {
  return ok ? 'up' : 'down';
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
