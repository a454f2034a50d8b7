import type { CodeLanguage, ExecuteResult, SessionExecuteReply } from '@wds/contracts';

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
