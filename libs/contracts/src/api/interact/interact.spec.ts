import { ExecuteRequest, InteractRequest } from '../../index';

describe('InteractRequest', () => {
  it('accepts code alone with defaults', () => {
    expect(InteractRequest.parse({ code: 'await page.title()' })).toEqual({
      code: 'await page.title()',
      language: 'node',
      timeout: 30,
    });
  });

  it('accepts a prompt alone, with the language the SDK always sends', () => {
    expect(
      InteractRequest.parse({ prompt: 'click login', language: 'node', origin: 'js-sdk@4' }).prompt,
    ).toBe('click login');
  });

  it('requires exactly one of code and prompt', () => {
    expect(InteractRequest.safeParse({}).success).toBe(false);
    expect(InteractRequest.safeParse({ code: 'a', prompt: 'b' }).success).toBe(false);
  });

  it('enforces lengths and the timeout range', () => {
    expect(InteractRequest.safeParse({ code: '' }).success).toBe(false);
    expect(InteractRequest.safeParse({ code: 'x'.repeat(100001) }).success).toBe(false);
    expect(InteractRequest.safeParse({ prompt: 'x'.repeat(10001) }).success).toBe(false);
    expect(InteractRequest.safeParse({ code: 'a', timeout: 0 }).success).toBe(false);
    expect(InteractRequest.safeParse({ code: 'a', timeout: 301 }).success).toBe(false);
    expect(InteractRequest.safeParse({ code: 'a', language: 'ruby' }).success).toBe(false);
  });
});

describe('ExecuteRequest', () => {
  it('requires code and defaults the language to node', () => {
    expect(ExecuteRequest.parse({ code: 'ls' })).toEqual({ code: 'ls', language: 'node' });
    expect(ExecuteRequest.safeParse({ language: 'bash' }).success).toBe(false);
    expect(ExecuteRequest.safeParse({ code: 'ls', timeout: 301 }).success).toBe(false);
  });
});
