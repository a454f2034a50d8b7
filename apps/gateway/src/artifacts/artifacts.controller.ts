import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CapabilityRoute } from '../auth/public-route';
import { requireTeam } from '../http/request-context';
import { GetArtifactUseCase } from './get-artifact.usecase';

@Controller('v2/artifacts')
export class ArtifactsController {
  constructor(private readonly getArtifact: GetArtifactUseCase) {}

  /** With `expires` and `signature` (the URLs in documents): no API key needed; without: the owning team's key. */
  @Get(':id')
  @CapabilityRoute()
  async get(
    @Req() req: FastifyRequest,
    @Param() params: unknown,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const signed = typeof query.signature === 'string';
    const artifact = signed
      ? await this.getArtifact.bySignature(params, query)
      : await this.getArtifact.execute(requireTeam(req), params);
    void reply.header('content-type', artifact.contentType);
    // Private content: shared caches must not keep it (a signed URL is a bearer credential).
    void reply.header('cache-control', 'private, max-age=3600');
    void reply.header('x-content-type-options', 'nosniff');
    return Buffer.from(artifact.data);
  }
}
