-- Session recordings (recordSession): the token of the recording's public URLs. Unlike `token`, it
-- is kept after the session ends, as long as the recording is (in the artifacts bucket).
ALTER TABLE sessions ADD COLUMN recording_token text;
