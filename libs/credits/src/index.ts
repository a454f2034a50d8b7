export * from './credit-blocks';
