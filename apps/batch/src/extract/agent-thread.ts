import type { AgentThreadReply, ExtractJobReply } from '@wds/contracts';

/** Earlier turns a run is told at most (the latest ones). */
export const THREAD_CONTEXT_TURNS = 5;
/** Characters of one earlier prompt or answer the run is told at most. */
const TURN_PART_MAX = 600;
/** Characters of the whole account of earlier turns at most. */
const THREAD_CONTEXT_MAX = 3_000;
/** The agent's task (the run request's prompt) is at most this long. */
export const AGENT_TASK_MAX = 10_000;

/** An earlier turn of a thread: what was asked and how that run ended. */
export interface EarlierTurn {
  turn: number;
  prompt: string;
  state: Pick<ExtractJobReply, 'status' | 'data' | 'message' | 'error' | 'finalUrl'>;
}

/**
 * What a run that continues a thread is told before its own prompt: the earlier turns (the latest
 * THREAD_CONTEXT_TURNS, each prompt and answer cut to TURN_PART_MAX characters, the whole to
 * THREAD_CONTEXT_MAX), oldest first, as data about the conversation, not as instructions. Empty
 * for a first turn.
 */
export function threadContext(earlier: readonly EarlierTurn[]): string {
  if (earlier.length === 0) return '';
  const lines: string[] = [];
  for (const t of earlier.slice(-THREAD_CONTEXT_TURNS)) {
    const answer =
      t.state.status === 'completed'
        ? (t.state.message ?? stringify(t.state.data))
        : t.state.status === 'processing'
          ? '(no answer yet)'
          : `(no answer: ${t.state.error ?? 'the run failed'})`;
    lines.push(
      `Turn ${t.turn}. Asked: ${cut(t.prompt)}\nAnswered: ${cut(answer)}` +
        (t.state.finalUrl ? `\nEnded on: ${t.state.finalUrl}` : ''),
    );
  }
  let account = lines.join('\n\n');
  // Keep the latest turns when the account is too long.
  if (account.length > THREAD_CONTEXT_MAX) account = `…${account.slice(account.length - THREAD_CONTEXT_MAX)}`;
  return `This request continues a conversation. Its earlier turns, oldest first:\n\n${account}\n\nThe new request:`;
}

/** The run's task: the account of the earlier turns, then the prompt (within AGENT_TASK_MAX). */
export function threadTask(context: string | undefined, prompt: string): string {
  if (!context) return prompt;
  const task = `${context}\n${prompt}`;
  return task.length <= AGENT_TASK_MAX ? task : task.slice(task.length - AGENT_TASK_MAX);
}

/** Where a follow-up without `urls` starts: the page the latest earlier turn ended on. */
export function continueFrom(earlier: readonly EarlierTurn[]): string | undefined {
  const url = earlier.at(-1)?.state.finalUrl;
  return url && /^https?:\/\//.test(url) ? url : undefined;
}

/** A run's status as a thread lists it. */
export function threadRunStatus(
  state: Pick<ExtractJobReply, 'status' | 'stopReason'>,
): AgentThreadReply['runs'][number]['status'] {
  if (state.status === 'processing') return 'processing';
  if (state.status === 'completed') return 'succeeded';
  if (state.stopReason === 'cancelled' || state.status === 'cancelled') return 'cancelled';
  if (state.stopReason === 'max_tokens') return 'credit_limit_reached';
  return 'failed';
}

function cut(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > TURN_PART_MAX ? `${flat.slice(0, TURN_PART_MAX - 1)}…` : flat;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '(no answer)';
  } catch {
    return '(no answer)';
  }
}
