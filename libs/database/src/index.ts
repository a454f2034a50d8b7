export * from './database';
export * from './migrations';
export type { QueryResult, QueryResultRow } from 'pg';
export * from './write-batcher';
