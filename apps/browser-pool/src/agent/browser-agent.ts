import { ErrorCode, ServiceError, type AgentStep } from '@wds/contracts';
import { PageAgentBrowser, runAgent, type AgentRunResult, type NavigationPolicy } from '@wds/agent';
import { forTenant, type LlmPort } from '@wds/llm';
import type { Page } from 'playwright-core';

export interface AgentTask {
  /** The team the run is for: its model calls take turns with other teams' (LlmRequest.tenant). */
  teamId: string;
  task: string;
  schema?: Record<string, unknown>;
  maxSteps: number;
  /** Epoch ms. */
  deadline: number;
  policy: NavigationPolicy;
  startUrls?: readonly string[];
  /** Token budget of the run (status max_tokens once spent). */
  maxTokens?: number;
  /** Cancels the run (status cancelled), the model call in flight included. */
  signal?: AbortSignal;
  /** Called with each step as soon as it ends (must not block; a throw is ignored). */
  onStep?: (step: AgentStep) => void;
}

/**
 * The browser agent (libs/agent) on a page of this replica: a fresh render context for agent runs,
 * a live session's page for interact prompts. One LLM port per process (its concurrency cap is the
 * replica's).
 */
export class BrowserAgent {
  constructor(private readonly llm: LlmPort) {}

  get enabled(): boolean {
    return this.llm.enabled;
  }

  get model(): string {
    return this.llm.modelFor('agent');
  }

  /** BAD_REQUEST before any browser work when no LLM is configured. */
  requireLlm(): void {
    if (!this.llm.enabled) {
      throw new ServiceError(
        ErrorCode.BAD_REQUEST,
        'prompt: the browser agent needs an LLM, and no LLM provider is configured on this service (WDS_LLM_BASE_URL); send code instead',
        { field: 'prompt' },
      );
    }
  }

  run(page: Page, t: AgentTask): Promise<AgentRunResult> {
    return runAgent({
      llm: forTenant(this.llm, t.teamId),
      browser: new PageAgentBrowser(page),
      task: t.task,
      schema: t.schema,
      maxSteps: t.maxSteps,
      deadline: t.deadline,
      policy: t.policy,
      startUrls: t.startUrls,
      maxTokens: t.maxTokens,
      signal: t.signal,
      onStep: t.onStep,
    });
  }
}
