export * from './webhook-config';
export * from './webhook-event';
