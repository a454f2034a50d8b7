export * from './public-body';
export * from './url';
export * from './location';
export * from './format-zod-error';
export * from './http-headers';
export * from './user-regex';
