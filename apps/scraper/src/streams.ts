import { STREAMS } from '@wds/contracts';

/**
 * Streams the scraper ensures at start: hits answered by gateways from hot copies arrive on the
 * first (ADR 0006); poison messages dead-letter into the second.
 */
export const SCRAPER_STREAMS = [STREAMS.WDS_SCRAPE_HITS_V1, STREAMS.WDS_DLQ_V1];
