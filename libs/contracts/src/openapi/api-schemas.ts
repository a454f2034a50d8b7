// The schemas the OpenAPI document is generated from, gathered in one namespace.
export * from '../api/scrape';
export * from '../api/crawl';
export * from '../api/batch';
export * from '../api/extract';
export * from '../api/map';
export * from '../api/browser';
export * from '../api/interact';
export * from '../api/team';
export * from '../api/docs-search';
export * from '../api/search';
export * from '../api/admin';
export * from '../api/webhooks';
export * from '../api/webhook-deliveries';
