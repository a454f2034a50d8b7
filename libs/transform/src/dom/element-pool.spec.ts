import { transformHtml } from '../transform';
import { elementMark, El, F } from './node';
import { parseHtml } from './parse';

const MARKDOWN = new Set(['markdown', 'links'] as const);
const page = (title: string, n: number): string =>
  `<html><head><title>${title}</title></head><body><nav><a href="/home">Home</a></nav><main><h1>${title}</h1>${Array.from(
    { length: n },
    (_, i) =>
      `<p class="para p${i}">Paragraph ${i} of ${title}, with <a href="/p/${i}">a link</a> and <em>emphasis</em>.</p>`,
  ).join('')}</main><footer>Footer</footer></body></html>`;

function textOf(el: El): string {
  return el.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

describe('element pool', () => {
  it('gives every pooled element back after a transform, also when it throws', () => {
    const before = elementMark();
    transformHtml(page('One', 30), { url: 'https://example.com/', formats: MARKDOWN });
    expect(elementMark()).toBe(before);
    expect(() =>
      transformHtml(page('Two', 5), {
        url: 'https://example.com/',
        formats: MARKDOWN,
        includeTags: ['p[unclosed'],
      }),
    ).toThrow();
    expect(elementMark()).toBe(before);
  });

  it('reuses elements without carrying anything from the page before', () => {
    const opts = { url: 'https://example.com/a', formats: MARKDOWN };
    // Pages of other shapes than the one before: the element at a position where the previous page
    // had its (removed) navigation or its link-dense footer is now the main text, so a flag, a text
    // length or a child list left on a pooled element would change what is kept.
    const other = (title: string): string =>
      `<html><body><div><p>${title}: the first paragraph of the text, long enough to count as prose on its own for the scorer.</p><p>A second paragraph of ${title} with more words in it, so that the page has text.</p></div></body></html>`;
    const fresh = [other('Alpha'), other('Beta')].map((html) => transformHtml(html, opts));
    for (let round = 0; round < 3; round++) {
      transformHtml(page(`Large ${round}`, 200 + round * 50), opts);
      const again = [other('Alpha'), other('Beta')].map((html) => transformHtml(html, opts));
      expect(again).toEqual(fresh);
    }
    expect(fresh.map((r) => r.markdown)).toEqual(
      ['Alpha', 'Beta'].map(
        (t) =>
          `${t}: the first paragraph of the text, long enough to count as prose on its own for the scorer.\n\nA second paragraph of ${t} with more words in it, so that the page has text.`,
      ),
    );
  });

  it('leaves a tree parsed before a transform intact', () => {
    const doc = parseHtml(page('Kept', 3));
    const text = textOf(doc.root);
    for (let i = 0; i < 3; i++)
      transformHtml(page(`Other ${i}`, 50), { url: 'https://example.com/', formats: MARKDOWN });
    expect(textOf(doc.root)).toBe(text);
    expect(doc.body?.parent?.tag).toBe('html');
  });
  it('parses into reused elements with the counts and flags of new ones', () => {
    const html = page('Counted', 4);
    transformHtml(page('Before', 300), { url: 'https://example.com/', formats: MARKDOWN });
    const doc = parseHtml(html);
    // What the parser computes, recomputed from the tree: text characters outside blank runs, and
    // those inside links; nothing removed or kept yet.
    const check = (el: El, inLink: boolean): [number, number] => {
      let text = 0;
      let link = 0;
      for (const c of el.children) {
        if (typeof c === 'string') {
          if (c.trim() !== '') {
            text += c.length;
            if (inLink) link += c.length;
          }
        } else {
          const [t, l] = check(c, inLink || c.tag === 'a');
          text += t;
          link += l;
        }
      }
      expect([
        el.tag,
        el.textLen,
        el.linkLen,
        el.removedLen,
        el.flags & (F.Removed | F.Keep | F.Negative),
      ]).toEqual([el.tag, text, link, 0, 0]);
      return [text, link];
    };
    check(doc.root, false);
    expect(doc.root.textLen).toBeGreaterThan(100);
  });
});
