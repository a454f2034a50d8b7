import type { Database, Queryable } from '@wds/database';
import type { Passage } from '../corpus/passage';

export interface StoredPassage extends Passage {
  contentHash: string;
}

interface Row {
  ref: string;
  source: string;
  title: string;
  body: string;
  line_start: number;
  line_end: number;
}

function toPassage(r: Row): Passage {
  return {
    ref: r.ref,
    source: r.source,
    title: r.title,
    body: r.body,
    lineStart: r.line_start,
    lineEnd: r.line_end,
  };
}

/** A question term in a passage's heading trail counts as this many occurrences in its body. */
const HEADING_WEIGHT = 2;
/**
 * BM25's term-frequency saturation (the usual value) and length normalisation: weaker than the
 * usual 0.75, because passages are already cut to a bounded size and a short one (a README intro,
 * one table row) is not more relevant for being short (tools/bench/docs-search/measurements.md).
 */
const BM25_K1 = 1.2;
const BM25_B = 0.5;

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

  /** Writes changed rows; a row whose text changed loses its vector until it is embedded again. */
  async upsert(q: Queryable, rows: StoredPassage[]): Promise<void> {
    const CHUNK = 200;
    for (let i = 0; i < rows.length; i += CHUNK) {
      const part = rows.slice(i, i + CHUNK);
      await q.query(
        `INSERT INTO docs_search.passages (ref, source, title, body, line_start, line_end, content_hash)
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ref text, source text, title text, body text,
           line_start int, line_end int, content_hash text)
         ON CONFLICT (ref) DO UPDATE SET source = EXCLUDED.source, title = EXCLUDED.title, body = EXCLUDED.body,
           line_start = EXCLUDED.line_start, line_end = EXCLUDED.line_end, content_hash = EXCLUDED.content_hash,
           embedding = NULL, sentence_embeddings = NULL, token_vectors = NULL, embedding_model = NULL,
           indexed_at = now()`,
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
            })),
          ),
        ],
      );
    }
  }

  /** Rows without a vector of `model`, in a stable order. */
  async withoutVector(model: string, limit: number): Promise<StoredPassage[]> {
    const res = await this.db.query<Row & { content_hash: string }>(
      `SELECT ref, source, title, body, line_start, line_end, content_hash FROM docs_search.passages
       WHERE embedding IS NULL OR embedding_model IS DISTINCT FROM $1 ORDER BY ref LIMIT $2`,
      [model, limit],
    );
    return res.rows.map((r) => ({ ...toPassage(r), contentHash: r.content_hash }));
  }

  /**
   * Stores vectors (the passage's, its sentences' back to back, its token vectors as
   * `Embedder.embedPassages` packs them), each row's only if it still has the text they were
   * computed from.
   */
  async setVectors(
    rows: {
      ref: string;
      contentHash: string;
      embedding: Float32Array;
      sentences: Float32Array;
      tokens: Uint8Array;
    }[],
    model: string,
  ): Promise<void> {
    await this.db.query(
      `UPDATE docs_search.passages p SET embedding = x.embedding, sentence_embeddings = x.sentences,
         token_vectors = decode(x.tokens, 'base64'), embedding_model = $2
       FROM jsonb_to_recordset($1::jsonb) AS x(ref text, content_hash text, embedding real[], sentences real[],
         tokens text)
       WHERE p.ref = x.ref AND p.content_hash = x.content_hash`,
      [
        JSON.stringify(
          rows.map((r) => ({
            ref: r.ref,
            content_hash: r.contentHash,
            embedding: Array.from(r.embedding),
            sentences: Array.from(r.sentences),
            tokens: Buffer.from(r.tokens.buffer, r.tokens.byteOffset, r.tokens.byteLength).toString('base64'),
          })),
        ),
        model,
      ],
    );
  }

  /**
   * The stored token vectors of `model` of those of `refs` that have them (late interaction reads
   * a few passages' per question; all of them would be ~90 MB in memory).
   */
  async tokenVectors(refs: string[], model: string): Promise<Map<string, Uint8Array>> {
    if (!refs.length) return new Map();
    const res = await this.db.query<{ ref: string; token_vectors: Buffer }>(
      `SELECT ref, token_vectors FROM docs_search.passages
       WHERE ref = ANY($1::text[]) AND embedding_model = $2 AND token_vectors IS NOT NULL`,
      [refs, model],
    );
    return new Map(res.rows.map((r) => [r.ref, r.token_vectors]));
  }

  /** Bytes of stored token vectors of `model`, and how many passages have them. */
  async tokenVectorSize(model: string): Promise<{ passages: number; bytes: number }> {
    const res = await this.db.query<{ n: string; bytes: string | null }>(
      `SELECT count(*) AS n, sum(octet_length(token_vectors)) AS bytes FROM docs_search.passages
       WHERE embedding_model = $1 AND token_vectors IS NOT NULL`,
      [model],
    );
    return { passages: Number(res.rows[0].n), bytes: Number(res.rows[0].bytes ?? 0) };
  }

  /** Rows still waiting for a vector of `model`. */
  async countWithoutVector(model: string): Promise<number> {
    const res = await this.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM docs_search.passages WHERE embedding IS NULL OR embedding_model IS DISTINCT FROM $1',
      [model],
    );
    return Number(res.rows[0].n);
  }

  async delete(q: Queryable, refs: string[]): Promise<void> {
    if (refs.length) await q.query('DELETE FROM docs_search.passages WHERE ref = ANY($1::text[])', [refs]);
  }

  /**
   * Every stored vector of `model`, for exact cosine ranking in memory: per passage its own and
   * its sentences' (n × 384 floats back to back; a few thousand passages, some tens of MB at most).
   */
  async vectors(
    model: string,
  ): Promise<{ ref: string; source: string; embedding: Float32Array; sentences: Float32Array }[]> {
    const res = await this.db.query<{
      ref: string;
      source: string;
      embedding: number[];
      sentence_embeddings: number[] | null;
    }>(
      `SELECT ref, source, embedding, sentence_embeddings FROM docs_search.passages
       WHERE embedding IS NOT NULL AND embedding_model = $1 ORDER BY ref`,
      [model],
    );
    return res.rows.map((r) => ({
      ref: r.ref,
      source: r.source,
      embedding: Float32Array.from(r.embedding),
      sentences: Float32Array.from(r.sentence_embeddings ?? []),
    }));
  }

  /**
   * Full-text ranking, Okapi BM25 over PostgreSQL's own analysis: the question's English lexemes
   * (stemmed, stop words dropped, by to_tsvector), each passage's term frequencies from its
   * tsvector with heading occurrences (weight A) counted HEADING_WEIGHT times, document frequency
   * over the whole index (every passage with a lexeme is a candidate, so it is counted exactly),
   * and length normalisation by distinct lexemes. Unlike ts_rank, a rare term ("maxAge",
   * "webhookId") outweighs a common one ("page", "default").
   */
  async searchText(
    question: string,
    limit: number,
  ): Promise<{ ref: string; source: string; rank: number }[]> {
    const res = await this.db.query<{ ref: string; source: string; rank: number }>(
      `WITH ql AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $1)) AS t(lexeme)),
       st AS (SELECT count(*)::float8 AS n, greatest(avg(length(tsv)), 1)::float8 AS avgdl FROM docs_search.passages),
       hits AS (
         SELECT p.ref, p.source, length(p.tsv)::float8 AS dl, u.lexeme,
           (SELECT count(*) FROM unnest(u.weights) w WHERE w = 'A')::float8 AS in_heading,
           (SELECT count(*) FROM unnest(u.weights) w WHERE w <> 'A')::float8 AS in_body
         FROM docs_search.passages p CROSS JOIN LATERAL unnest(p.tsv) u
         WHERE u.lexeme IN (SELECT lexeme FROM ql)
       ),
       df AS (SELECT lexeme, count(*)::float8 AS df FROM hits GROUP BY lexeme)
       SELECT h.ref, min(h.source) AS source, sum(
           ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5))
           * ((h.in_body + $3::float8 * h.in_heading) * ($4::float8 + 1))
           / ((h.in_body + $3::float8 * h.in_heading) + $4::float8 * (1 - $5::float8 + $5::float8 * h.dl / st.avgdl))
         ) AS rank
       FROM hits h JOIN df USING (lexeme), st
       GROUP BY h.ref
       ORDER BY rank DESC, h.ref
       LIMIT $2`,
      [question, limit, HEADING_WEIGHT, BM25_K1, BM25_B],
    );
    return res.rows.map((r) => ({ ref: r.ref, source: r.source, rank: Number(r.rank) }));
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
