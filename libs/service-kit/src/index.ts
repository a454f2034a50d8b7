export * from './tokens';
export * from './bootstrap';
export * from './discovery';
export * from './platform.module';
export * from './health.controller';
export * from './health-problems';
export * from './periodic';
