import type { OnModuleDestroy } from '@nestjs/common';
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
 * scrape's deadline) stops its thread (piscina starts another).
 */
export class PageWorkers implements OnModuleDestroy {
  private readonly pool: Piscina;
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
  }

  /** Whether a page of this HTML is worth a thread (larger than `inlineMaxChars`). */
  wants(html: string): boolean {
    return html.length > this.settings.inlineMaxChars;
  }

  async run(task: PageTask, signal?: AbortSignal): Promise<PageTaskReply> {
    this.ran++;
    return (await this.pool.run(task, signal ? { signal } : {})) as PageTaskReply;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }
}
