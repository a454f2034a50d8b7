import { CommonEnv } from '@wds/config';
import type { z } from 'zod';
import { scrapeEnvShape } from './scrape/scrape.config';

/** Environment of the scraper service: the common variables plus those of its features. */
export const ScraperConfig = CommonEnv.extend({ ...scrapeEnvShape });
export type ScraperConfig = z.output<typeof ScraperConfig>;
