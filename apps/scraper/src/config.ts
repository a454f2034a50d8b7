import { CommonEnv } from '@wds/config';
import type { z } from 'zod';

/** Environment of the scraper service: the common variables; its own are added here as features land. */
export const ScraperConfig = CommonEnv.extend({});
export type ScraperConfig = z.output<typeof ScraperConfig>;
