export { buildOpenApiDocument, type BuildOpenApiOptions, type OpenApiDocument } from './build-openapi';
export { OPERATIONS, type OperationDef, type NamedSchema, type HttpMethod } from './operations';
export { ARTIFACT_OPERATIONS, ArtifactIdParams } from './artifact-operations';
