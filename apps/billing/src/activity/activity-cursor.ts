import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { Database } from '@wds/database';
import { z } from 'zod';

/** Where a listing stands: its snapshot, its window and the last item it returned. */
export interface CursorPosition {
  /** Highest recording sequence of the listing's snapshot: rows recorded later are not in it. */
  snapshot: string;
  /** Start of the listing's window (ms since the epoch), fixed at its first page. */
  from: number;
  /** created_at of the last item returned, in microseconds since the epoch (exact). */
  createdUs: string;
  id: string;
  seq: string;
}

const Position = z.object({
  s: z.string().regex(/^\d{1,19}$/),
  f: z.int().min(0),
  t: z.string().regex(/^-?\d{1,19}$/),
  i: z.string().min(1).max(200),
  q: z.string().regex(/^\d{1,19}$/),
});

const SIGNATURE_BYTES = 16;
const SECRET_NAME = 'activity-cursor';

function invalid(): ServiceError {
  return new ServiceError(
    ErrorCode.BAD_REQUEST,
    'Invalid cursor: pass the cursor of the previous page unchanged',
    {
      field: 'cursor',
    },
  );
}

/**
 * Opaque, tamper-proof activity cursors: base64url JSON of the position, then an HMAC-SHA256 over
 * it, the team and the endpoint filter, with a key kept in billing's database (shared by every
 * replica). A cursor edited, forged, or used by another team or with another filter is refused.
 */
@Injectable()
export class ActivityCursors {
  private key?: Promise<Buffer>;

  constructor(private readonly db: Database) {}

  async encode(teamId: string, endpoint: string | undefined, p: CursorPosition): Promise<string> {
    const body = Buffer.from(
      JSON.stringify({ s: p.snapshot, f: p.from, t: p.createdUs, i: p.id, q: p.seq }),
    ).toString('base64url');
    return `${body}.${(await this.sign(teamId, endpoint, body)).toString('base64url')}`;
  }

  async decode(teamId: string, endpoint: string | undefined, cursor: string): Promise<CursorPosition> {
    const dot = cursor.indexOf('.');
    if (dot <= 0) throw invalid();
    const body = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
    const expected = await this.sign(teamId, endpoint, body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    let parsed;
    try {
      parsed = Position.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
    } catch {
      throw invalid();
    }
    if (!parsed.success) throw invalid();
    const v = parsed.data;
    return { snapshot: v.s, from: v.f, createdUs: v.t, id: v.i, seq: v.q };
  }

  private async sign(teamId: string, endpoint: string | undefined, body: string): Promise<Buffer> {
    const key = await this.secret();
    return createHmac('sha256', key)
      .update(`${teamId}\n${endpoint ?? ''}\n${body}`)
      .digest()
      .subarray(0, SIGNATURE_BYTES);
  }

  private secret(): Promise<Buffer> {
    this.key ??= (async () => {
      await this.db.query(
        'INSERT INTO billing.secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
        [SECRET_NAME, randomBytes(32)],
      );
      const { rows } = await this.db.query<{ value: Buffer }>(
        'SELECT value FROM billing.secrets WHERE name = $1',
        [SECRET_NAME],
      );
      return rows[0].value;
    })().catch((err: unknown) => {
      this.key = undefined;
      throw err;
    });
    return this.key;
  }
}
