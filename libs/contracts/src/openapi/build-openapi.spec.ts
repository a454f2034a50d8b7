import { compileErrors, validate } from '@readme/openapi-parser';
import { buildOpenApiDocument } from '../index';

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      doc,
    );
}

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument({ serverUrl: 'https://wds.example.com' });

  it('is OpenAPI 3.1 with a bearer scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://wds.example.com' }]);
    expect(doc.components.securitySchemes.apiKey).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
  });

  it('resolves every $ref inside the document', () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(50);
    const broken = refs.filter((ref) => resolvePointer(doc, ref) === undefined);
    expect(broken).toEqual([]);
  });

  it('lists every endpoint, each with responses and the error envelope', () => {
    const expected: Array<[string, string]> = [
      ['post', '/v2/scrape'],
      ['get', '/v2/scrape/{id}'],
      ['get', '/v2/artifacts/{id}'],
      ['post', '/v2/scrape/{jobId}/interact'],
      ['delete', '/v2/scrape/{jobId}/interact'],
      ['post', '/v2/browser/{sessionId}/execute'],
      ['get', '/v2/browser'],
      ['post', '/v2/crawl'],
      ['post', '/v2/crawl/params-preview'],
      ['get', '/v2/crawl/active'],
      ['get', '/v2/crawl/{id}'],
      ['delete', '/v2/crawl/{id}'],
      ['get', '/v2/crawl/{id}/errors'],
      ['post', '/v2/map'],
      ['post', '/v2/batch/scrape'],
      ['get', '/v2/batch/scrape/{id}'],
      ['delete', '/v2/batch/scrape/{id}'],
      ['get', '/v2/batch/scrape/{id}/errors'],
      ['get', '/v2/team/activity'],
      ['get', '/v2/team/token-usage/historical'],
      ['post', '/v2/support/docs-search'],
    ];
    for (const [method, path] of expected) {
      const op = doc.paths[path]?.[method] as { responses?: Record<string, unknown> } | undefined;
      expect({ path, method, found: op !== undefined }).toEqual({ path, method, found: true });
      expect(Object.keys(op!.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '500']));
    }
    expect((doc.paths['/v2/artifacts/{id}'].get as any).responses['200'].content).toEqual({
      'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
      'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
      'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } },
      'audio/mpeg': { schema: { type: 'string', contentMediaType: 'audio/mpeg' } },
      'video/mp4': { schema: { type: 'string', contentMediaType: 'video/mp4' } },
      'video/webm': { schema: { type: 'string', contentMediaType: 'video/webm' } },
    });
    expect(doc.components.responses.Error400).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    });
  });

  it("lists the admin route that sets a team's features", () => {
    const op = doc.paths['/admin/v1/teams/{teamId}/features']?.put as any;
    expect(op).toMatchObject({ operationId: 'adminSetFeatures', tags: ['Admin'] });
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(doc.components.schemas.AdminFeaturesRequest).toMatchObject({
      type: 'object',
      properties: { enterprise: { type: 'boolean' }, zeroDataRetention: { type: 'boolean' } },
      additionalProperties: false,
    });
  });

  it('documents request defaults and ranges from the zod schemas', () => {
    const scrape = doc.components.schemas.ScrapeRequest as any;
    expect(scrape.properties.timeout).toMatchObject({
      type: 'integer',
      minimum: 1000,
      maximum: 300000,
      default: 60000,
    });
    expect(scrape.properties.formats.default).toEqual(['markdown']);
    expect(scrape.required).toEqual(['url']);
    const activity = doc.paths['/v2/team/activity'].get as any;
    expect(activity.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'limit',
          in: 'query',
          schema: expect.objectContaining({ maximum: 100 }),
        }),
      ]),
    );
  });

  it('is returned from cache on later calls', () => {
    expect(buildOpenApiDocument({ serverUrl: 'https://wds.example.com' })).toBe(doc);
  });

  it('passes a full OpenAPI 3.1 validator', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.specification).toBe('OpenAPI');
  });
});
