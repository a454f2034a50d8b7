import fs from 'node:fs';
import path from 'node:path';
import { ServiceError } from '@wds/contracts';
import { PageWorkers } from '../../src/scrape/document/page-workers';
import { PooledHtmlTransformer } from '../../src/scrape/document/pooled.html-transformer';
import { extractAttributes } from '../../src/scrape/formats/attributes';
import { TransformLibHtmlTransformer } from '../../src/scrape/document/transform-lib.html-transformer';
import type { HtmlTransformOptions } from '../../src/scrape/document/html-transformer';

// Worker threads run the scraper's build (dist/scrape/document/page-worker.js), which `npm test` makes first.
const opts = (over: Partial<HtmlTransformOptions> = {}): HtmlTransformOptions => ({
  url: 'https://www.example.com/a/page.html',
  formats: new Set(['markdown', 'html', 'links', 'images']),
  onlyMainContent: true,
  removeBase64Images: true,
  ...over,
});

const HELD_OUT = path.join(__dirname, '../../../../libs/transform/test/held-out');
/** Hand-written pages of several kinds (docs, forum, product, listing...) from libs/transform's tests. */
const realPages = (): string[] =>
  fs
    .readdirSync(HELD_OUT)
    .filter((f) => f.endsWith('.html'))
    .map((f) => fs.readFileSync(path.join(HELD_OUT, f), 'utf8'));

/** An article page of about `kb` KiB. */
function bigPage(kb: number): string {
  const section = (i: number) =>
    `<h2 id="s${i}">Section ${i}</h2><p>Paragraph ${i} with <a href="/p/${i}">a link</a>, <em>emphasis</em> &amp; an entity &ldquo;quoted&rdquo;.</p>` +
    `<ul><li>item ${i}.1</li><li>item ${i}.2</li></ul><table><tr><th>k</th><th>v</th></tr><tr><td>${i}</td><td>x</td></tr></table>\n`;
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < kb * 1024; i++) {
    const s = section(i);
    parts.push(s);
    size += s.length;
  }
  return `<html><head><title>Big</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>Big page</h1>${parts.join('')}</article></main><footer>f</footer></body></html>`;
}

describe('page workers: the transform and the attributes format of large pages in worker threads', () => {
  const inline = new TransformLibHtmlTransformer();
  let workers: PageWorkers;
  let pooled: PooledHtmlTransformer;

  beforeAll(() => {
    workers = new PageWorkers({ threads: 1, inlineMaxChars: 64 * 1024, maxHeapMb: 512 });
    pooled = new PooledHtmlTransformer(workers);
  });

  afterAll(async () => {
    await workers.onModuleDestroy();
  });

  it('gives the same documents from a worker thread as on the event loop', async () => {
    // Every page through the worker (no inline size), then the pool's own threshold.
    const everyPage = new PageWorkers({ threads: 1, inlineMaxChars: 0, maxHeapMb: 512 });
    try {
      const all = new PooledHtmlTransformer(everyPage);
      const pages = [...realPages(), bigPage(300)];
      expect(pages.length).toBeGreaterThan(5);
      for (const html of pages) {
        for (const o of [opts(), opts({ onlyMainContent: false, excludeTags: ['table'] })]) {
          expect(await all.transform(html, o)).toEqual(await inline.transform(html, o));
        }
      }
      expect(everyPage.ran).toBe(pages.length * 2);
    } finally {
      await everyPage.onModuleDestroy();
    }
    const small = realPages()[0];
    expect(small.length).toBeLessThan(64 * 1024);
    const ran = workers.ran;
    await pooled.transform(small, opts());
    expect(workers.ran).toBe(ran);
    await pooled.transform(bigPage(2048), opts());
    expect(workers.ran).toBe(ran + 1);
  });

  it('keeps the event loop free while a large page is transformed', async () => {
    const html = bigPage(4096);
    let ticked = false;
    setTimeout(() => (ticked = true), 0);
    const result = await pooled.transform(html, opts());
    // A transform on the event loop would have finished before the timer could run.
    expect(ticked).toBe(true);
    expect(result.markdown).toContain('# Big page');
  });

  it('answers an invalid selector of a large page with BAD_REQUEST', async () => {
    const err = await pooled
      .transform(bigPage(100), opts({ includeTags: ['a[[['] }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'BAD_REQUEST' });
    expect((err as Error).message).toMatch(/Invalid includeTags\/excludeTags/);
  });

  it('transforms every page on the event loop without workers', async () => {
    const none = new PooledHtmlTransformer(undefined);
    const html = bigPage(300);
    expect(await none.transform(html, opts())).toEqual(await inline.transform(html, opts()));
  });

  it("gives the thread to the teams in turn: one team's queue of large pages does not hold back another's", async () => {
    const html = bigPage(1024);
    const run = async (tenants: { a?: string; b?: string }) => {
      const finished: string[] = [];
      const task = (name: string, tenant: string | undefined) =>
        workers
          .run({ kind: 'transform', html, opts: opts() }, undefined, tenant)
          .then(() => finished.push(name));
      const all = [0, 1, 2, 3].map((i) => task(`A${i}`, tenants.a));
      all.push(task('B0', tenants.b));
      await Promise.all(all);
      return finished.indexOf('B0');
    };
    // A0 holds the thread, A1-A3 then B0 wait: team A's turn, then team B's.
    expect(await run({ a: 'team-a', b: 'team-b' })).toBe(2);
    // One queue without teams: B0 after all of A's.
    expect(await run({})).toBe(4);
  });

  it("parses a large page for the attributes format in a thread, with the event loop's answers", async () => {
    const html = bigPage(1024);
    const format = {
      type: 'attributes' as const,
      selectors: [
        { selector: 'h2', attribute: 'id' },
        { selector: 'main a[href^="/p/1"]', attribute: 'href' },
      ],
    };
    const reply = await workers.run({ kind: 'attributes', html, format });
    expect(reply).toEqual({ ok: true, attributes: extractAttributes(html, format) });
    const bad = await workers.run({
      kind: 'attributes',
      html,
      format: { type: 'attributes', selectors: [{ selector: 'a[[[', attribute: 'href' }] },
    });
    expect(bad).toMatchObject({ ok: false, badRequest: expect.stringMatching(/Invalid CSS selector/) });
    // A task past its signal stops (its thread is replaced) and the pool goes on.
    const aborted = await workers
      .run({ kind: 'transform', html: bigPage(8192), opts: opts() }, AbortSignal.timeout(5))
      .catch((e: unknown) => e);
    expect(aborted).toBeInstanceOf(Error);
    expect(await pooled.transform(bigPage(300), opts())).toEqual(
      await inline.transform(bigPage(300), opts()),
    );
  });
});
