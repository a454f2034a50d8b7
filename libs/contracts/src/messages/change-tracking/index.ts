import { z } from 'zod';
import { defineRpc } from '../define';

/** Deletes a team's change-tracking snapshots (every URL, or one URL's, every tag). */
export const ChangeTrackingDeleteRequest = z.object({
  teamId: z.string().min(1),
  url: z.string().min(1).optional(),
});
export type ChangeTrackingDeleteRequest = z.output<typeof ChangeTrackingDeleteRequest>;

export const ChangeTrackingDeleteReply = z.object({ deleted: z.int().min(0) });
export type ChangeTrackingDeleteReply = z.output<typeof ChangeTrackingDeleteReply>;

/** Served by the scraper, owner of `scraper.change_snapshots`. */
export const changeTrackingDeleteRpc = defineRpc(
  'wds.scraper.v1.change-tracking.delete',
  'scraper',
  ChangeTrackingDeleteRequest,
  ChangeTrackingDeleteReply,
);

/** Most URLs one `changeTrackingUrlsRpc` answer carries. */
export const CHANGE_TRACKING_URLS_MAX = 2000;

/**
 * Lists the URLs a team has change-tracking snapshots of, for one tag, in URL order (keyset paging
 * with `after`). `domain` keeps the URLs whose host is that name or one of its subdomains (a crawl
 * asks for its own site's). A crawl with changeTracking re-checks those it did not discover.
 */
export const ChangeTrackingUrlsRequest = z.object({
  teamId: z.string().min(1),
  /** '' for the untagged history. */
  tag: z.string(),
  domain: z.string().min(1).max(253).optional(),
  /** The last URL of the previous page of the answer. */
  after: z.string().min(1).optional(),
  limit: z.int().min(1).max(CHANGE_TRACKING_URLS_MAX).default(1000),
});
export type ChangeTrackingUrlsRequest = z.output<typeof ChangeTrackingUrlsRequest>;
export type ChangeTrackingUrlsRequestInput = z.input<typeof ChangeTrackingUrlsRequest>;

/** Normalised URLs as the snapshots are keyed; `next` is set when more may follow. */
export const ChangeTrackingUrlsReply = z.object({
  urls: z.array(z.string().min(1)),
  next: z.string().min(1).optional(),
});
export type ChangeTrackingUrlsReply = z.output<typeof ChangeTrackingUrlsReply>;

/** Served by the scraper, owner of `scraper.change_snapshots`. */
export const changeTrackingUrlsRpc = defineRpc(
  'wds.scraper.v1.change-tracking.urls',
  'scraper',
  ChangeTrackingUrlsRequest,
  ChangeTrackingUrlsReply,
);
