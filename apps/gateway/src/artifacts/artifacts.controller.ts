import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { CurrentTeam } from '../http/request-context';
import { GetArtifactUseCase } from './get-artifact.usecase';

@Controller('v2/artifacts')
export class ArtifactsController {
  constructor(private readonly getArtifact: GetArtifactUseCase) {}

  @Get(':id')
  async get(
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const artifact = await this.getArtifact.execute(team, params);
    void reply.header('content-type', artifact.contentType);
    // Team-private content: shared caches must not keep it.
    void reply.header('cache-control', 'private, max-age=3600');
    return Buffer.from(artifact.data);
  }
}
