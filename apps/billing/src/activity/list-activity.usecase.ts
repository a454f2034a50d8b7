import { Injectable } from '@nestjs/common';
import type { ActivityItem, ActivityListReply, ActivityListRequest } from '@wds/contracts';
import { Database } from '@wds/database';
import { ActivityCursors, type CursorPosition } from './activity-cursor';

interface Row {
  id: string;
  endpoint: ActivityItem['endpoint'];
  api_version: string;
  created_at: Date;
  target: string | null;
  seq: string;
  created_us: string;
  snapshot: string;
}

/**
 * A page of a team's activity, newest first (created_at, then id, then recording order). The
 * first page fixes a snapshot (the recording sequence) and the window start; later pages read
 * that same snapshot below the last item returned, so items recorded meanwhile are neither
 * skipped nor repeated (a fresh listing shows them). One more row than asked says `hasMore`.
 */
@Injectable()
export class ListActivity {
  constructor(
    private readonly db: Database,
    private readonly cursors: ActivityCursors,
  ) {}

  async execute(req: ActivityListRequest): Promise<ActivityListReply> {
    const pos: CursorPosition | undefined = req.cursor
      ? await this.cursors.decode(req.teamId, req.endpoint, req.cursor)
      : undefined;
    const from = pos?.from ?? Date.now() - req.windowMs;
    // A first page takes its snapshot in the same statement (the sequence read once, as an InitPlan).
    const params: unknown[] = [req.teamId, from, pos?.snapshot ?? null, req.limit + 1];
    const snap = `COALESCE($3::bigint, (SELECT last_value FROM billing.activity_seq))`;
    let where = `team_id = $1 AND created_at > to_timestamp($2::double precision / 1000) AND seq <= ${snap}`;
    if (req.endpoint) {
      params.push(req.endpoint);
      where += ` AND endpoint = $${params.length}`;
    }
    if (pos) {
      params.push(pos.createdUs, pos.id, pos.seq);
      const n = params.length;
      where += ` AND (created_at, id, seq) < (timestamptz 'epoch' + $${n - 2}::bigint * interval '1 microsecond', $${n - 1}::text, $${n}::bigint)`;
    }
    const { rows } = await this.db.query<Row>(
      `SELECT id, endpoint, api_version, created_at, target, seq::text AS seq,
              round(extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us, ${snap}::text AS snapshot
       FROM billing.activity WHERE ${where}
       ORDER BY created_at DESC, id DESC, seq DESC LIMIT $4`,
      params,
    );
    const hasMore = rows.length > req.limit;
    const page = hasMore ? rows.slice(0, req.limit) : rows;
    const last = page[page.length - 1];
    const cursor =
      hasMore && last
        ? await this.cursors.encode(req.teamId, req.endpoint, {
            snapshot: last.snapshot,
            from,
            createdUs: last.created_us,
            id: last.id,
            seq: last.seq,
          })
        : null;
    return {
      data: page.map((r) => ({
        id: r.id,
        endpoint: r.endpoint,
        api_version: r.api_version,
        created_at: r.created_at.toISOString(),
        target: r.target,
      })),
      cursor,
      hasMore,
    };
  }
}
