export * from './messaging';
export type { ConsumeContext, ConsumeHandler, ConsumeOptions } from './consumer';
export { subjectMatches } from './codec';
export * from './nest';
