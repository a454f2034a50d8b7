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
  /**
   * URLs of a team's snapshots of one tag, in URL order after `after`, at most `limit`; with
   * `domain`, only those whose host is that name or one of its subdomains.
   */
  abstract listUrls(query: SnapshotUrlQuery): Promise<string[]>;
}

export interface SnapshotUrlQuery {
  teamId: string;
  tag: string;
  domain?: string;
  after?: string;
  limit: number;
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

  async listUrls(q: SnapshotUrlQuery): Promise<string[]> {
    // The primary key (team_id, url, tag) serves the keyset scan; the host is read from the
    // normalised URL (scheme://host[:port]/...), compared as a name or a dot-separated suffix.
    const { rows } = await this.db.query<{ url: string }>(
      `SELECT url FROM (
         SELECT url, lower(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://([^/:?#]*)')) AS host
         FROM scraper.change_snapshots
         WHERE team_id = $1 AND tag = $2 AND ($3::text IS NULL OR url > $3)
       ) s
       WHERE $4::text IS NULL OR s.host = $4 OR right(s.host, length($4) + 1) = '.' || $4
       ORDER BY url
       LIMIT $5`,
      [q.teamId, q.tag, q.after ?? null, q.domain?.toLowerCase() ?? null, q.limit],
    );
    return rows.map((r) => r.url);
  }

  async deleteTeam(teamId: string, url?: string): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM scraper.change_snapshots WHERE team_id = $1 AND ($2::text IS NULL OR url = $2)`,
      [teamId, url ?? null],
    );
    return rowCount ?? 0;
  }
}
