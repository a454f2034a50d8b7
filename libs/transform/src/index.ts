export { transformHtml } from './transform';
export type { OutputFormat, PageMetadata, TransformOptions, TransformResult } from './types';
export { InvalidSelectorError, selectorProblem } from './filter/selectors';
export { BASE64_PLACEHOLDER } from './markdown/render';
export { aggregate, markdownToPlain, matchCounts, precision, recall } from './eval/score';
export type { Counts, Scores } from './eval/score';
