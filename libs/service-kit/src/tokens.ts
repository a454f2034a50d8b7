/** Injection token of the parsed, typed configuration object. */
export const APP_CONFIG = 'APP_CONFIG';
/** Injection token of the service's pino logger. */
export const LOGGER = 'LOGGER';
