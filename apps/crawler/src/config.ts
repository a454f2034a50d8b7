import { CommonEnv } from '@wds/config';
import type { z } from 'zod';

/** Environment of the crawler service: the common variables; its own are added here as features land. */
export const CrawlerConfig = CommonEnv.extend({});
export type CrawlerConfig = z.output<typeof CrawlerConfig>;
