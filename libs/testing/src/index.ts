export * from './databases';
export * from './fixture-site';
