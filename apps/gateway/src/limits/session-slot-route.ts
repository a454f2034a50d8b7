import { SetMetadata } from '@nestjs/common';

export const SESSION_SLOT_ROUTE = 'wds:session-slot-route';

/**
 * A call addressed to one browser session (execute, DELETE) runs on that session's concurrency slot,
 * which the active session holds for as long as it lives (docs/adr/0008-browser-sessions.md), so it
 * takes no second slot: a team whose sessions fill its limit can still drive and end them. It still
 * counts against the requests-per-minute budget; a session runs its calls one at a time.
 */
export const SessionSlotRoute = () => SetMetadata(SESSION_SLOT_ROUTE, true);
