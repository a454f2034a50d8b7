-- Vectors are filled in after the text rows, in the background: the text index serves at once and
-- a row's vector is (re)computed when it is missing or was made by another model.
ALTER TABLE passages ADD COLUMN embedding_model text;
CREATE INDEX passages_unembedded ON passages (ref) WHERE embedding IS NULL;
