export * from './artifact-signature';
