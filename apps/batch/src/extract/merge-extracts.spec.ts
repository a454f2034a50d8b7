import { mergeExtracts } from './merge-extracts';

const A = 'https://a.test/1';
const B = 'https://a.test/2';
const C = 'https://a.test/3';

describe('mergeExtracts', () => {
  it('concatenates arrays in page order and drops duplicates (case, spacing and key order aside)', () => {
    const { data, sources } = mergeExtracts([
      {
        url: A,
        data: {
          products: [
            { name: 'Kettle', price: 25 },
            { name: 'Mug', price: 5 },
          ],
        },
      },
      {
        url: B,
        data: {
          products: [
            { price: 5, name: ' mug ' },
            { name: 'Teapot', price: 40 },
          ],
        },
      },
    ]);
    expect(data).toEqual({
      products: [
        { name: 'Kettle', price: 25 },
        { name: 'Mug', price: 5 },
        { name: 'Teapot', price: 40 },
      ],
    });
    expect(sources['products[0]']).toEqual([A]);
    expect(sources['products[1]']).toEqual([A, B]);
    expect(sources['products[2]']).toEqual([B]);
    expect(sources['products[1].name']).toEqual([A, B]);
  });

  it('chooses scalars by agreement, the earliest page on a tie, and ignores empty answers', () => {
    const majority = mergeExtracts([
      { url: A, data: { company: 'Acme', founded: 1999 } },
      { url: B, data: { company: 'ACME ', founded: 2001 } },
      { url: C, data: { company: 'Other', founded: 2001 } },
    ]);
    expect(majority.data).toEqual({ company: 'Acme', founded: 2001 });
    expect(majority.sources.company).toEqual([A, B]);
    expect(majority.sources.founded).toEqual([B, C]);

    const tie = mergeExtracts([
      { url: A, data: { ceo: null } },
      { url: B, data: { ceo: 'Ada' } },
      { url: C, data: { ceo: 'Grace' } },
    ]);
    expect(tie.data).toEqual({ ceo: 'Ada' });
    expect(tie.sources.ceo).toEqual([B]);
  });

  it('merges nested objects key by key and keeps the schema property order', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        address: { type: 'object', properties: { city: { type: 'string' } } },
      },
    };
    const { data } = mergeExtracts(
      [
        { url: A, data: { address: { city: 'Oslo' } } },
        { url: B, data: { name: 'Kafe', address: { street: 'Main 1' } } },
      ],
      schema,
    );
    expect(data).toEqual({ name: 'Kafe', address: { city: 'Oslo', street: 'Main 1' } });
    expect(Object.keys(data as object)).toEqual(['name', 'address']);
  });

  it('keeps a list where the schema says array even when a page answered one item', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } };
    const { data } = mergeExtracts(
      [
        { url: A, data: { tags: 'red' } },
        { url: B, data: { tags: ['blue', 'Red'] } },
      ],
      schema,
    );
    expect(data).toEqual({ tags: ['red', 'blue'] });
  });

  it("keeps a merged list within the schema's maxItems, earliest items first", () => {
    const schema = {
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' }, maxItems: 3 } },
    };
    const { data, sources } = mergeExtracts(
      [
        { url: A, data: { tags: ['a', 'b'] } },
        { url: B, data: { tags: ['c', 'd'] } },
      ],
      schema,
    );
    expect(data).toEqual({ tags: ['a', 'b', 'c'] });
    expect(sources['tags[3]']).toBeUndefined();
  });

  it('answers an empty object when no page gave anything, and keeps empty lists as lists', () => {
    expect(mergeExtracts([], { type: 'object' }).data).toEqual({});
    expect(mergeExtracts([{ url: A, data: null }]).data).toEqual({});
    expect(
      mergeExtracts([
        { url: A, data: { items: [] } },
        { url: B, data: { items: [] } },
      ]).data,
    ).toEqual({
      items: [],
    });
    expect(mergeExtracts([], { type: 'array' }).data).toEqual([]);
  });

  it('merges top-level arrays (a schema of type array)', () => {
    const { data, sources } = mergeExtracts(
      [
        { url: A, data: ['x', 'y'] },
        { url: B, data: ['Y', 'z'] },
      ],
      { type: 'array', items: { type: 'string' } },
    );
    expect(data).toEqual(['x', 'y', 'z']);
    expect(sources['[1]']).toEqual([A, B]);
  });
});
