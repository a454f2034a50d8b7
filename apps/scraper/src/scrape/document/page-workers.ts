import type { OnModuleDestroy } from '@nestjs/common';
import { Semaphore } from '@wds/llm';
import { Piscina } from 'piscina';
import { pageWorkerFile, type PageTask, type PageTaskReply } from './page-worker';

export interface PageWorkerSettings {
  /** Worker threads (at least 1). */
  threads: number;
  /** Pages of at most this many characters are worked on the event loop (a few ms at most). */
  inlineMaxChars: number;
  /** Heap limit of each worker thread (MB): a page that needs more fails alone. */
  maxHeapMb: number;
}

/**
 * Worker threads for CPU-bound work on large pages (the HTML transform, the `attributes` format's
 * parse). Such work is synchronous: on the event loop a 20 MB page would hold every other scrape of
 * the replica, whoever asked for them, for up to a second. A task aborted by its signal (the
 * scrape's deadline) stops its thread (piscina starts another). The threads go to the teams with
 * waiting tasks in turn (the same per-tenant queue as the LLM port's slots), so one team's stream
 * of large pages delays another team's by one page per thread, not by its whole queue.
 */
export class PageWorkers implements OnModuleDestroy {
  private readonly pool: Piscina;
  private readonly turns: Semaphore;
  /** Tasks run in a thread so far (for tests and metrics). */
  ran = 0;

  constructor(readonly settings: PageWorkerSettings) {
    this.pool = new Piscina({
      filename: pageWorkerFile(),
      minThreads: settings.threads,
      maxThreads: settings.threads,
      idleTimeout: Infinity,
      resourceLimits: { maxOldGenerationSizeMb: settings.maxHeapMb },
    });
    this.turns = new Semaphore(settings.threads);
  }

  /** Whether a page of this HTML is worth a thread (larger than `inlineMaxChars`). */
  wants(html: string): boolean {
    return html.length > this.settings.inlineMaxChars;
  }

  /** Runs `task` in a thread when its team's turn comes (`tenant`: the team id; none: one queue). */
  async run(task: PageTask, signal?: AbortSignal, tenant = ''): Promise<PageTaskReply> {
    this.ran++;
    const release = await this.turns.acquire(signal, tenant);
    try {
      return (await this.pool.run(task, signal ? { signal } : {})) as PageTaskReply;
    } finally {
      release();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }
}
