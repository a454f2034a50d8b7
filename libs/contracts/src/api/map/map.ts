import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { HttpUrl } from '../common/url';
import { Location } from '../common/location';
import { SitemapMode } from '../crawl/crawl-request';

export const MAP_LIMIT_DEFAULT = 5000;
export const MAP_LIMIT_MAX = 100000;

/** POST /v2/map body (Firecrawl v2). */
export const MapRequest = publicBody({
  url: HttpUrl,
  search: z.string().min(1).max(1000).optional().describe('Order links by relevance to this text'),
  sitemap: SitemapMode.default('include'),
  includeSubdomains: z.boolean().default(true),
  ignoreQueryParameters: z.boolean().default(true),
  limit: z.int().min(1).max(MAP_LIMIT_MAX).default(MAP_LIMIT_DEFAULT),
  timeout: z.int().min(1000).max(300000).optional().describe('ms'),
  location: Location.optional(),
});
export type MapRequest = z.output<typeof MapRequest>;
export type MapRequestInput = z.input<typeof MapRequest>;

export const MapLink = z.object({
  url: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
});
export type MapLink = z.output<typeof MapLink>;

export const MapResponse = z.object({ success: z.literal(true), links: z.array(MapLink) });
export type MapResponse = z.output<typeof MapResponse>;
