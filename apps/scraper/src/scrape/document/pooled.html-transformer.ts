import type { OnModuleDestroy } from '@nestjs/common';
import { ServiceError } from '@wds/contracts';
import { transformWorkerFile, type TransformTask, type TransformTaskReply } from '@wds/transform';
import { Piscina } from 'piscina';
import { buildMetadata } from './metadata';
import { HtmlTransformer, type HtmlTransformOptions, type HtmlTransformResult } from './html-transformer';
import { TransformLibHtmlTransformer } from './transform-lib.html-transformer';

export interface PooledTransformSettings {
  /** Worker threads for large pages; 0 transforms every page on the event loop. */
  threads: number;
  /** Pages of at most this many characters are transformed on the event loop (a few ms at most). */
  inlineMaxChars: number;
  /** Heap limit of each worker thread (MB): a page that needs more fails alone. */
  maxHeapMb: number;
}

/**
 * The HTML transform with large pages in worker threads. `transformHtml` is synchronous and runs
 * at ~40–90 MB/s on one core: a 20 MB page holds the thread that runs it for a third of a second or
 * more. On the event loop that would stall every other scrape of the replica, whoever asked for
 * them; so pages above `inlineMaxChars` go to a pool of worker threads (piscina) and the event loop
 * keeps answering while they run. Small pages, the bulk, stay on the event loop, where the copy to
 * and from a thread would cost more than the transform.
 */
export class PooledHtmlTransformer extends HtmlTransformer implements OnModuleDestroy {
  private readonly inline = new TransformLibHtmlTransformer();
  private readonly pool: Piscina | undefined;

  constructor(private readonly settings: PooledTransformSettings) {
    super();
    this.pool =
      settings.threads > 0
        ? new Piscina({
            filename: transformWorkerFile(),
            minThreads: settings.threads,
            maxThreads: settings.threads,
            idleTimeout: Infinity,
            resourceLimits: { maxOldGenerationSizeMb: settings.maxHeapMb },
          })
        : undefined;
  }

  /** Pages transformed in a worker thread so far (for tests and metrics). */
  offloaded = 0;

  async transform(rawHtml: string, opts: HtmlTransformOptions): Promise<HtmlTransformResult> {
    if (this.pool === undefined || rawHtml.length <= this.settings.inlineMaxChars) {
      return this.inline.transform(rawHtml, opts);
    }
    this.offloaded++;
    const task: TransformTask = { html: rawHtml, opts: { ...opts } };
    const reply = (await this.pool.run(task)) as TransformTaskReply;
    if (!reply.ok) {
      throw new ServiceError('BAD_REQUEST', `Invalid includeTags/excludeTags: ${reply.invalidSelector}`);
    }
    const { metadata, ...formats } = reply.result;
    return { ...formats, metadata: buildMetadata(metadata) };
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.destroy();
  }
}
