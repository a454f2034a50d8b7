-- Interact prompts (issue 15): a session in which the AI agent ran is billed at the interact prompt
-- rate (7 credits per browser minute instead of 2), whatever ends it.
ALTER TABLE sessions ADD COLUMN prompt_used boolean NOT NULL DEFAULT false;
