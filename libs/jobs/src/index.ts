export * from './job.types';
export * from './job-store';
export * from './job-events';
export * from './page-dispatcher';
export * from './page-runner';
export * from './job-queries';
export * from './job-watchdog';
