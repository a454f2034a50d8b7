export * from './common/errors';
export * from './messages/define';
