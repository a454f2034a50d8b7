import { CommonEnv } from '@wds/config';
import type { z } from 'zod';

/** Environment of the docs-search service: the common variables; its own are added here as features land. */
export const DocsSearchConfig = CommonEnv.extend({});
export type DocsSearchConfig = z.output<typeof DocsSearchConfig>;
