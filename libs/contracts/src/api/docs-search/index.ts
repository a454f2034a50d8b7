export * from './docs-search';
