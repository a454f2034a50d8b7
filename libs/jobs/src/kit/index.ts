export * from './job-service.env';
export * from './job-kit';
export * from './job-service.module';
