import { ServiceError } from '@wds/contracts';
import { InvalidSelectorError, transformHtml } from '@wds/transform';
import { buildMetadata } from './metadata';
import { HtmlTransformer, type HtmlTransformOptions, type HtmlTransformResult } from './html-transformer';

/** HtmlTransformer backed by @wds/transform. */
export class TransformLibHtmlTransformer extends HtmlTransformer {
  transform(rawHtml: string, opts: HtmlTransformOptions): Promise<HtmlTransformResult> {
    try {
      const { metadata, ...formats } = transformHtml(rawHtml, opts);
      return Promise.resolve({ ...formats, metadata: buildMetadata(metadata) });
    } catch (err) {
      if (err instanceof InvalidSelectorError) {
        return Promise.reject(
          new ServiceError('BAD_REQUEST', `Invalid includeTags/excludeTags: ${err.message}`),
        );
      }
      return Promise.reject(err as Error);
    }
  }
}
