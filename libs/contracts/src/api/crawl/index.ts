export * from './crawl-request';
export * from './crawl-responses';
