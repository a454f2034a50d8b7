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
