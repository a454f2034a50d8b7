import type { Database, Queryable } from '@wds/database';
import type { Passage } from '../corpus/passage';

export interface StoredPassage extends Passage {
  contentHash: string;
  embedding?: Float32Array;
}

interface Row {
  ref: string;
  source: string;
  title: string;
  body: string;
  line_start: number;
  line_end: number;
}

/** Serialises index rebuilds of replicas that start together (one builds, the others find it done). */
const INDEX_LOCK = "hashtext('wds.docs-search.index')";

/** docs_search.passages: the index rows, their full-text vectors and embeddings. */
export class PassageStore {
  constructor(private readonly db: Database) {}

  /**
   * Runs `fn` holding the index lock inside one transaction: `fn` reads the stored hashes and
   * writes its changes through the given queryable, so a concurrent reader sees the old or the
   * new index, never a half-written one.
   */
  withIndexLock<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.db.tx(async (q) => {
      await q.query(`SELECT pg_advisory_xact_lock(${INDEX_LOCK})`);
      return fn(q);
    });
  }

  async hashes(q: Queryable): Promise<Map<string, string>> {
    const res = await q.query<{ ref: string; content_hash: string }>(
      'SELECT ref, content_hash FROM docs_search.passages',
    );
    return new Map(res.rows.map((r) => [r.ref, r.content_hash]));
  }

  async upsert(q: Queryable, rows: StoredPassage[]): Promise<void> {
    const CHUNK = 200;
    for (let i = 0; i < rows.length; i += CHUNK) {
      const part = rows.slice(i, i + CHUNK);
      await q.query(
        `INSERT INTO docs_search.passages (ref, source, title, body, line_start, line_end, content_hash, embedding)
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ref text, source text, title text, body text,
           line_start int, line_end int, content_hash text, embedding real[])
         ON CONFLICT (ref) DO UPDATE SET source = EXCLUDED.source, title = EXCLUDED.title, body = EXCLUDED.body,
           line_start = EXCLUDED.line_start, line_end = EXCLUDED.line_end, content_hash = EXCLUDED.content_hash,
           embedding = EXCLUDED.embedding, indexed_at = now()`,
        [
          JSON.stringify(
            part.map((p) => ({
              ref: p.ref,
              source: p.source,
              title: p.title,
              body: p.body,
              line_start: p.lineStart,
              line_end: p.lineEnd,
              content_hash: p.contentHash,
              embedding: p.embedding ? Array.from(p.embedding) : null,
            })),
          ),
        ],
      );
    }
  }

  async delete(q: Queryable, refs: string[]): Promise<void> {
    if (refs.length) await q.query('DELETE FROM docs_search.passages WHERE ref = ANY($1::text[])', [refs]);
  }

  /** Every stored vector, for exact cosine ranking in memory (a few thousand × 384 floats). */
  async vectors(): Promise<{ ref: string; embedding: Float32Array }[]> {
    const res = await this.db.query<{ ref: string; embedding: number[] }>(
      'SELECT ref, embedding FROM docs_search.passages WHERE embedding IS NOT NULL ORDER BY ref',
    );
    return res.rows.map((r) => ({ ref: r.ref, embedding: Float32Array.from(r.embedding) }));
  }

  /**
   * Full-text candidates: any of the question's lexemes may match (a question rarely shares all
   * its words with the passage that answers it), ranked by ts_rank_cd with headings weighted
   * above bodies and long passages normalised down.
   */
  async searchText(question: string, limit: number): Promise<{ ref: string; rank: number }[]> {
    const res = await this.db.query<{ ref: string; rank: number }>(
      `WITH q AS (
         SELECT to_tsquery('english', string_agg(quote_literal(lexeme), ' | ')) AS query
         FROM unnest(to_tsvector('english', $1)) AS t(lexeme)
       )
       SELECT p.ref, ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', p.tsv, q.query, 1) AS rank
       FROM docs_search.passages p, q
       WHERE q.query IS NOT NULL AND p.tsv @@ q.query
       ORDER BY rank DESC, p.ref
       LIMIT $2`,
      [question, limit],
    );
    return res.rows.map((r) => ({ ref: r.ref, rank: Number(r.rank) }));
  }

  async get(refs: string[]): Promise<Map<string, Passage>> {
    if (!refs.length) return new Map();
    const res = await this.db.query<Row>(
      'SELECT ref, source, title, body, line_start, line_end FROM docs_search.passages WHERE ref = ANY($1::text[])',
      [refs],
    );
    return new Map(
      res.rows.map((r) => [
        r.ref,
        {
          ref: r.ref,
          source: r.source,
          title: r.title,
          body: r.body,
          lineStart: r.line_start,
          lineEnd: r.line_end,
        },
      ]),
    );
  }

  async count(): Promise<number> {
    const res = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM docs_search.passages');
    return Number(res.rows[0].n);
  }
}
