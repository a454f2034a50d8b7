import { transformHtml } from '../transform';

function md(body: string, url = 'https://example.com/docs/page.html', head = ''): string {
  const html = `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
  return transformHtml(html, { url, formats: new Set(['markdown']), onlyMainContent: false }).markdown ?? '';
}

describe('markdown: tables', () => {
  it('uses thead as the header row and escapes pipes, keeping inline formatting in cells', () => {
    const out = md(`<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody>
      <tr><td><code>a|b</code></td><td><b>bold</b> and <a href="/x">link</a></td></tr>
      <tr><td>x | y</td><td><em>it</em></td></tr></tbody></table>`);
    expect(out).toBe(
      [
        '| Name | Value |',
        '| --- | --- |',
        '| `a\\|b` | **bold** and [link](https://example.com/x) |',
        '| x \\| y | *it* |',
      ].join('\n'),
    );
  });

  it('takes the first row as header when there is no thead, and pads ragged rows', () => {
    const out = md('<table><tr><td>A</td><td>B</td><td>C</td></tr><tr><td>1</td><td>2</td></tr></table>');
    expect(out).toBe(['| A | B | C |', '| --- | --- | --- |', '| 1 | 2 |  |'].join('\n'));
  });

  it('keeps columns aligned across colspan and rowspan', () => {
    const out = md(
      '<table><tr><th>a</th><th>b</th><th>c</th></tr><tr><td colspan="2">wide</td><td>z</td></tr>' +
        '<tr><td rowspan="2">tall</td><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>',
    );
    expect(out.split('\n')).toEqual([
      '| a | b | c |',
      '| --- | --- | --- |',
      '| wide |  | z |',
      '| tall | 1 | 2 |',
      '|  | 3 | 4 |',
    ]);
  });

  it('renders single-column layout tables as their content', () => {
    expect(md('<table><tr><td><h2>Title</h2><p>Text</p></td></tr></table>')).toBe('## Title\n\nText');
  });
});

describe('markdown: code', () => {
  it.each([
    ['<pre><code class="language-python">print(1)</code></pre>', 'python'],
    ['<pre class="lang-ts"><code>let a = 1;</code></pre>', 'ts'],
    ['<div class="highlight highlight-source-rust"><pre>fn main() {}</pre></div>', 'rust'],
    ['<pre><code class="hljs">plain</code></pre>', ''],
  ])('fences %s with language %p', (html, lang) => {
    expect(md(html)).toMatch(new RegExp(`^\`\`\`${lang}\\n`));
  });

  it('keeps code verbatim: entities decoded, whitespace and markdown characters untouched', () => {
    const out = md(
      '<pre><code class="language-js">if (a &lt; b &amp;&amp; c) {\n  x = y * 2; // _not_ emphasis\n}\n</code></pre>',
    );
    expect(out).toBe('```js\nif (a < b && c) {\n  x = y * 2; // _not_ emphasis\n}\n```');
  });

  it('uses a longer fence when the code contains one', () => {
    expect(md('<pre><code>```\ninner\n```</code></pre>')).toBe('````\n```\ninner\n```\n````');
  });

  it('renders inline code with a safe delimiter', () => {
    expect(md('<p>Use <code>a`b</code> and <code>x*y</code></p>')).toBe('Use ``a`b`` and `x*y`');
  });
});

describe('markdown: lists', () => {
  it('indents nested lists (ul in ol in ul) under their item', () => {
    const out = md(
      '<ul><li>one<ol><li>alpha</li><li>beta<ul><li>deep</li></ul></li></ol></li><li>two</li></ul>',
    );
    expect(out).toBe(['- one', '  1. alpha', '  2. beta', '     - deep', '- two'].join('\n'));
  });

  it('honours ol start and keeps paragraphs inside items', () => {
    const out = md('<ol start="3"><li><p>first para</p><p>second para</p></li><li>next</li></ol>');
    expect(out).toBe('3. first para\n\n   second para\n4. next');
  });

  it('attaches a list placed directly inside a list to the previous item', () => {
    expect(md('<ul><li>a</li><ul><li>b</li></ul></ul>')).toBe('- a\n  - b');
  });

  it('renders task list checkboxes', () => {
    expect(
      md('<ul><li><input type="checkbox" checked> done</li><li><input type="checkbox"> todo</li></ul>'),
    ).toBe('- [x] done\n- [ ] todo');
  });
});

describe('markdown: inline and blocks', () => {
  it('writes ATX headings, emphasis, strike and hard breaks', () => {
    const out = md(
      '<h1>Title</h1><h3>Sub <em>x</em></h3><p><strong>B </strong>and <i>i</i> <del>d</del><br>next</p>',
    );
    expect(out).toBe('# Title\n\n### Sub *x*\n\n**B** and *i* ~~d~~  \nnext');
  });

  it('renders blockquotes with nested paragraphs, hr and definition lists', () => {
    const out = md('<blockquote><p>one</p><p>two</p></blockquote><hr><dl><dt>Term</dt><dd>Meaning</dd></dl>');
    expect(out).toBe('> one\n>\n> two\n\n---\n\n**Term**\n: Meaning');
  });

  it('collapses whitespace and escapes markdown syntax in text', () => {
    const out = md(
      '<p>  lots\n\n  of   space *star* [x] snake_case _under_ </p><p># not a heading</p><p>1. not a list</p>',
    );
    expect(out).toBe(
      'lots of space \\*star\\* \\[x\\] snake_case \\_under\\_\n\n\\# not a heading\n\n1\\. not a list',
    );
  });

  it('drops script, style, noscript, template, svg and iframe content', () => {
    const out = md(
      '<p>a</p><script>var x = "<p>no</p>";</script><style>p{}</style><noscript>no</noscript>' +
        '<template><p>no</p></template><svg><title>no</title><text>no</text></svg><iframe src="/f">no</iframe><p>b</p>',
    );
    expect(out).toBe('a\n\nb');
  });
});

describe('markdown: links and images', () => {
  it('makes links and images absolute against the page URL', () => {
    const out = md(
      '<p><a href="../a?x=1&amp;y=2">rel</a> <a href="/root">root</a> <img src="img/p.png" alt="pic"></p>',
    );
    expect(out).toBe(
      '[rel](https://example.com/a?x=1&y=2) [root](https://example.com/root) ![pic](https://example.com/docs/img/p.png)',
    );
  });

  it('resolves against <base href>', () => {
    const out = md(
      '<a href="page">p</a> <img src="i.png" alt="">',
      'https://example.com/x/y',
      '<base href="https://cdn.example.org/base/">',
    );
    expect(out).toBe('[p](https://cdn.example.org/base/page) ![](https://cdn.example.org/base/i.png)');
  });

  it('drops links without text and keeps image links', () => {
    const out = md(
      '<p><a href="/icon"><i class="fa"></i></a><a href="/img"><img src="/a.png" alt="A"></a> <a href="javascript:void(0)">js</a></p>',
    );
    expect(out).toBe('[![A](https://example.com/a.png)](https://example.com/img) js');
  });

  it('drops heading permalink anchors', () => {
    expect(md('<h2 id="s">Setup<a class="headerlink" href="#s" title="Permalink">¶</a></h2>')).toBe(
      '## Setup',
    );
  });

  it('uses lazy-loading sources and the best srcset candidate', () => {
    const out = md(
      '<img data-src="/lazy.jpg" src="data:image/gif;base64,R0lGOD" alt="l"><img srcset="/s.jpg 320w, /l.jpg 1024w" alt="s">',
    );
    expect(out).toBe('![l](https://example.com/lazy.jpg)![s](https://example.com/l.jpg)');
  });

  it('replaces base64 images by a placeholder, keeping the alt text, unless disabled', () => {
    const data = `data:image/png;base64,${'A'.repeat(400)}`;
    const html = `<p><img src="${data}" alt="chart"></p>`;
    expect(md(html)).toBe('![chart](<Base64-Image-Removed>)');
    const kept = transformHtml(html, {
      url: 'https://example.com/',
      formats: new Set(['markdown']),
      removeBase64Images: false,
    });
    expect(kept.markdown).toBe(`![chart](${data})`);
  });
});

describe('markdown: paragraph whitespace', () => {
  it('collapses a double space inside a text node', () => {
    expect(md('<p>one  two <b>three</b></p>')).toBe('one two **three**');
  });

  it('collapses a double space formed where emphasis joins two text nodes', () => {
    expect(md('<p><strong>a <span> b</span></strong> c</p>')).toBe('**a b** c');
  });

  it('collapses a double space in a link destination written in angle brackets', () => {
    expect(md('<p>a <a href="mailto:a  b">mail</a> b</p>')).toBe('a [mail](<mailto:a b>) b');
  });

  it('collapses a double space between a text node and a link', () => {
    expect(md('<p>see <a href="/x"> x</a> now</p>')).toBe('see [x](https://example.com/x) now');
  });
});
