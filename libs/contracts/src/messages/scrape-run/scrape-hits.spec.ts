import { ScrapeHitBatch, packHitBatch, unpackHitBatch, type ScrapeHitRecord } from './index';

const hit = (jobId: string, documentGz: string): ScrapeHitRecord => ({
  teamId: 't',
  jobId,
  url: 'https://a.test/',
  fetchedAt: 1,
  creditsUsed: 1,
  documentGz,
});

describe('hit batches', () => {
  it('carry each distinct document once and unpack to the same hits', () => {
    const ids = [
      '3f0c7f52-5b1e-4f4e-9d43-6a1f0a3c2b11',
      '9a3c2b11-6a1f-4f4e-9d43-5b1e3f0c7f52',
      'c2b116a1-3f0c-4f4e-9d43-7f525b1e0a3c',
    ];
    const hits = [hit(ids[0], 'AAA'), hit(ids[1], 'BBB'), hit(ids[2], 'AAA')];
    const batch = packHitBatch(hits);
    expect(batch.documents).toEqual(['AAA', 'BBB']);
    expect(batch.hits.map((h) => h.document)).toEqual([0, 1, 0]);
    expect(ScrapeHitBatch.parse(batch)).toEqual(batch);
    expect(unpackHitBatch(batch)).toEqual(hits);
  });

  it('refuses a hit naming a document the batch does not carry', () => {
    const batch = packHitBatch([hit('3f0c7f52-5b1e-4f4e-9d43-6a1f0a3c2b11', 'AAA')]);
    expect(ScrapeHitBatch.safeParse({ ...batch, hits: [{ ...batch.hits[0], document: 1 }] }).success).toBe(
      false,
    );
  });
});
