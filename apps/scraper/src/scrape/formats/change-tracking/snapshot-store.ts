import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Database } from '@wds/database';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** A page's history key: team, normalised URL and tag ('' = untagged). */
export interface SnapshotKey {
  teamId: string;
  url: string;
  tag: string;
}

export interface Snapshot {
  scrapedAt: Date;
  jobId: string;
  markdown: string;
}

/** Port: the latest change-tracking snapshot per {@link SnapshotKey}. */
export abstract class SnapshotStore {
  /**
   * Returns the previous snapshot and, when `next` is newer than it (or there is none), makes `next`
   * the snapshot, atomically: two scrapes of one page at once are ordered, the second one sees the
   * first as its previous snapshot. `next` undefined only reads.
   */
  abstract swap(key: SnapshotKey, next: Snapshot | undefined): Promise<Snapshot | undefined>;
  /** Deletes a team's snapshots (all, or of one URL); returns how many. */
  abstract deleteTeam(teamId: string, url?: string): Promise<number>;
}

export class PgSnapshotStore extends SnapshotStore {
  constructor(private readonly db: Database) {
    super();
  }

  async swap(key: SnapshotKey, next: Snapshot | undefined): Promise<Snapshot | undefined> {
    const gz = next ? await gzipAsync(Buffer.from(next.markdown, 'utf8'), { level: 6 }) : undefined;
    const row = await this.db.tx(async (q) => {
      // A transaction-scoped lock on the key (a row lock cannot cover a row that does not exist yet).
      await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7741))', [
        JSON.stringify([key.teamId, key.tag, key.url]),
      ]);
      const { rows } = await q.query<{ scraped_at: Date; job_id: string; markdown_gz: Buffer }>(
        `SELECT scraped_at, job_id, markdown_gz FROM scraper.change_snapshots
         WHERE team_id = $1 AND url = $2 AND tag = $3`,
        [key.teamId, key.url, key.tag],
      );
      const prev = rows[0];
      if (next && (!prev || prev.scraped_at.getTime() < next.scrapedAt.getTime())) {
        await q.query(
          `INSERT INTO scraper.change_snapshots (team_id, url, tag, scraped_at, job_id, markdown_gz)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (team_id, url, tag) DO UPDATE
             SET scraped_at = EXCLUDED.scraped_at, job_id = EXCLUDED.job_id,
                 markdown_gz = EXCLUDED.markdown_gz, updated_at = now()`,
          [key.teamId, key.url, key.tag, next.scrapedAt, next.jobId, gz],
        );
      }
      return prev;
    });
    if (!row) return undefined;
    return {
      scrapedAt: row.scraped_at,
      jobId: row.job_id,
      markdown: (await gunzipAsync(row.markdown_gz)).toString('utf8'),
    };
  }

  async deleteTeam(teamId: string, url?: string): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM scraper.change_snapshots WHERE team_id = $1 AND ($2::text IS NULL OR url = $2)`,
      [teamId, url ?? null],
    );
    return rowCount ?? 0;
  }
}
