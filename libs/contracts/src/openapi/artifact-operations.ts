import { z } from 'zod';
import type { OperationDef } from './operations';

/** Path of GET /v2/artifacts/{id}: the id inside a screenshot or PDF URL of a scrape. */
export const ArtifactIdParams = z.object({
  id: z.uuid().describe('Artifact id (from a screenshot or PDF URL)'),
});

/** Screenshots and PDFs of browser scrapes (the URLs in `screenshot`, `actions.screenshots`, `actions.pdfs`). */
export const ARTIFACT_OPERATIONS: readonly OperationDef[] = [
  {
    method: 'get',
    path: '/v2/artifacts/{id}',
    operationId: 'getArtifact',
    summary: "Download a screenshot or PDF of one of the team's browser scrapes",
    tag: 'Scraping',
    security: 'apiKey',
    pathParams: ArtifactIdParams,
    success: {
      status: 200,
      description: 'The image or document; kept for WDS_ARTIFACT_TTL_HOURS after the scrape',
      binary: ['image/png', 'image/jpeg', 'application/pdf'],
    },
    errors: [400, 403, 404],
  },
];
