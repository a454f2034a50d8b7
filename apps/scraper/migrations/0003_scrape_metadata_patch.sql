-- A cache hit stores the cached entry's compressed document as it is and only the metadata that
-- differs per request (scrapeId, cacheState, cachedAt, creditsUsed) here, merged when read back:
-- no re-encoding and re-compressing of the whole document for every cache hit.
ALTER TABLE scraper.scrapes ADD COLUMN metadata_patch jsonb;
