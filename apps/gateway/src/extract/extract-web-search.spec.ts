import { ExtractRequest } from '@wds/contracts';
import { ExtractWebSearch, mergePages, plainQuery, promptQuery } from './extract-web-search';

describe('the web search of an extract job', () => {
  it('uses a short prompt as it is, whitespace collapsed', () => {
    expect(promptQuery('  The price of the\n\nBlue Kettle  ')).toBe('The price of the Blue Kettle');
  });

  it('cuts a long prompt after a sentence, else at a word, never past 300 characters', () => {
    const first = 'Find the pricing tiers of the Acme kettle subscription and what each one includes.';
    const long = `${first} ${'Return every tier with its monthly price, its yearly price and its limits. '.repeat(10)}`;
    const q = promptQuery(long);
    expect(q.length).toBeLessThanOrEqual(300);
    expect(q.startsWith(first)).toBe(true);
    expect(q.endsWith('.')).toBe(true);
    const words = promptQuery('word '.repeat(200));
    expect(words.length).toBeLessThanOrEqual(300);
    expect(words.endsWith('word')).toBe(true);
    const one = promptQuery('x'.repeat(1000));
    expect(one).toHaveLength(300);
  });

  it('drops the leading words SearXNG would read as its own syntax', () => {
    expect(plainQuery('!g :de  blue kettle price')).toBe('blue kettle price');
    expect(plainQuery('blue !kettle')).toBe('blue !kettle');
    expect(plainQuery('!!')).toBe('');
  });

  it('keeps the request’s pages first and adds new ones up to the limit', () => {
    const given = ['https://shop.example/kettle', 'https://shop.example/mug/'];
    const found = [
      'https://shop.example/mug',
      'https://shop.example/kettle#reviews',
      'https://other.example/a',
      'https://other.example/b',
      'https://other.example/a',
    ];
    expect(mergePages(given, found, 10)).toEqual([
      ...given,
      'https://other.example/a',
      'https://other.example/b',
    ]);
    expect(mergePages(given, found, 3)).toEqual([...given, 'https://other.example/a']);
    expect(mergePages([], found, 2)).toEqual([
      'https://shop.example/mug',
      'https://shop.example/kettle#reviews',
    ]);
  });

  it('searches when the request names no page or asks for it', () => {
    const parse = (body: unknown) => ExtractRequest.parse(body);
    expect(ExtractWebSearch.wanted(parse({ prompt: 'The price of the Blue Kettle' }))).toBe(true);
    expect(ExtractWebSearch.wanted(parse({ urls: ['https://a.example/'], prompt: 'x' }))).toBe(false);
    expect(
      ExtractWebSearch.wanted(parse({ urls: ['https://a.example/'], prompt: 'x', enableWebSearch: true })),
    ).toBe(true);
  });

  it('refuses what cannot be searched for with the reason', () => {
    const problems = (body: unknown) => {
      const r = ExtractRequest.safeParse(body);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(problems({ schema: { type: 'object' } })).toEqual([
      expect.stringContaining('a prompt (the pages are then found by a web search for it)'),
    ]);
    expect(
      problems({ urls: ['https://a.example/'], schema: { type: 'object' }, enableWebSearch: true }),
    ).toEqual(['enableWebSearch needs a prompt: the web search is for what the prompt asks']);
    expect(problems({ prompt: 'x', enableWebSearch: 'yes' })).toHaveLength(1);
  });
});
