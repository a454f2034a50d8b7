import type { CodeLanguage, ExecuteResult, SessionExecuteReply, SessionPromptReply } from '@wds/contracts';

/**
 * The public result of running code: `success` is false when the code failed (non-zero exit or
 * killed), with `error` naming why; `result` is the last expression's value (node, python) or the
 * output (bash).
 */
export function executeResult(reply: SessionExecuteReply, language: CodeLanguage): ExecuteResult {
  const failed = reply.exitCode !== 0 || reply.killed;
  const result = language === 'bash' ? (reply.stdout ?? null) : reply.result;
  return {
    success: !failed,
    stdout: reply.stdout ?? '',
    result: result ?? null,
    stderr: reply.stderr ?? '',
    exitCode: reply.exitCode,
    killed: reply.killed,
    ...(reply.truncated ? { truncated: true } : {}),
    ...(failed ? { error: reply.error ?? (reply.stderr || 'Execution failed') } : {}),
  };
}

/**
 * The public result of an interact prompt: `output` is the agent's final answer, `stdout` the step
 * log (one line per step), `result` the last page snapshot it saw; a run that did not finish (step
 * limit, timeout, model failure) is `success: false` with `error` saying why (`killed` on timeout).
 */
export function promptResult(reply: SessionPromptReply): ExecuteResult & { output: string } {
  const failed = reply.exitCode !== 0;
  return {
    success: !failed,
    output: reply.output,
    stdout: reply.stdout ?? '',
    result: reply.result ?? null,
    stderr: reply.stderr ?? '',
    exitCode: reply.exitCode,
    killed: reply.killed,
    ...(failed ? { error: reply.error ?? reply.output } : {}),
  };
}
