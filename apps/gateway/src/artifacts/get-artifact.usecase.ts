import { Injectable } from '@nestjs/common';
import { ServiceError } from '@wds/contracts';
import { z } from 'zod';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { validate } from '../http/validate';
import { ArtifactReader, type StoredArtifact } from './artifact-reader';

const ArtifactParams = z.object({ id: z.uuid() });

/** Kinds clients may download; rendered content is internal to the scraper. */
const PUBLIC_KINDS = new Set(['screenshot', 'pdf', 'audio', 'video']);

/** GET /v2/artifacts/{id}: a screenshot, PDF, audio or video of one of the team's scrapes (another team's: 403). */
@Injectable()
export class GetArtifactUseCase {
  constructor(private readonly artifacts: ArtifactReader) {}

  async execute(team: AuthenticatedTeam, params: unknown): Promise<StoredArtifact> {
    const { id } = validate(ArtifactParams, params, 'path');
    const artifact = await this.artifacts.read(id);
    if (!artifact || !PUBLIC_KINDS.has(artifact.meta.kind)) {
      throw new ServiceError('NOT_FOUND', 'Artifact not found (unknown or expired)');
    }
    if (artifact.meta.teamId !== team.teamId) {
      throw new ServiceError('FORBIDDEN', 'This artifact belongs to another team');
    }
    return artifact;
  }
}
