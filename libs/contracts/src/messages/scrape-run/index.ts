import { z } from 'zod';
import { ScrapeRequest } from '../../api/scrape/scrape-request';
import { EXACTLY_ONE_DOCUMENT, documentOrRefShape, hasExactlyOneDocument } from '../scrape-document';

/** Scrape one page now; used by the gateway (POST /v2/scrape) and by crawl/batch page workers. */
export const ScrapeRunRequest = z.object({
  teamId: z.string().min(1),
  requestId: z.string().min(1),
  jobId: z.uuid(),
  /** The already-validated public request; parsing it again is idempotent. */
  options: ScrapeRequest,
  zeroDataRetention: z.boolean().optional(),
  /** W3C trace context of the caller, for services that cannot use message headers. */
  traceparent: z.string().optional(),
});
export type ScrapeRunRequest = z.output<typeof ScrapeRunRequest>;
export type ScrapeRunRequestInput = z.input<typeof ScrapeRunRequest>;

/** The document inline, or a reference to read with RPC.scrapeDocumentChunk when it is too large. */
export const ScrapeRunReply = z
  .object({ ...documentOrRefShape, creditsUsed: z.number().min(0), cacheHit: z.boolean().optional() })
  .refine(hasExactlyOneDocument, EXACTLY_ONE_DOCUMENT);
export type ScrapeRunReply = z.output<typeof ScrapeRunReply>;
