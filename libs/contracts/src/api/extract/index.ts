export * from './extract';
export * from './agent';
