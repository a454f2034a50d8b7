import { randomUUID } from 'node:crypto';
import type { ActivityEndpoint } from '@wds/contracts';
import { reportTokens } from '@wds/credits';
import type { LlmUsage } from '@wds/llm';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { AuthenticatedTeam } from '../teams/team';

/**
 * Reports the tokens of a model call the gateway made itself (crawl options from a prompt, an
 * extract's search query) to the team's usage. Estimated counts (the provider reported none) are
 * not reported; a failed report is logged, never the caller's error. Returns the tokens put on the
 * team's books (0 for estimated counts).
 */
export async function reportGatewayLlmUsage(
  messaging: Messaging,
  logger: Logger,
  call: {
    /** Names the kind of call in the event id (`crawl-params`, `extract-query`). */
    kind: string;
    team: AuthenticatedTeam;
    endpoint: ActivityEndpoint;
    result: { usage: LlmUsage; model: string };
  },
): Promise<number> {
  const { usage, model } = call.result;
  if (usage.estimated) return 0;
  await reportTokens(messaging, {
    eventId: `${call.kind}:${randomUUID()}`,
    teamId: call.team.teamId,
    apiKey: call.team.keyPrefix,
    endpoint: call.endpoint,
    model,
    inputTokens: usage.promptTokens,
    outputTokens: usage.completionTokens,
    at: Date.now(),
  }).catch((err: unknown) => logger.warn({ err }, 'LLM token usage not recorded'));
  return usage.totalTokens;
}
