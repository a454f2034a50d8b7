export * from './batch-scrape';
