export * from './actions';
export * from './policy';
export * from './snapshot';
export * from './prompt';
export * from './browser';
export * from './loop';
