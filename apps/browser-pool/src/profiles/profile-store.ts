import type { Database, Queryable } from '@wds/database';
import type { StorageState } from '../render/context-options';

/** Cookies and localStorage of named browser profiles, per team, in PostgreSQL (pods keep nothing). */
export abstract class ProfileStore {
  /**
   * Runs `job` with the profile's stored state (undefined for a new profile). With `save`, the state
   * `job` returns replaces the stored one, and jobs saving the same profile run one after another.
   */
  abstract withProfile<T>(
    teamId: string,
    name: string,
    save: boolean,
    job: (state: StorageState | undefined) => Promise<{ result: T; state?: StorageState }>,
  ): Promise<T>;

  /** The stored state of a profile (browser sessions load it at start...). */
  abstract load(teamId: string, name: string): Promise<StorageState | undefined>;

  /** ...and save theirs at the end; one writer per profile is enforced when the session starts. */
  abstract save(teamId: string, name: string, state: StorageState): Promise<void>;
}

export class PgProfileStore extends ProfileStore {
  constructor(private readonly db: Database) {
    super();
  }

  load(teamId: string, name: string): Promise<StorageState | undefined> {
    return load(this.db, teamId, name);
  }

  async save(teamId: string, name: string, state: StorageState): Promise<void> {
    await this.db.query(
      `INSERT INTO browser_pool.profiles (team_id, name, storage_state) VALUES ($1, $2, $3)
       ON CONFLICT (team_id, name) DO UPDATE SET storage_state = EXCLUDED.storage_state, updated_at = now()`,
      [teamId, name, JSON.stringify(state)],
    );
  }

  async withProfile<T>(
    teamId: string,
    name: string,
    save: boolean,
    job: (state: StorageState | undefined) => Promise<{ result: T; state?: StorageState }>,
  ): Promise<T> {
    if (!save) return (await job(await load(this.db, teamId, name))).result;
    // The transaction-scoped advisory lock serialises writers of one profile across replicas.
    return this.db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`wds.browser-profile:${teamId}:${name}`]);
      const { result, state } = await job(await load(q, teamId, name));
      if (state) {
        await q.query(
          `INSERT INTO browser_pool.profiles (team_id, name, storage_state) VALUES ($1, $2, $3)
           ON CONFLICT (team_id, name) DO UPDATE SET storage_state = EXCLUDED.storage_state, updated_at = now()`,
          [teamId, name, JSON.stringify(state)],
        );
      }
      return result;
    });
  }
}

async function load(q: Queryable, teamId: string, name: string): Promise<StorageState | undefined> {
  const res = await q.query<{ storage_state: StorageState }>(
    'SELECT storage_state FROM browser_pool.profiles WHERE team_id = $1 AND name = $2',
    [teamId, name],
  );
  return res.rows[0]?.storage_state;
}
