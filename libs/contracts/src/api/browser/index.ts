export * from './browser';
