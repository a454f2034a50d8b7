import { z } from 'zod';
import { EXACTLY_ONE_DOCUMENT, documentOrRefShape, hasExactlyOneDocument } from '../scrape-document';

/** Read a stored scrape result (GET /v2/scrape/{id}); only the owning team gets it. */
export const ScrapeGetRequest = z.object({ teamId: z.string().min(1), jobId: z.uuid() });
export type ScrapeGetRequest = z.output<typeof ScrapeGetRequest>;

/** The stored document inline, or a reference to read with RPC.scrapeDocumentChunk. */
export const ScrapeGetReply = z
  .object(documentOrRefShape)
  .refine(hasExactlyOneDocument, EXACTLY_ONE_DOCUMENT);
export type ScrapeGetReply = z.output<typeof ScrapeGetReply>;
