export * from './credit-blocks';
export * from './activity-recorder';
