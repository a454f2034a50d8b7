export * from './types';
export * from './errors';
export * from './config';
export * from './budget';
export { compileSchema, parseAndValidate, type Validation } from './schema';
export { OpenAiCompatibleLlm, SCHEMA_MISMATCH_WARNING } from './client';
export { Semaphore } from './semaphore';
export { forTenant } from './tenant';
