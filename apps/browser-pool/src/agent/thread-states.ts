import type { Database } from '@wds/database';
import type { StorageState } from '../render/context-options';

/** A stored state larger than this is not kept (a page that fills localStorage must not fill the database). */
export const MAX_THREAD_STATE_BYTES = 1024 * 1024;

/**
 * The browser state each agent thread's last run left (cookies and localStorage), per team and
 * thread in PostgreSQL (browser_pool.agent_thread_states), until the thread's newest job expires.
 */
export class ThreadStates {
  constructor(private readonly db: Database) {}

  async load(teamId: string, threadId: string): Promise<StorageState | undefined> {
    const res = await this.db.query<{ storage_state: StorageState }>(
      `SELECT storage_state FROM browser_pool.agent_thread_states
        WHERE team_id = $1 AND thread_id = $2 AND expires_at > now()`,
      [teamId, threadId],
    );
    return res.rows[0]?.storage_state;
  }

  /** Keeps `state` for the thread's next run (false when it is too large to keep); drops expired states. */
  async save(teamId: string, threadId: string, expiresAt: string, state: StorageState): Promise<boolean> {
    const json = JSON.stringify(state);
    await this.db.query(
      `DELETE FROM browser_pool.agent_thread_states
        WHERE ctid IN (SELECT ctid FROM browser_pool.agent_thread_states WHERE expires_at <= now() LIMIT 100)`,
    );
    if (Buffer.byteLength(json) > MAX_THREAD_STATE_BYTES) {
      await this.db.query(
        'DELETE FROM browser_pool.agent_thread_states WHERE team_id = $1 AND thread_id = $2',
        [teamId, threadId],
      );
      return false;
    }
    await this.db.query(
      `INSERT INTO browser_pool.agent_thread_states (team_id, thread_id, storage_state, expires_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (team_id, thread_id)
       DO UPDATE SET storage_state = EXCLUDED.storage_state, updated_at = now(),
                     expires_at = GREATEST(agent_thread_states.expires_at, EXCLUDED.expires_at)`,
      [teamId, threadId, json, expiresAt],
    );
    return true;
  }
}
