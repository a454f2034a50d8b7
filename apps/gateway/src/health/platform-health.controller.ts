import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CheckPlatformHealth, type PlatformHealth } from './check-platform-health.usecase';

/** GET /health: 200 only when NATS, PostgreSQL and every service kind are up; 503 names what is missing. */
@Controller('health')
export class PlatformHealthController {
  constructor(private readonly check: CheckPlatformHealth) {}

  @Get()
  async health(@Res({ passthrough: true }) res: FastifyReply): Promise<PlatformHealth> {
    const health = await this.check.execute();
    void res.code(health.status === 'ok' ? 200 : 503);
    return health;
  }
}
