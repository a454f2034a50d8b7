-- The passage's token vectors for late interaction (Embedder.lateInteraction), computed with its
-- vector by the same model and stored, so a question costs its own run of the model only: per
-- token a float32 scale (little-endian), then all tokens' 384 components as int8 (a unit vector
-- component / scale, rounded). A passage past the model's input is read in overlapping windows and
-- each token is stored once. Rows embedded before this column existed are embedded again.
ALTER TABLE passages ADD COLUMN token_vectors bytea;
UPDATE passages SET embedding = NULL, embedding_model = NULL;
