import { ServiceError } from '@wds/contracts';
import { buildMetadata } from './metadata';
import { HtmlTransformer, type HtmlTransformOptions, type HtmlTransformResult } from './html-transformer';
import type { PageWorkers } from './page-workers';
import { TransformLibHtmlTransformer } from './transform-lib.html-transformer';

/**
 * The HTML transform with large pages in worker threads. `transformHtml` runs at ~40–90 MB/s on
 * one core: a 20 MB page holds the thread that runs it for a third of a second or more. Pages the
 * workers want (above their inline size) go there and the event loop keeps answering meanwhile;
 * small pages, the bulk, stay on the event loop, where the copy to and from a thread would cost
 * more than the transform. Without workers every page is transformed on the event loop.
 */
export class PooledHtmlTransformer extends HtmlTransformer {
  private readonly inline = new TransformLibHtmlTransformer();

  constructor(private readonly workers: PageWorkers | undefined) {
    super();
  }

  async transform(rawHtml: string, opts: HtmlTransformOptions): Promise<HtmlTransformResult> {
    if (this.workers === undefined || !this.workers.wants(rawHtml))
      return this.inline.transform(rawHtml, opts);
    const { teamId, ...transformOpts } = opts;
    const reply = await this.workers.run(
      { kind: 'transform', html: rawHtml, opts: transformOpts },
      undefined,
      teamId,
    );
    if (!reply.ok) {
      const message = 'invalidSelector' in reply ? reply.invalidSelector : reply.badRequest;
      throw new ServiceError('BAD_REQUEST', `Invalid includeTags/excludeTags: ${message}`);
    }
    if (!('transform' in reply)) throw new Error('page worker answered another task');
    const { metadata, ...formats } = reply.transform;
    return { ...formats, metadata: buildMetadata(metadata) };
  }
}
