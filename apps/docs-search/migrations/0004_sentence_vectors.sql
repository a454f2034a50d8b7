-- One vector per sentence (list item, table row) of a passage, back to back (n × 384 floats): a
-- question is matched against the passage's closest sentence as well as the passage as a whole,
-- which finds a fact stated in one line of a long section (an environment table row, one
-- paragraph of many). Set together with `embedding`, by the same model; rows embedded before this
-- column existed are embedded again.
ALTER TABLE passages ADD COLUMN sentence_embeddings real[];
UPDATE passages SET embedding = NULL, embedding_model = NULL;
