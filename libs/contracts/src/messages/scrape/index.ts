import { RPC } from '../catalogue';
import { ScrapeGetReply } from '../scrape-get';
import { ScrapeRunReply } from '../scrape-run';

export * from './features';
export * from '../scrape-document';

/** Former names of the scrape replies, kept for code written against them. */
export const ScrapeResultReply = ScrapeRunReply;
export type ScrapeResultReply = ScrapeRunReply;
export const ScrapeStoredReply = ScrapeGetReply;
export type ScrapeStoredReply = ScrapeGetReply;

/** The scraper's RPCs, the same definitions as `RPC.scrapeRun`, `RPC.scrapeGet`, `RPC.scrapeDocumentChunk`. */
export const SCRAPE_RPC = {
  run: RPC.scrapeRun,
  get: RPC.scrapeGet,
  documentChunk: RPC.scrapeDocumentChunk,
} as const;
