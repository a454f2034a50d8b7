export * from './team';
