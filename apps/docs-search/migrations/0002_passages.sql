-- The documentation index: one row per passage (a heading section of a shipped doc, or an
-- operation of the OpenAPI document), searched by full text (headings weighted above bodies) and,
-- when the embedding model is installed, by cosine similarity of its vector.
CREATE TABLE passages (
  ref text PRIMARY KEY,
  source text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  line_start integer NOT NULL,
  line_end integer NOT NULL,
  -- sha256 of what the row was built from (text, lines, embedding model): unchanged rows are skipped.
  content_hash text NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', body), 'B')
  ) STORED,
  embedding real[],
  indexed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX passages_tsv ON passages USING gin (tsv);
