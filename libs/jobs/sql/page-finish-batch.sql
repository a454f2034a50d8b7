-- finish_pages(): several pages of one job finished in one call, as if finish_page() (0007) had been
-- called for each in turn, but with the job row locked once, one team claim, one update of the job's
-- counters and one commit for all of them. A 5,000-page crawl spent most of PostgreSQL's time per page
-- on what finish_page() does once per call (the job lock, whose waiters queue one behind another, the
-- claim's team statements, the job update, the commit) and the crawler a socket write per page.
-- The crawler (libs/jobs PageFinisher) sends every page of a job that finished while the job's
-- previous call ran. Same locks and lock order as finish_page() (job row, then team row).
--
-- Page i of the batch is p_url_keys[i] with p_oks[i], p_documents[i], ...; links and blocked URLs name
-- the page that found them (p_link_pages, p_blocked_pages: 1-based), so a page that was already
-- finished (a redelivery: o_applied[i] false) adds nothing. Links go into the frontier in batch
-- order, each new key once, at its first occurrence, within the page limit: what the calls one by one
-- would have inserted. Per page: o_applied[i], and o_seq[i] for a stored document; per batch: the
-- claimed pages, the wake-ups, whether the job completed (and then its row).
-- Keep in step with page-finish-plans.sql, job-store.ts and team-gate.ts.
CREATE OR REPLACE FUNCTION finish_pages(
  p_job_id uuid, p_url_keys text[], p_oks boolean[], p_documents text[], p_doc_bytes integer[],
  p_credits integer[], p_errors text[], p_codes text[],
  p_link_pages integer[], p_keys text[], p_urls text[], p_depths integer[],
  p_blocked_pages integer[], p_blocked text[],
  p_max_claim integer, p_lease_ms integer,
  OUT o_applied boolean[], OUT o_seq integer[], OUT o_dispatch json, OUT o_wake json, OUT o_finished boolean,
  OUT o_team_id text, OUT o_job jobs)
LANGUAGE plpgsql
SET search_path FROM CURRENT
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $fn$
DECLARE
  j jobs;
  v_pages integer := coalesce(cardinality(p_url_keys), 0);
  v_applied integer := 0;
  v_ok integer := 0;
  v_credits integer := 0;
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
  o_applied := array_fill(false, ARRAY[v_pages]);
  o_seq := array_fill(NULL::integer, ARRAY[v_pages]);
  o_dispatch := '[]';
  o_wake := '[]';
  o_finished := false;
  SELECT * INTO j FROM jobs WHERE id = p_job_id FOR UPDATE;
  IF NOT FOUND OR v_pages = 0 THEN
    RETURN;
  END IF;

  -- A page no longer dispatched/queued was finished before (a redelivery, or twice in this batch):
  -- nothing changes for it.
  FOR i IN 1 .. v_pages LOOP
    UPDATE job_pages SET status = CASE WHEN p_oks[i] THEN 'done' ELSE 'failed' END,
      done_seq = CASE WHEN p_oks[i] THEN j.succeeded + v_ok + 1 END, document = p_documents[i],
      doc_bytes = p_doc_bytes[i], credits = p_credits[i], error = p_errors[i], error_code = p_codes[i],
      finished_at = now()
    WHERE job_id = p_job_id AND url_key = p_url_keys[i] AND status IN ('dispatched', 'queued');
    IF FOUND THEN
      o_applied[i] := true;
      v_applied := v_applied + 1;
      v_credits := v_credits + p_credits[i];
      IF p_oks[i] THEN
        v_ok := v_ok + 1;
        o_seq[i] := j.succeeded + v_ok;
      END IF;
    END IF;
  END LOOP;
  IF v_applied = 0 THEN
    RETURN;
  END IF;
  o_team_id := j.team_id;

  IF j.status = 'scraping' THEN
    -- The job row is locked, so nobody else inserts for this job now: filtering out known keys
    -- (and repeats within the batch) before LIMIT makes the page limit exact.
    IF j.page_limit - j.discovered > 0 AND cardinality(p_keys) > 0 THEN
      INSERT INTO job_pages (job_id, url_key, url, depth)
      SELECT p_job_id, f.k, f.u, f.d
      FROM (
        SELECT DISTINCT ON (c.k) c.k, c.u, c.d, c.o
        FROM unnest(p_keys, p_urls, p_depths, p_link_pages) WITH ORDINALITY AS c(k, u, d, pg, o)
        -- A probe of the primary key per link (see page-finish-plans.sql).
        WHERE o_applied[c.pg]
          AND (SELECT true FROM job_pages p WHERE p.job_id = p_job_id AND p.url_key = c.k) IS NULL
        ORDER BY c.k, c.o) f
      ORDER BY f.o
      LIMIT j.page_limit - j.discovered
      ON CONFLICT DO NOTHING;
      GET DIAGNOSTICS v_inserted = ROW_COUNT;
    END IF;
    IF cardinality(p_blocked) > 0 THEN
      INSERT INTO job_blocked (job_id, url)
      SELECT p_job_id, b.u FROM unnest(p_blocked, p_blocked_pages) AS b(u, pg) WHERE o_applied[b.pg]
      ON CONFLICT DO NOTHING;
    END IF;
  END IF;

  j.discovered := j.discovered + v_inserted;
  j.succeeded := j.succeeded + v_ok;
  j.failed := j.failed + v_applied - v_ok;
  j.inflight := greatest(j.inflight - v_applied, 0);
  v_inflight := j.inflight;

  IF j.status = 'scraping' THEN
    v_want := least(j.concurrency - j.inflight, j.discovered - j.succeeded - j.failed - j.inflight, p_max_claim);
    IF v_want > 0 THEN
      -- TeamGate.claim, as in page-finish-plans.sql.
      SELECT max_inflight INTO v_limit FROM jobs.team_limits WHERE team_id = j.team_id FOR UPDATE;
      IF NOT FOUND THEN
        INSERT INTO jobs.team_limits (team_id, max_inflight) VALUES (j.team_id, j.concurrency)
        ON CONFLICT (team_id) DO NOTHING;
        SELECT max_inflight INTO v_limit FROM jobs.team_limits WHERE team_id = j.team_id FOR UPDATE;
      END IF;
      SELECT t.wait_since INTO v_since FROM jobs.team_jobs t WHERE t.job_id = j.id;
      SELECT coalesce(sum(t.inflight), 0)::int INTO v_used FROM jobs.team_jobs t
      WHERE t.team_id = j.team_id AND t.job_id <> j.id AND t.lease_until > now();
      v_free := v_limit - j.inflight - v_used;
      SELECT count(*)::int INTO v_ahead FROM jobs.team_jobs w
      WHERE w.team_id = j.team_id AND w.job_id <> j.id AND w.wait_since IS NOT NULL AND w.lease_until > now()
        AND (v_since IS NULL OR w.wait_since < v_since);
      v_allowed := greatest(0, least(v_want, v_free - v_ahead));
      IF v_allowed > 0 THEN
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
      INSERT INTO jobs.team_jobs (job_id, team_id, kind, inflight, wait_since, lease_until)
      VALUES (j.id, j.team_id, j.kind, j.inflight + v_n,
        CASE WHEN v_n <> v_allowed OR v_n >= v_want THEN NULL WHEN v_n > 0 THEN now() ELSE coalesce(v_since, now()) END,
        now() + p_lease_ms * interval '1 millisecond')
      ON CONFLICT (job_id) DO UPDATE SET inflight = EXCLUDED.inflight, wait_since = EXCLUDED.wait_since,
        lease_until = EXCLUDED.lease_until;
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

  UPDATE jobs SET discovered = discovered + v_inserted, succeeded = succeeded + v_ok,
    failed = failed + v_applied - v_ok, inflight = v_inflight,
    credits_used = credits_used + v_credits, progressed_at = now(),
    status = CASE WHEN o_finished THEN 'completed' ELSE status END,
    finished_at = CASE WHEN o_finished THEN now() ELSE finished_at END
  WHERE id = p_job_id
  RETURNING * INTO j;

  IF o_finished OR (j.status = 'scraping' AND NOT v_claimed) THEN
    -- TeamGate.update, as in page-finish-plans.sql.
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

-- finish_page() (0006, 0007) becomes a batch of one, so the two cannot drift apart (a replica of an
-- older release, still calling it during a rolling upgrade, gets the same steps).
CREATE OR REPLACE FUNCTION finish_page(
  p_job_id uuid, p_url_key text, p_ok boolean, p_document text, p_doc_bytes integer, p_credits integer,
  p_error text, p_code text, p_keys text[], p_urls text[], p_depths integer[], p_blocked text[],
  p_max_claim integer, p_lease_ms integer,
  OUT o_applied boolean, OUT o_seq integer, OUT o_dispatch json, OUT o_wake json, OUT o_finished boolean,
  OUT o_team_id text, OUT o_job jobs)
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $fn$
DECLARE
  b record;
BEGIN
  SELECT * INTO b FROM finish_pages(p_job_id, ARRAY[p_url_key], ARRAY[p_ok], ARRAY[p_document],
    ARRAY[p_doc_bytes], ARRAY[p_credits], ARRAY[p_error], ARRAY[p_code],
    array_fill(1, ARRAY[coalesce(cardinality(p_keys), 0)]), p_keys, p_urls, p_depths,
    array_fill(1, ARRAY[coalesce(cardinality(p_blocked), 0)]), p_blocked, p_max_claim, p_lease_ms);
  o_applied := b.o_applied[1];
  o_seq := b.o_seq[1];
  o_dispatch := b.o_dispatch;
  o_wake := b.o_wake;
  o_finished := b.o_finished;
  o_team_id := b.o_team_id;
  o_job := b.o_job;
END
$fn$;
