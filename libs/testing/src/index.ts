export * from './databases';
export * from './fixture-site';
export * from './job-tables-upgrade';
export * from './model-server';
