export * from './processes';
export * from './model-catalogue';
export * from './model-server';
export * from './searxng';
