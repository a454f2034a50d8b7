import { z } from 'zod';
import { Document } from './document';

/** POST /v2/scrape and GET /v2/scrape/{id} answer. */
export const ScrapeResponse = z.object({
  success: z.literal(true),
  data: Document,
  warning: z.string().optional(),
});
export type ScrapeResponse = z.output<typeof ScrapeResponse>;

export const ScrapeIdParams = z.object({ id: z.uuid().describe('Scrape job id') });
export type ScrapeIdParams = z.output<typeof ScrapeIdParams>;
