export * from './formats';
export * from './actions';
export * from './document';
export * from './scrape-request';
export * from './scrape-response';
export * from './scrape-cache';
