import { decodeBody, normalizeCharset, sniffCharset } from './charset';

const html = (head: string, body: Buffer) =>
  Buffer.concat([
    Buffer.from(`<html><head>${head}</head><body>`, 'latin1'),
    body,
    Buffer.from('</body></html>'),
  ]);

// 日本語 in Shift_JIS, café in ISO-8859-1, "€5 – ok" in windows-1252 (0x80 and 0x96 only exist there).
const SJIS = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]);
const LATIN1 = Buffer.from('café', 'latin1');
const CP1252 = Buffer.from([0x80, 0x35, 0x20, 0x96, 0x20, 0x6f, 0x6b]);

describe('decodeBody', () => {
  it('uses the Content-Type charset first', () => {
    expect(decodeBody(LATIN1, 'text/plain; charset=ISO-8859-1')).toEqual({
      text: 'café',
      charset: 'windows-1252',
    });
    expect(decodeBody(SJIS, 'text/html; charset="Shift_JIS"').text).toBe('日本語');
  });

  it('sniffs <meta charset> when the header has none', () => {
    const { text, charset } = decodeBody(html('<meta charset="shift_jis">', SJIS), 'text/html');
    expect(charset).toBe('shift_jis');
    expect(text).toContain('日本語');
  });

  it('sniffs <meta http-equiv="Content-Type">', () => {
    const meta = '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">';
    const { text, charset } = decodeBody(html(meta, CP1252), undefined);
    expect(charset).toBe('windows-1252');
    expect(text).toContain('€5 – ok');
  });

  it('sniffs iso-8859-1 via meta and the XML declaration', () => {
    expect(decodeBody(html("<meta charset='iso-8859-1'>", LATIN1)).text).toContain('café');
    const xml = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a>'), LATIN1]);
    expect(decodeBody(xml, 'application/xml').text).toContain('café');
  });

  it('ignores a meta tag beyond the first 4 KB', () => {
    const late = Buffer.concat([Buffer.alloc(5000, 0x20), Buffer.from('<meta charset="shift_jis">'), SJIS]);
    expect(sniffCharset(late, 'text/html')).toBe('utf-8');
  });

  it('honours a byte-order mark and drops it', () => {
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo')]);
    expect(decodeBody(utf8, 'text/plain; charset=windows-1252')).toEqual({ text: 'héllo', charset: 'utf-8' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi', 'utf16le')]);
    expect(decodeBody(utf16)).toEqual({ text: 'hi', charset: 'utf-16le' });
  });

  it('defaults to utf-8 and ignores unknown labels', () => {
    expect(decodeBody(Buffer.from('naïve'))).toEqual({ text: 'naïve', charset: 'utf-8' });
    expect(decodeBody(Buffer.from('naïve'), 'text/html; charset=bogus-9').charset).toBe('utf-8');
  });

  it('treats a utf-16 meta declaration as utf-8, like browsers', () => {
    expect(sniffCharset(html('<meta charset="utf-16">', Buffer.from('x')))).toBe('utf-8');
  });
});

describe('normalizeCharset', () => {
  it('gives the same answers when asked again (they are remembered), unknown labels included', () => {
    for (let round = 0; round < 2; round++) {
      expect(normalizeCharset(' Latin1 ')).toBe('windows-1252');
      expect(normalizeCharset('UTF8')).toBe('utf-8');
      expect(normalizeCharset('no-such-charset')).toBeUndefined();
      expect(normalizeCharset('')).toBeUndefined();
    }
  });

  it('decodes with shared decoders without carrying state from one body to the next', () => {
    expect(decodeBody(Buffer.from([0xe2, 0x82]), 'text/plain; charset=utf-8').text).toBe('\ufffd');
    expect(decodeBody(Buffer.from([0xac, 0x41]), 'text/plain; charset=utf-8').text).toBe('\ufffdA');
    const bom = Buffer.from('\ufeffhé', 'utf8');
    expect(decodeBody(bom, 'text/plain; charset=utf-8').text).toBe('hé');
    expect(decodeBody(bom, 'text/plain; charset=utf-8').text).toBe('hé');
  });
});
