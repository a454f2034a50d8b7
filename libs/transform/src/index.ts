export { transformHtml } from './transform';
export type { OutputFormat, PageMetadata, TransformOptions, TransformResult } from './types';
export { InvalidSelectorError } from './filter/selectors';
export { BASE64_PLACEHOLDER } from './markdown/render';
