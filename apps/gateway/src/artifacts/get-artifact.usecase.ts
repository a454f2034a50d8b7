import { Inject, Injectable } from '@nestjs/common';
import { checkArtifactSignature, ServiceError } from '@wds/contracts';
import { APP_CONFIG } from '@wds/service-kit';
import { z } from 'zod';
import type { AuthenticatedTeam } from '../teams/team';
import type { GatewayConfig } from '../config';
import { validate } from '../http/validate';
import { ArtifactReader, type StoredArtifact } from './artifact-reader';

const ArtifactParams = z.object({ id: z.uuid() });
const SignedQuery = z.object({ expires: z.string().max(20), signature: z.string().max(200) });

/** Kinds clients may download; rendered content is internal to the scraper. */
const PUBLIC_KINDS = new Set(['screenshot', 'pdf', 'audio', 'video']);

/**
 * GET /v2/artifacts/{id}: a screenshot, PDF, audio or video of one of the team's scrapes (another
 * team's: 403), or of any team's when the request carries a valid capability signature (the URL
 * in the document). Artifacts stay stored per team and expire with their retention either way.
 */
@Injectable()
export class GetArtifactUseCase {
  constructor(
    private readonly artifacts: ArtifactReader,
    @Inject(APP_CONFIG) private readonly config: Pick<GatewayConfig, 'WDS_ARTIFACT_URL_SECRET'>,
  ) {}

  async execute(team: AuthenticatedTeam, params: unknown): Promise<StoredArtifact> {
    const { id } = validate(ArtifactParams, params, 'path');
    const artifact = await this.find(id);
    if (artifact.meta.teamId !== team.teamId) {
      throw new ServiceError('FORBIDDEN', 'This artifact belongs to another team');
    }
    return artifact;
  }

  async bySignature(params: unknown, query: unknown): Promise<StoredArtifact> {
    const { id } = validate(ArtifactParams, params, 'path');
    const { expires, signature } = validate(SignedQuery, query, 'query');
    const secret = this.config.WDS_ARTIFACT_URL_SECRET;
    if (secret === undefined) {
      throw new ServiceError('UNAUTHORIZED', 'Signed artifact URLs are not enabled here: send the API key');
    }
    const check = checkArtifactSignature(secret, id, expires, signature);
    if (check === 'expired') throw new ServiceError('FORBIDDEN', 'This artifact URL has expired');
    if (check === 'invalid') throw new ServiceError('FORBIDDEN', 'Invalid artifact URL signature');
    return this.find(id);
  }

  private async find(id: string): Promise<StoredArtifact> {
    const artifact = await this.artifacts.read(id);
    if (!artifact || !PUBLIC_KINDS.has(artifact.meta.kind)) {
      throw new ServiceError('NOT_FOUND', 'Artifact not found (unknown or expired)');
    }
    return artifact;
  }
}
