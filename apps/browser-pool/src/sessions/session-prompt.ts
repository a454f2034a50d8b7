import { randomUUID } from 'node:crypto';
import type {
  AgentStep,
  SessionPromptReply,
  SessionPromptRequest,
  TokenUsageEventInput,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import { AGENT_MAX_STEPS } from '@wds/contracts';
import type { BrowserAgent } from '../agent/browser-agent';
import type { SessionManager } from './session-manager';
import type { SessionStore } from './session-store';

/** Stores the tokens of a prompt for the team's token usage (libs/credits reportTokens). */
export type PromptTokenSink = (event: TokenUsageEventInput) => Promise<void>;

/** The step log as the interact `stdout`: one line per step. */
export function stepLog(steps: readonly AgentStep[]): string {
  return steps
    .map((s) => {
      const parts = [`[${s.step}] ${s.action}`];
      if (s.target) parts.push(s.target);
      if (s.value !== undefined) parts.push(JSON.stringify(s.value));
      parts.push(`-> ${s.outcome}${s.detail ? `: ${s.detail.replace(/\s+/g, ' ')}` : ''}`);
      return parts.join(' ');
    })
    .join('\n');
}

/**
 * An interact prompt: the browser agent works the session's current page (after any code still
 * running in it), at most 25 steps and the call's timeout. The session is marked before the run, so
 * from then on it is billed at the prompt rate whatever ends it; the tokens go to token usage.
 */
export class PromptSessionUseCase {
  constructor(
    private readonly sessions: SessionManager,
    private readonly store: SessionStore,
    private readonly agent: BrowserAgent,
    private readonly tokens: PromptTokenSink,
    private readonly logger: Logger,
  ) {}

  async execute(req: SessionPromptRequest): Promise<SessionPromptReply> {
    this.agent.requireLlm();
    const session = await this.sessions.owned(req.teamId, req.sessionId);
    await this.store.markPromptUsed(session.record.id);
    void this.store.touch(session.record.id).catch(() => undefined);
    const result = await session.exclusive(async () =>
      this.agent.run(await session.page(), {
        teamId: req.teamId,
        task: req.prompt,
        maxSteps: AGENT_MAX_STEPS,
        deadline: Date.now() + req.timeoutSeconds * 1000,
        policy: {},
      }),
    );
    const usage = result.usage;
    if (!usage.estimated && usage.totalTokens > 0) {
      await this.tokens({
        eventId: `interact:${session.record.id}:prompt:${randomUUID()}`,
        teamId: req.teamId,
        apiKey: req.apiKey,
        endpoint: 'interact',
        jobId: session.record.scrapeJobId ?? session.record.id,
        model: result.model,
        inputTokens: usage.promptTokens,
        outputTokens: usage.completionTokens,
        at: Date.now(),
      }).catch((err: unknown) =>
        this.logger.warn({ err, sessionId: session.record.id }, 'interact prompt token usage not recorded'),
      );
    }
    const completed = result.status === 'completed';
    return {
      status: result.status,
      output: result.output,
      steps: result.steps,
      tokens: { input: usage.promptTokens, output: usage.completionTokens },
      model: result.model,
      stdout: stepLog(result.steps),
      result: result.finalSnapshot,
      stderr: result.warnings.join('\n'),
      exitCode: completed ? 0 : 1,
      killed: result.status === 'timeout',
      truncated: false,
      ...(completed ? {} : { error: result.output }),
    };
  }
}
