import { compileSchema, parseAndValidate } from './schema';

describe('compileSchema: patterns run in linear time', () => {
  it('tests a catastrophic pattern against a hostile string at once', () => {
    const validate = compileSchema({
      type: 'object',
      properties: { sku: { type: 'string', pattern: '^(a+)+$' } },
      patternProperties: { '^(x+x+)+y$': { type: 'number' } },
    });
    // With a backtracking engine each of these takes longer than the test's timeout.
    const hostile = `${'a'.repeat(5000)}!`;
    expect(parseAndValidate(JSON.stringify({ sku: hostile }), validate).valid).toBe(false);
    expect(parseAndValidate(JSON.stringify({ [`${'x'.repeat(5000)}`]: 'n' }), validate).valid).toBe(true);
    expect(parseAndValidate(JSON.stringify({ sku: 'aaaa' }), validate).valid).toBe(true);
  });

  it('draft 2020-12 schemas too', () => {
    const validate = compileSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'string',
      pattern: '^(a|aa)+$',
    });
    expect(parseAndValidate(JSON.stringify(`${'a'.repeat(5000)}b`), validate).valid).toBe(false);
  });

  it('refuses lookaround and backreferences as an invalid schema (RE2 has neither)', () => {
    expect(() => compileSchema({ type: 'string', pattern: '^(?!x)a$' })).toThrow(
      /JSON schema is invalid: pattern "\^\(\?!x\)a\$" is not supported \(RE2 syntax/,
    );
    expect(() => compileSchema({ type: 'string', pattern: '(a)\\1' })).toThrow(/JSON schema is invalid/);
  });
});
