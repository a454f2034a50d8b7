import { changedFields } from './json-changes';

describe('changeTracking json mode: changed fields', () => {
  it('keeps only the keys whose values differ, as {previous, current}; key order is no change', () => {
    expect(
      changedFields(
        { price: 10, name: 'Widget', tags: ['a'], spec: { w: 1, h: 2 } },
        { price: 12, name: 'Widget', tags: ['a', 'b'], spec: { h: 2, w: 1 }, stock: 3 },
      ),
    ).toEqual({
      price: { previous: 10, current: 12 },
      stock: { previous: null, current: 3 },
      tags: { previous: ['a'], current: ['a', 'b'] },
    });
    expect(changedFields({ a: 1 }, { a: 1 })).toEqual({});
  });
});
