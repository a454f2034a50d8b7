import { z } from 'zod';
import { ErrorEnvelope } from '../common/errors';
import { Document } from '../api/scrape/document';
import { WebhookEvent, WEBHOOK_SIGNATURE_HEADER } from '../api/webhooks/webhook-event';
import { OPERATIONS, type NamedSchema, type OperationDef } from './operations';

type JsonObject = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  tags: { name: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, JsonObject>>;
  webhooks: Record<string, Record<string, JsonObject>>;
  components: {
    schemas: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
    responses: Record<string, JsonObject>;
  };
}

export interface BuildOpenApiOptions {
  /** Base URL clients use, e.g. `https://wds.example.com`; default `/` (same origin). */
  serverUrl?: string;
}

const SCHEMA_REF = (name: string) => `#/components/schemas/${name}`;
const RESPONSE_REF = (status: number) => `#/components/responses/Error${status}`;
const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid body, query or path (the message names the field)',
  401: 'Missing or invalid API key',
  402: 'Not enough credits',
  403: 'Resource of another team, option not enabled, or destination refused by the network policy',
  404: 'Unknown resource (also SCRAPE_NO_CACHED_DATA / SCRAPE_LOCKDOWN_CACHE_MISS)',
  408: 'Timed out (SCRAPE_TIMEOUT)',
  409: 'Conflict (e.g. replay context unavailable; rerun the scrape)',
  410: 'Gone (e.g. browser session already destroyed)',
  413: 'Request body larger than the route allows (PAYLOAD_TOO_LARGE)',
  414: 'Request URL too long (URI_TOO_LONG)',
  415: 'Request body is not application/json (UNSUPPORTED_MEDIA_TYPE)',
  429: 'Rate or concurrency limit; see Retry-After',
  500: 'Internal error',
  501: 'Feature not available in this build (NOT_IMPLEMENTED)',
  502: 'Upstream (browser, AI agent, target) failed',
  503: 'Feature not configured or service unavailable',
  504: 'Upstream (e.g. the model server) did not answer in time (UPSTREAM_TIMEOUT)',
};
const COMMON_ERRORS = [401, 429, 500] as const;

/** JSON Schema keywords zod adds for standalone documents that do not belong inside OpenAPI. */
function stripDocumentKeys(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, id: _legacyId, ...rest } = schema;
  return rest;
}

function dropClosedObjects(ctx: { jsonSchema: { additionalProperties?: unknown } }): void {
  if (ctx.jsonSchema.additionalProperties === false) delete ctx.jsonSchema.additionalProperties;
}

/**
 * Converts named schemas through one registry so a schema used inside another becomes a `$ref` to
 * its component. Requests are converted as input (what a client may send, defaults optional),
 * responses as output (what the service returns).
 */
function convertComponents(
  named: readonly NamedSchema[],
  io: 'input' | 'output',
): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  const byName = new Map<string, z.ZodType>();
  for (const { name, schema } of named) {
    const known = byName.get(name);
    if (known && known !== schema) throw new Error(`OpenAPI: two schemas named ${name}`);
    if (known) continue;
    byName.set(name, schema);
    if (registry.has(schema)) throw new Error(`OpenAPI: schema ${name} registered under two names`);
    registry.add(schema, { id: name });
  }
  const converted = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    reused: 'inline',
    uri: SCHEMA_REF,
    // Answers may gain fields over time; a client validating them must not break on that.
    override: io === 'output' ? dropClosedObjects : undefined,
  });
  const out: Record<string, JsonObject> = {};
  for (const [name, schema] of Object.entries(converted.schemas))
    out[name] = stripDocumentKeys(schema as JsonObject);
  return out;
}

function parameters(op: OperationDef): JsonObject[] {
  const result: JsonObject[] = [];
  const add = (where: 'path' | 'query', obj: z.ZodObject | undefined) => {
    if (!obj) return;
    const schema = z.toJSONSchema(obj, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
    }) as JsonObject;
    const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, prop] of Object.entries(properties)) {
      const { description, ...propSchema } = prop;
      const param: JsonObject = { name, in: where, required: where === 'path' || required.has(name) };
      if (typeof description === 'string') param.description = description;
      param.schema = propSchema;
      result.push(param);
    }
  };
  add('path', op.pathParams);
  add('query', op.query);
  return result;
}

function operation(op: OperationDef): JsonObject {
  const responses: JsonObject = {};
  const success: JsonObject = { description: op.success.description };
  if (op.success.schema) {
    success.content = { 'application/json': { schema: { $ref: SCHEMA_REF(op.success.schema.name) } } };
  } else if (op.success.binary) {
    success.content = Object.fromEntries(
      op.success.binary.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]),
    );
  }
  responses[String(op.success.status)] = success;
  const statuses = [...new Set([...(op.errors ?? []), ...COMMON_ERRORS])].sort((a, b) => a - b);
  for (const status of statuses) responses[String(status)] = { $ref: RESPONSE_REF(status) };

  const result: JsonObject = {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    responses,
  };
  const params = parameters(op);
  if (params.length > 0) result.parameters = params;
  if (op.body) {
    result.requestBody = {
      required: true,
      content: { 'application/json': { schema: { $ref: SCHEMA_REF(op.body.name) } } },
    };
  }
  if (op.security === 'adminToken') result.security = [{ adminToken: [] }];
  return result;
}

function build(serverUrl: string): OpenApiDocument {
  const requestSchemas = OPERATIONS.flatMap((op) => (op.body ? [op.body] : []));
  const responseSchemas: NamedSchema[] = [
    { name: 'ErrorEnvelope', schema: ErrorEnvelope },
    { name: 'Document', schema: Document },
    { name: 'WebhookEvent', schema: WebhookEvent },
    ...OPERATIONS.flatMap((op) => (op.success.schema ? [op.success.schema] : [])),
  ];
  const requests = convertComponents(requestSchemas, 'input');
  const responses = convertComponents(responseSchemas, 'output');
  for (const name of Object.keys(requests)) {
    if (name in responses) throw new Error(`OpenAPI: ${name} is both a request and a response schema`);
  }

  const paths: OpenApiDocument['paths'] = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = operation(op);
  }

  const errorResponses: Record<string, JsonObject> = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    errorResponses[`Error${status}`] = {
      description,
      content: { 'application/json': { schema: { $ref: SCHEMA_REF('ErrorEnvelope') } } },
    };
  }

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: {
      title: 'Web Data Service API',
      version: '2.0.0',
      description:
        'Scraping, crawling, batch scraping, mapping, browser sessions and team usage; compatible with ' +
        'the Firecrawl v2 API. Every error answer is `{success: false, error, code?, details?}`.',
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(OPERATIONS.map((op) => op.tag))].map((name) => ({ name })),
    security: [{ apiKey: [] }],
    paths,
    webhooks: {
      jobEvent: {
        post: {
          summary: 'Crawl, batch scrape, extract and agent events delivered to the webhook URL of the job',
          parameters: [
            {
              name: WEBHOOK_SIGNATURE_HEADER,
              in: 'header',
              required: false,
              description: 'sha256=<hex> HMAC-SHA256 of the raw body; present when a secret is configured',
              schema: { type: 'string' },
            },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: SCHEMA_REF('WebhookEvent') } } },
          },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery' } },
        },
      },
    },
    components: {
      schemas: { ...requests, ...responses },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <WDS_ADMIN_TOKEN>',
        },
      },
      responses: errorResponses,
    },
  };
}

const cache = new Map<string, OpenApiDocument>();

/** The OpenAPI 3.1 document of the API, generated from the zod schemas once per server URL. */
export function buildOpenApiDocument(opts: BuildOpenApiOptions = {}): OpenApiDocument {
  const serverUrl = opts.serverUrl ?? '/';
  let doc = cache.get(serverUrl);
  if (!doc) {
    doc = build(serverUrl);
    cache.set(serverUrl, doc);
  }
  return doc;
}
