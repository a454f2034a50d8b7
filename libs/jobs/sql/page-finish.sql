-- JobStore.finishPage in one statement: each statement the crawler sends costs it a socket round
-- trip, and finishing a page took about nine. The function does exactly what the TypeScript did in
-- one transaction (job row lock, page result, links found, TeamGate.claim / TeamGate.update, job
-- counters and completion), so keep it in step with job-store.ts and team-gate.ts.
-- SET search_path FROM CURRENT: the migration runs with the owning service's schema first, so the
-- function works on that schema's jobs and job_pages whatever the caller's search_path.
-- plan_cache_mode: PL/pgSQL caches its statements' plans per session and after five calls may
-- switch to a generic plan, which for these statements cost PostgreSQL several times the CPU
-- (measured: 7x per page); custom plans are what the statements got when sent one by one.
CREATE OR REPLACE FUNCTION finish_page(
  p_job_id uuid, p_url_key text, p_ok boolean, p_document text, p_doc_bytes integer, p_credits integer,
  p_error text, p_code text, p_keys text[], p_urls text[], p_depths integer[], p_blocked text[],
  p_max_claim integer, p_lease_ms integer,
  OUT o_applied boolean, OUT o_seq integer, OUT o_dispatch json, OUT o_wake json, OUT o_finished boolean,
  OUT o_team_id text, OUT o_job jobs)
LANGUAGE plpgsql
SET search_path FROM CURRENT
SET plan_cache_mode = force_custom_plan
AS $fn$
DECLARE
  j jobs;
  v_inserted integer := 0;
  v_inflight integer;
  v_want integer;
  v_limit integer;
  v_n integer := 0;
  v_claimed boolean := false;
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
      WHERE NOT EXISTS (SELECT 1 FROM job_pages p WHERE p.job_id = p_job_id AND p.url_key = c.k)
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
      -- One statement after the lock, so its snapshot sees every claim committed before the lock was
      -- granted: team room, waiters ahead (each owed one slot), the claim, and the job's own row.
      WITH own AS (SELECT (SELECT wait_since FROM jobs.team_jobs WHERE job_id = j.id) AS since),
      ahead AS (
        SELECT w.job_id, w.kind, w.wait_since FROM jobs.team_jobs w, own
        WHERE w.team_id = j.team_id AND w.job_id <> j.id AND w.wait_since IS NOT NULL AND w.lease_until > now()
          AND (own.since IS NULL OR w.wait_since < own.since)),
      room AS (
        SELECT r.free, greatest(0, least(v_want, r.free - (SELECT count(*)::int FROM ahead))) AS allowed
        FROM (SELECT v_limit - j.inflight - (SELECT coalesce(sum(t.inflight), 0)::int FROM jobs.team_jobs t
                WHERE t.team_id = j.team_id AND t.job_id <> j.id AND t.lease_until > now()) AS free) r),
      claimed AS (
        UPDATE job_pages SET status = 'dispatched', dispatched_at = now(), dispatches = dispatches + 1
        WHERE job_id = j.id AND url_key IN (
          SELECT q.url_key FROM job_pages q WHERE q.job_id = j.id AND q.status = 'queued' ORDER BY q.depth, q.id
          LIMIT (SELECT allowed FROM room))
        RETURNING url_key, url, depth),
      n AS (SELECT count(*)::int AS n FROM claimed),
      mine AS (
        INSERT INTO jobs.team_jobs (job_id, team_id, kind, inflight, wait_since, lease_until)
        SELECT j.id, j.team_id, j.kind, j.inflight + n.n,
          CASE WHEN n.n <> room.allowed OR n.n >= v_want THEN NULL WHEN n.n > 0 THEN now()
            ELSE coalesce(own.since, now()) END,
          now() + p_lease_ms * interval '1 millisecond'
        FROM n, room, own
        ON CONFLICT (job_id) DO UPDATE SET inflight = EXCLUDED.inflight, wait_since = EXCLUDED.wait_since,
          lease_until = EXCLUDED.lease_until)
      SELECT
        (SELECT coalesce(json_agg(json_build_object('urlKey', c.url_key, 'url', c.url, 'depth', c.depth)), '[]')
         FROM claimed c),
        (SELECT n.n FROM n),
        -- The waiters ahead for whom the claim left slots free.
        (SELECT coalesce(json_agg(json_build_object('jobId', a.job_id, 'kind', a.kind) ORDER BY a.wait_since), '[]')
         FROM (SELECT * FROM ahead ORDER BY wait_since
               LIMIT greatest(0, (SELECT room.free FROM room) - (SELECT n.n FROM n))) a)
      INTO o_dispatch, v_n, o_wake;
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
