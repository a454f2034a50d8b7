import { z } from 'zod';
import { InteractRequest, ScrapeRequest, ServiceError, formatZodError, parseOrThrow } from '../../index';

function errorOf(schema: z.ZodType, value: unknown) {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a validation error');
  return formatZodError(result.error);
}

describe('formatZodError', () => {
  it('names the path of a bad format', () => {
    const { message, details } = errorOf(ScrapeRequest, { url: 'https://e.com', formats: ['markdwn'] });
    expect(message).toMatch(/^formats\.0: Invalid option/);
    expect(message).toContain('"markdown"');
    expect(details[0]).toMatchObject({ path: 'formats.0', code: 'invalid_value' });
  });

  it('explains an unknown format object type at its type field', () => {
    const { message } = errorOf(ScrapeRequest, { url: 'https://e.com', formats: [{ type: 'nope' }] });
    expect(message).toMatch(/^formats\.0\.type: Invalid format type: expected one of markdown/);
  });

  it('descends into the matching union branch', () => {
    const { message } = errorOf(ScrapeRequest, {
      url: 'https://e.com',
      formats: [{ type: 'screenshot', quality: 101 }],
    });
    expect(message).toMatch(/^formats\.0\.quality: Too big/);
  });

  it('names unknown keys one by one and lists several problems', () => {
    const { message, details } = errorOf(ScrapeRequest, { url: 'https://e.com', foo: 1, bar: 2, timeout: 5 });
    expect(details.map((d) => d.path).sort()).toEqual(['bar', 'foo', 'timeout']);
    expect(message).toContain('foo: Unrecognized key');
    expect(message).toContain('timeout: Too small');
  });

  it('uses the refinement message for whole-body rules', () => {
    expect(errorOf(InteractRequest, { code: 'a', prompt: 'b' }).message).toBe(
      'Exactly one of code or prompt must be given',
    );
  });

  it('summarises beyond three problems', () => {
    const { message, details } = errorOf(ScrapeRequest, { a: 1, b: 2, c: 3, d: 4 });
    expect(details.length).toBe(5);
    expect(message).toMatch(/\(and 2 more\)$/);
  });
});

describe('parseOrThrow', () => {
  it('returns the parsed value or throws a 400 ServiceError naming the field', () => {
    expect(parseOrThrow(ScrapeRequest, { url: 'https://e.com' }).timeout).toBe(60000);
    let thrown: unknown;
    try {
      parseOrThrow(ScrapeRequest, { url: 'https://e.com', timeout: 999 });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect((thrown as ServiceError).status).toBe(400);
    expect((thrown as ServiceError).toEnvelope()).toMatchObject({
      success: false,
      code: 'BAD_REQUEST',
      error: expect.stringMatching(/^timeout: /),
    });
  });
});
