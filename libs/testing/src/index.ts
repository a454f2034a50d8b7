export * from './databases';
export * from './fixture-site';
export * from './generated-site';
export * from './job-tables-upgrade';
export * from './model-server';
export * from './agent-site';
export * from './fault-proxy';
export * from './service-stack';
