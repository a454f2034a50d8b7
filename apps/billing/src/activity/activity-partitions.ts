import { Injectable } from '@nestjs/common';
import { Database } from '@wds/database';

const DAY_MS = 86_400_000;

/** UTC day (YYYY-MM-DD) of an instant. */
export function utcDay(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The daily partitions of `billing.activity`: created on demand (and a few days ahead by the
 * retention job), dropped whole once every row in them is past the retention.
 */
@Injectable()
export class ActivityPartitions {
  private readonly known = new Set<string>();

  constructor(private readonly db: Database) {}

  /** Makes sure the partitions of these instants exist. */
  async ensureFor(instants: readonly number[]): Promise<void> {
    const days = [...new Set(instants.map(utcDay))].filter((d) => !this.known.has(d));
    for (const day of days) {
      await this.db.query('SELECT billing.ensure_activity_partition($1::date)', [day]);
      this.known.add(day);
    }
  }

  /** Drops partitions whose whole day is older than `retentionDays`; returns their names. */
  async dropOlderThan(retentionDays: number): Promise<string[]> {
    const cutoff = utcDay(Date.now() - retentionDays * DAY_MS).replace(/-/g, '');
    const { rows } = await this.db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid
       JOIN pg_class p ON p.oid = i.inhparent
       JOIN pg_namespace n ON n.oid = p.relnamespace
       WHERE n.nspname = 'billing' AND p.relname = 'activity'`,
    );
    const dropped: string[] = [];
    for (const { name } of rows) {
      const m = /^activity_(\d{8})$/.exec(name);
      // A day before the cutoff day is entirely older than the retention.
      if (!m || m[1] >= cutoff) continue;
      await this.db.query(`DROP TABLE IF EXISTS billing."${name}"`);
      this.known.delete(`${m[1].slice(0, 4)}-${m[1].slice(4, 6)}-${m[1].slice(6)}`);
      dropped.push(name);
    }
    return dropped;
  }
}
