import { makePdf } from '../../../test/support/pdf-fixture';
import { PdfParseExtractor, PdfReadError, pdfToMarkdown } from './pdf-extractor';

describe('PdfParseExtractor', () => {
  const extractor = new PdfParseExtractor();

  it('extracts text page by page and the title', async () => {
    const pdf = makePdf(['Hello page one', 'Second page text', 'Third'], 'Quarterly report');
    const text = await extractor.extract(pdf);
    expect(text.pages).toEqual(['Hello page one', 'Second page text', 'Third']);
    expect(text.title).toBe('Quarterly report');
    expect(pdfToMarkdown(text)).toBe('Hello page one\n\nSecond page text\n\nThird');
    // the caller's buffer is still usable (PDF.js detaches what it is given)
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('rejects bytes that are not a PDF', async () => {
    await expect(extractor.extract(Buffer.from('<html>not a pdf</html>'))).rejects.toBeInstanceOf(
      PdfReadError,
    );
  });
});
