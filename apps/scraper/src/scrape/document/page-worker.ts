import { ServiceError, type Document, type FormatObject } from '@wds/contracts';
import {
  InvalidSelectorError,
  transformHtml,
  type TransformOptions,
  type TransformResult,
} from '@wds/transform';
import { extractAttributes } from '../formats/attributes';

/** Work on a page's HTML that a worker thread does instead of the event loop. */
export type PageTask =
  | { kind: 'transform'; html: string; opts: TransformOptions }
  | { kind: 'attributes'; html: string; format: Extract<FormatObject, { type: 'attributes' }> };

/**
 * A worker thread's answer: the result, or the caller's error as a value (an Error's class does not
 * survive the thread boundary); any other error is thrown.
 */
export type PageTaskReply =
  | { ok: true; transform: TransformResult }
  | { ok: true; attributes: NonNullable<Document['attributes']> }
  | { ok: false; invalidSelector: string }
  | { ok: false; badRequest: string; details?: Record<string, unknown> };

/** The task function the pool (piscina) runs in its threads: the module's default export. */
export default function runPageTask(task: PageTask): PageTaskReply {
  try {
    return task.kind === 'transform'
      ? { ok: true, transform: transformHtml(task.html, task.opts) }
      : { ok: true, attributes: extractAttributes(task.html, task.format) };
  } catch (err) {
    if (err instanceof InvalidSelectorError) return { ok: false, invalidSelector: err.message };
    if (err instanceof ServiceError && err.code === 'BAD_REQUEST') {
      return {
        ok: false,
        badRequest: err.message,
        details: err.details as Record<string, unknown> | undefined,
      };
    }
    throw err;
  }
}

/** This module as built JavaScript (what a worker thread loads), also when the caller runs from sources. */
export function pageWorkerFile(): string {
  return __filename.endsWith('.ts')
    ? __filename.replace(/\/src\/(?!.*\/src\/)/, '/dist/').replace(/\.ts$/, '.js')
    : __filename;
}
