-- finish_page() again (replaces 0006's: same signature, locks, lock order, steps and results),
-- planned once per session. 0006 ran with plan_cache_mode = force_custom_plan because its team claim
-- (one big CTE) cost PostgreSQL 7x as a generic plan (it hashed all of the job's pages); but custom
-- plans are made on every call, and planning that CTE cost more than running it (pg_stat_statements
-- in tools/bench/crawl.bench.js: ~1 ms of planning per page for the claim, ~0.5 ms for the rest).
-- Here the claim is a few small statements (team room, waiters ahead, the claim row by row, the
-- job's team row), each written so that its generic plan is an index plan whatever the table's size
-- when it is made (a session's first call often meets an empty job_pages; a plan that is right for
-- an empty table, e.g. comparing each link with all of the job's pages, is quadratic for a big
-- crawl). Hence plan_cache_mode = force_generic_plan (planned once per session; `auto` kept
-- re-planning the claim) and enable_seqscan = off (every statement here reads by key; a sequential
-- scan is never the right plan for a job that grows). The claim's statements all run after the team
-- row lock, so each one's snapshot still sees every claim committed before the lock was granted, as
-- the single statement did.
-- Keep in step with job-store.ts and team-gate.ts (TeamGate.claim / TeamGate.update).
-- At the end: page documents are compressed with lz4.
CREATE OR REPLACE FUNCTION finish_page(
  p_job_id uuid, p_url_key text, p_ok boolean, p_document text, p_doc_bytes integer, p_credits integer,
  p_error text, p_code text, p_keys text[], p_urls text[], p_depths integer[], p_blocked text[],
  p_max_claim integer, p_lease_ms integer,
  OUT o_applied boolean, OUT o_seq integer, OUT o_dispatch json, OUT o_wake json, OUT o_finished boolean,
  OUT o_team_id text, OUT o_job jobs)
LANGUAGE plpgsql
SET search_path FROM CURRENT
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $fn$
DECLARE
  j jobs;
  v_inserted integer := 0;
  v_inflight integer;
  v_want integer;
  v_limit integer;
  v_n integer := 0;
  v_claimed boolean := false;
  v_since timestamptz;
  v_used integer;
  v_free integer;
  v_ahead integer;
  v_allowed integer;
  v_claimed_pages jsonb := '[]';
  r record;
BEGIN
  o_applied := false;
  o_dispatch := '[]';
  o_wake := '[]';
  o_finished := false;
  SELECT * INTO j FROM jobs WHERE id = p_job_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  -- A page no longer dispatched/queued was finished before (redelivery): nothing changes.
  UPDATE job_pages SET status = CASE WHEN p_ok THEN 'done' ELSE 'failed' END,
    done_seq = CASE WHEN p_ok THEN j.succeeded + 1 END, document = p_document, doc_bytes = p_doc_bytes,
    credits = p_credits, error = p_error, error_code = p_code, finished_at = now()
  WHERE job_id = p_job_id AND url_key = p_url_key AND status IN ('dispatched', 'queued');
  IF NOT FOUND THEN
    RETURN;
  END IF;
  o_applied := true;
  o_team_id := j.team_id;
  o_seq := CASE WHEN p_ok THEN j.succeeded + 1 END;

  IF j.status = 'scraping' THEN
    -- The job row is locked, so nobody else inserts for this job now: filtering out known keys
    -- before LIMIT makes the page limit exact.
    IF j.page_limit - j.discovered > 0 AND cardinality(p_keys) > 0 THEN
      INSERT INTO job_pages (job_id, url_key, url, depth)
      SELECT p_job_id, c.k, c.u, c.d
      FROM unnest(p_keys, p_urls, p_depths) WITH ORDINALITY AS c(k, u, d, o)
      -- A probe of the primary key per link, whatever the statistics said when the plan was made (as
      -- NOT EXISTS, a plan made on a young table compared every link with every page of the job).
      WHERE (SELECT true FROM job_pages p WHERE p.job_id = p_job_id AND p.url_key = c.k) IS NULL
      ORDER BY c.o
      LIMIT j.page_limit - j.discovered
      ON CONFLICT DO NOTHING;
      GET DIAGNOSTICS v_inserted = ROW_COUNT;
    END IF;
    IF cardinality(p_blocked) > 0 THEN
      INSERT INTO job_blocked (job_id, url) SELECT p_job_id, b FROM unnest(p_blocked) AS b ON CONFLICT DO NOTHING;
    END IF;
  END IF;

  j.discovered := j.discovered + v_inserted;
  j.succeeded := j.succeeded + CASE WHEN p_ok THEN 1 ELSE 0 END;
  j.failed := j.failed + CASE WHEN p_ok THEN 0 ELSE 1 END;
  j.inflight := greatest(j.inflight - 1, 0);
  v_inflight := j.inflight;

  IF j.status = 'scraping' THEN
    v_want := least(j.concurrency - j.inflight, j.discovered - j.succeeded - j.failed - j.inflight, p_max_claim);
    IF v_want > 0 THEN
      -- TeamGate.claim: the team's row lock (always after the job's) serialises the team's claims.
      SELECT max_inflight INTO v_limit FROM jobs.team_limits WHERE team_id = j.team_id FOR UPDATE;
      IF NOT FOUND THEN
        -- A job created before team limits were recorded: its own concurrency is the best estimate.
        INSERT INTO jobs.team_limits (team_id, max_inflight) VALUES (j.team_id, j.concurrency)
        ON CONFLICT (team_id) DO NOTHING;
        SELECT max_inflight INTO v_limit FROM jobs.team_limits WHERE team_id = j.team_id FOR UPDATE;
      END IF;
      -- After the team lock: every statement below sees the claims committed before it was granted.
      -- Team room, and the waiters ahead of this job (each is owed one slot).
      SELECT t.wait_since INTO v_since FROM jobs.team_jobs t WHERE t.job_id = j.id;
      SELECT coalesce(sum(t.inflight), 0)::int INTO v_used FROM jobs.team_jobs t
      WHERE t.team_id = j.team_id AND t.job_id <> j.id AND t.lease_until > now();
      v_free := v_limit - j.inflight - v_used;
      SELECT count(*)::int INTO v_ahead FROM jobs.team_jobs w
      WHERE w.team_id = j.team_id AND w.job_id <> j.id AND w.wait_since IS NOT NULL AND w.lease_until > now()
        AND (v_since IS NULL OR w.wait_since < v_since);
      v_allowed := greatest(0, least(v_want, v_free - v_ahead));
      IF v_allowed > 0 THEN
        -- Row by row, each by its full primary key: as `url_key IN (...)` the generic plan hashed all
        -- of the job's pages, and as `url_key = ANY (...)` a plan made on a young table scanned all of
        -- them; an equality on both key columns is always a single-row index probe.
        FOR r IN
          SELECT q.url_key, q.url, q.depth FROM job_pages q WHERE q.job_id = j.id AND q.status = 'queued'
          ORDER BY q.depth, q.id LIMIT v_allowed
        LOOP
          UPDATE job_pages SET status = 'dispatched', dispatched_at = now(), dispatches = dispatches + 1
          WHERE job_id = j.id AND url_key = r.url_key;
          v_claimed_pages := v_claimed_pages || jsonb_build_object('urlKey', r.url_key, 'url', r.url, 'depth', r.depth);
          v_n := v_n + 1;
        END LOOP;
        o_dispatch := v_claimed_pages::json;
      END IF;
      -- The job's own row: its slots, and since when it waits (at the back of the line once served,
      -- in place while held back).
      INSERT INTO jobs.team_jobs (job_id, team_id, kind, inflight, wait_since, lease_until)
      VALUES (j.id, j.team_id, j.kind, j.inflight + v_n,
        CASE WHEN v_n <> v_allowed OR v_n >= v_want THEN NULL WHEN v_n > 0 THEN now() ELSE coalesce(v_since, now()) END,
        now() + p_lease_ms * interval '1 millisecond')
      ON CONFLICT (job_id) DO UPDATE SET inflight = EXCLUDED.inflight, wait_since = EXCLUDED.wait_since,
        lease_until = EXCLUDED.lease_until;
      -- The waiters ahead for whom the claim left slots free.
      IF v_ahead > 0 AND v_free - v_n > 0 THEN
        SELECT coalesce(json_agg(json_build_object('jobId', a.job_id, 'kind', a.kind) ORDER BY a.wait_since), '[]')
        INTO o_wake
        FROM (SELECT w.job_id, w.kind, w.wait_since FROM jobs.team_jobs w
              WHERE w.team_id = j.team_id AND w.job_id <> j.id AND w.wait_since IS NOT NULL
                AND w.lease_until > now() AND (v_since IS NULL OR w.wait_since < v_since)
              ORDER BY w.wait_since LIMIT v_free - v_n) a;
      END IF;
      v_claimed := true;
    END IF;
    v_inflight := j.inflight + v_n;
    o_finished := j.seeded AND v_inflight = 0 AND j.succeeded + j.failed >= j.discovered;
  END IF;

  UPDATE jobs SET discovered = discovered + v_inserted, succeeded = succeeded + CASE WHEN p_ok THEN 1 ELSE 0 END,
    failed = failed + CASE WHEN p_ok THEN 0 ELSE 1 END, inflight = v_inflight,
    credits_used = credits_used + p_credits, progressed_at = now(),
    status = CASE WHEN o_finished THEN 'completed' ELSE status END,
    finished_at = CASE WHEN o_finished THEN now() ELSE finished_at END
  WHERE id = p_job_id
  RETURNING * INTO j;

  IF o_finished OR (j.status = 'scraping' AND NOT v_claimed) THEN
    -- TeamGate.update: record the job's slots (or drop them, it has ended) and wake the waiters the
    -- freed slots go to. The read does not see this statement's own write, hence the job is left
    -- out of the team's slots in use.
    WITH del AS (DELETE FROM jobs.team_jobs WHERE o_finished AND job_id = j.id RETURNING 1),
    ups AS (
      INSERT INTO jobs.team_jobs (job_id, team_id, kind, inflight, lease_until)
      SELECT j.id, j.team_id, j.kind, v_inflight, now() + p_lease_ms * interval '1 millisecond'
      WHERE NOT o_finished
      ON CONFLICT (job_id) DO UPDATE SET inflight = EXCLUDED.inflight, wait_since = NULL,
        lease_until = EXCLUDED.lease_until
      RETURNING 1),
    slots AS (
      SELECT l.max_inflight - (SELECT coalesce(sum(t.inflight), 0)::int FROM jobs.team_jobs t
          WHERE t.team_id = j.team_id AND t.job_id <> j.id AND t.lease_until > now())
        - CASE WHEN o_finished THEN 0 ELSE v_inflight END AS free
      FROM jobs.team_limits l WHERE l.team_id = j.team_id)
    SELECT (SELECT coalesce(json_agg(json_build_object('jobId', x.job_id, 'kind', x.kind) ORDER BY x.wait_since), '[]')
            FROM (SELECT y.job_id, y.kind, y.wait_since FROM jobs.team_jobs y
                  WHERE y.team_id = j.team_id AND y.job_id <> j.id AND y.wait_since IS NOT NULL
                    AND y.lease_until > now()
                  ORDER BY y.wait_since LIMIT greatest(0, slots.free)) x)
    FROM slots
    INTO o_wake;
    o_wake := coalesce(o_wake, '[]');
  END IF;

  IF o_finished THEN
    o_job := j;
  END IF;
END
$fn$;

-- Page documents (JSON text, usually a few KB, so compressed on store) with lz4 rather than the
-- default pglz: each page's document is compressed once when the page finishes, and lz4 costs
-- PostgreSQL a fraction of pglz's CPU (measured ~0.09 ms less per 4 KB document) for about the same
-- size. Only where the server was built with lz4; rows already stored keep their compression.
DO $lz4$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE job_pages ALTER COLUMN document SET COMPRESSION lz4;
  END IF;
END
$lz4$;
