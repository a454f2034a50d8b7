import { z } from 'zod';
import type { OperationDef } from './operations';

/** Path of GET /v2/artifacts/{id}: the id inside a screenshot, PDF, audio or video URL of a scrape. */
export const ArtifactIdParams = z.object({
  id: z.uuid().describe('Artifact id (from a screenshot, PDF, audio or video URL)'),
});

/**
 * Screenshots and PDFs of browser scrapes (the URLs in `screenshot`, `actions.screenshots`,
 * `actions.pdfs`) and the files of the `audio` (MP3) and `video` formats.
 */
export const ARTIFACT_OPERATIONS: readonly OperationDef[] = [
  {
    method: 'get',
    path: '/v2/artifacts/{id}',
    operationId: 'getArtifact',
    summary: "Download a screenshot, PDF, audio or video file of one of the team's scrapes",
    tag: 'Scraping',
    security: 'apiKey',
    pathParams: ArtifactIdParams,
    success: {
      status: 200,
      description: 'The image or document; kept for WDS_ARTIFACT_TTL_HOURS after the scrape',
      binary: ['image/png', 'image/jpeg', 'application/pdf', 'audio/mpeg', 'video/mp4', 'video/webm'],
    },
    errors: [400, 403, 404],
  },
];
