import path from 'node:path';
import { InvalidSelectorError } from './filter/selectors';
import { transformHtml } from './transform';
import type { TransformOptions, TransformResult } from './types';

/** What a transform worker thread is given: the page and the options of `transformHtml`. */
export interface TransformTask {
  html: string;
  opts: TransformOptions;
}

/** A worker thread's answer: the result, or the invalid selector that stopped it (any other error is thrown). */
export type TransformTaskReply =
  { ok: true; result: TransformResult } | { ok: false; invalidSelector: string };

/**
 * The task function a worker pool (piscina) runs: `transformHtml` in a thread of its own, so a large
 * page does not hold a service's event loop. An invalid selector comes back as a value (an Error's
 * class does not survive the thread boundary).
 */
export default function runTransformTask(task: TransformTask): TransformTaskReply {
  try {
    return { ok: true, result: transformHtml(task.html, task.opts) };
  } catch (err) {
    if (err instanceof InvalidSelectorError) return { ok: false, invalidSelector: err.message };
    throw err;
  }
}

/** The built worker module (`dist/worker.js`), from the sources or the build alike. */
export function transformWorkerFile(): string {
  return path.join(__dirname, '..', 'dist', 'worker.js');
}
