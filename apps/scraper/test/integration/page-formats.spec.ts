import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Objm } from '@nats-io/obj';
import {
  ARTIFACTS_BUCKET,
  changeTrackingUrlsRpc,
  SCRAPE_RPC,
  ScrapeRequest,
  type ChangeTrackingUrlsRequestInput,
} from '@wds/contracts';
import { startScraper, type ScraperHarness } from '../support/scraper-harness';

jest.setTimeout(60_000);

/** Media files made by ffmpeg for this run: a 1 s tone (WAV) and a 1 s test video with sound (MP4). */
function makeMedia(dir: string): { wav: Buffer; mp4: Buffer; silentMp4: Buffer } {
  const run = (args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args]);
  const wav = path.join(dir, 'tone.wav');
  const mp4 = path.join(dir, 'clip.mp4');
  const silent = path.join(dir, 'silent.mp4');
  run(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', wav]);
  const video = ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=1'];
  run([
    ...video,
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=660:duration=1',
    '-c:v',
    'mpeg4',
    '-c:a',
    'aac',
    '-shortest',
    mp4,
  ]);
  run([...video, '-c:v', 'mpeg4', '-an', silent]);
  return { wav: fs.readFileSync(wav), mp4: fs.readFileSync(mp4), silentMp4: fs.readFileSync(silent) };
}

describe('scraper: changeTracking, attributes, audio and video formats', () => {
  let scraper: ScraperHarness;
  let server: http.Server;
  let base: string;
  let dir: string;
  let media: ReturnType<typeof makeMedia>;
  const state = { version: 1, status: 200 };
  const team = () => `team-${randomUUID()}`;

  const page = () =>
    `<html><head><title>Prices</title></head><body><main><h1>Price list</h1>
<p>Widget costs ${state.version === 1 ? '10' : '12'} euros.</p>
<p>Gadget costs 5 euros.</p>
${state.version >= 3 ? '<p>New: Sprocket costs 3 euros.</p>' : ''}</main></body></html>`;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-page-formats-'));
    media = makeMedia(dir);
    server = http.createServer((req, res) => {
      const send = (type: string, body: string | Buffer, status = 200) =>
        res.writeHead(status, { 'content-type': type }).end(body);
      switch (req.url) {
        case '/changing':
          return send('text/html', page(), state.status);
        case '/links':
          return send(
            'text/html',
            `<html><body><a href="/a" data-id="1">A</a><a href="/b" data-id="2">B</a><a href="/c">C</a>
<img src="/x.png" alt="X"></body></html>`,
          );
        case '/with-audio':
          return send(
            'text/html',
            '<html><body><p>Listen</p><audio controls><source src="/media/tone.wav" type="audio/wav"></audio></body></html>',
          );
        case '/with-video':
          return send(
            'text/html',
            '<html><body><p>Watch</p><video src="media/clip.mp4" controls></video></body></html>',
          );
        case '/with-og-video':
          return send(
            'text/html',
            '<html><head><meta property="og:video" content="/media/clip.mp4"></head><body><p>Clip</p></body></html>',
          );
        case '/silent-video':
          return send(
            'text/html',
            '<html><body><video><source src="/media/silent.mp4"></video></body></html>',
          );
        case '/no-media':
          return send('text/html', '<html><body><p>Nothing to play here.</p></body></html>');
        case '/media/tone.wav':
          return send('audio/wav', media.wav);
        case '/media/clip.mp4':
          return send('video/mp4', media.mp4);
        case '/media/silent.mp4':
          return send('video/mp4', media.silentMp4);
        default:
          return send('text/plain', 'not found', 404);
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    scraper = await startScraper({
      WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
      WDS_BROWSER_ENABLED: 'false',
      WDS_PUBLIC_BASE_URL: 'https://api.example.test',
    });
  }, 60_000);
  afterAll(async () => {
    await scraper?.stop();
    await new Promise((r) => server?.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    state.version = 1;
    state.status = 200;
  });

  const track = (teamId: string, extra: Record<string, unknown> = {}) =>
    scraper.scrape(teamId, {
      url: `${base}/changing`,
      formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'], ...extra }],
    });

  it('reports new, same, changed (with a git diff) and removed against the team’s previous snapshot', async () => {
    const t = team();
    const first = await track(t);
    expect(first.document.changeTracking).toEqual({
      previousScrapeAt: null,
      changeStatus: 'new',
      visibility: 'visible',
    });
    const second = await track(t);
    expect(second.document.changeTracking).toMatchObject({ changeStatus: 'same', visibility: 'visible' });
    expect(Date.parse(second.document.changeTracking!.previousScrapeAt!)).not.toBeNaN();
    expect(second.document.changeTracking!.diff).toBeUndefined();
    expect(second.cacheHit).toBe(false); // a change-tracking scrape never reads the cache

    state.version = 2;
    const third = await track(t);
    const ct = third.document.changeTracking!;
    expect(ct.changeStatus).toBe('changed');
    expect(ct.diff).toContain('-Widget costs 10 euros.');
    expect(ct.diff).toContain('+Widget costs 12 euros.');
    expect(ct.diff).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/m);
    const files = (ct.json as { files: { chunks: { changes: { type: string; content: string }[] }[] }[] })
      .files;
    const changes = files[0].chunks.flatMap((c) => c.changes);
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'del', content: '-Widget costs 10 euros.' }),
        expect.objectContaining({ type: 'add', content: '+Widget costs 12 euros.' }),
      ]),
    );
    expect(third.creditsUsed).toBe(1); // git-diff mode is free

    state.status = 404;
    const gone = await track(t);
    expect(gone.document.changeTracking).toMatchObject({ changeStatus: 'removed' });
    state.status = 200;
    // The last live snapshot (version 2) is still the one compared with.
    expect((await track(t)).document.changeTracking).toMatchObject({ changeStatus: 'same' });
  });

  it('keeps separate histories per team and per tag; markdown only when asked for', async () => {
    const a = team();
    const b = team();
    await track(a);
    expect((await track(b)).document.changeTracking!.changeStatus).toBe('new');
    expect((await track(a, { tag: 'daily' })).document.changeTracking!.changeStatus).toBe('new');
    state.version = 3;
    const tagged = await track(a, { tag: 'daily' });
    expect(tagged.document.changeTracking!.changeStatus).toBe('changed');
    expect(tagged.document.changeTracking!.diff).toContain('+New: Sprocket costs 3 euros.');

    const bare = await scraper.scrape(a, { url: `${base}/changing`, formats: ['changeTracking'] });
    expect(bare.document.changeTracking).toMatchObject({ changeStatus: 'changed' });
    expect(bare.document.changeTracking!.diff).toBeUndefined(); // no git-diff mode asked for
    expect(bare.document.markdown).toBeUndefined();
  });

  it('answers visibility hidden for a crawl page no link led to, and lists a team’s tracked URLs by tag and site', async () => {
    const t = team();
    const hidden = async () => {
      const reply = await scraper.client.request(SCRAPE_RPC.run, {
        teamId: t,
        requestId: randomUUID(),
        jobId: randomUUID(),
        options: ScrapeRequest.parse({
          url: `${base}/changing`,
          formats: ['markdown', 'changeTracking'],
        }),
        hiddenInCrawl: true,
      });
      return reply.document!.changeTracking;
    };
    expect(await hidden()).toMatchObject({ changeStatus: 'new', visibility: 'hidden' });
    expect(await hidden()).toMatchObject({ changeStatus: 'same', visibility: 'hidden' });
    state.status = 404;
    expect(await hidden()).toMatchObject({ changeStatus: 'removed', visibility: 'hidden' });
    state.status = 200;
    expect((await track(t)).document.changeTracking).toMatchObject({ visibility: 'visible' });

    await track(t, { tag: 'daily' });
    await scraper.scrape(t, { url: `${base}/links`, formats: ['markdown', 'changeTracking'] });
    await track(team());
    const urls = (q: Omit<ChangeTrackingUrlsRequestInput, 'teamId'>, teamId = t) =>
      scraper.client.request(changeTrackingUrlsRpc, { teamId, ...q });
    expect(await urls({ tag: '' })).toEqual({ urls: [`${base}/changing`, `${base}/links`] });
    expect(await urls({ tag: 'daily' })).toEqual({ urls: [`${base}/changing`] });
    expect(await urls({ tag: '', domain: '127.0.0.1' })).toEqual({
      urls: [`${base}/changing`, `${base}/links`],
    });
    // A suffix matches whole labels only.
    expect(await urls({ tag: '', domain: '7.0.0.1' })).toEqual({ urls: [] });
    expect(await urls({ tag: '', domain: 'example.com' })).toEqual({ urls: [] });
    expect(await urls({ tag: '', limit: 1 })).toEqual({
      urls: [`${base}/changing`],
      next: `${base}/changing`,
    });
    expect(await urls({ tag: '', limit: 1, after: `${base}/changing` })).toEqual({
      urls: [`${base}/links`],
      next: `${base}/links`,
    });
    expect(await urls({ tag: '', after: `${base}/links` })).toEqual({ urls: [] });
    expect(await urls({ tag: '' }, `team-${randomUUID()}`)).toEqual({ urls: [] });
  });

  it('orders two scrapes of one page at once: one is new, the other sees it as previous', async () => {
    const t = team();
    const results = await Promise.all(Array.from({ length: 8 }, () => track(t)));
    const statuses = results.map((r) => r.document.changeTracking!.changeStatus).sort();
    expect(statuses).toEqual(['new', 'same', 'same', 'same', 'same', 'same', 'same', 'same']);
  });

  it("refuses changeTracking's json mode before fetching when no LLM is configured", async () => {
    await expect(
      scraper.scrape(team(), {
        url: `${base}/never-fetched`,
        formats: [{ type: 'changeTracking', modes: ['json'] }],
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/needs an LLM/) });
  });

  it('keeps no snapshot under zero data retention and says so', async () => {
    const t = team();
    const reply = await scraper.scrapeRaw(t, {
      url: `${base}/changing`,
      formats: ['markdown', 'changeTracking'],
      zeroDataRetention: true,
    });
    const doc = reply.document!;
    expect(doc.changeTracking).toBeUndefined();
    expect(doc.warning).toMatch(/zero data retention/);
    expect((await track(t)).document.changeTracking!.changeStatus).toBe('new');
  });

  it('extracts attributes by CSS selector; an invalid selector is refused before any fetch', async () => {
    const reply = await scraper.scrape(team(), {
      url: `${base}/links`,
      formats: [
        {
          type: 'attributes',
          selectors: [
            { selector: 'a[data-id]', attribute: 'href' },
            { selector: 'a', attribute: 'data-id' },
            { selector: 'img', attribute: 'alt' },
            { selector: '.missing', attribute: 'href' },
          ],
        },
      ],
    });
    expect(reply.document.attributes).toEqual([
      { selector: 'a[data-id]', attribute: 'href', values: ['/a', '/b'] },
      { selector: 'a', attribute: 'data-id', values: ['1', '2'] },
      { selector: 'img', attribute: 'alt', values: ['X'] },
      { selector: '.missing', attribute: 'href', values: [] },
    ]);
    await expect(
      scraper.scrape(team(), {
        url: `${base}/never-fetched`,
        formats: [{ type: 'attributes', selectors: [{ selector: 'a[[', attribute: 'href' }] }],
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  async function artifact(url: string): Promise<{ data: Uint8Array; meta: Record<string, string> }> {
    const id = /\/v2\/artifacts\/([0-9a-f-]{36})$/.exec(url)![1];
    const store = await new Objm(scraper.client.js).open(ARTIFACTS_BUCKET);
    const info = await store.info(id);
    return { data: (await store.getBlob(id))!, meta: (info!.metadata ?? {}) as Record<string, string> };
  }

  it('stores the page audio as MP3 and the video as found, as artifacts of the team (+4 credits each)', async () => {
    const t = team();
    const audio = await scraper.scrape(t, { url: `${base}/with-audio`, formats: ['audio'] });
    expect(audio.document.audio).toMatch(/^https:\/\/api\.example\.test\/v2\/artifacts\/[0-9a-f-]{36}$/);
    const mp3 = await artifact(audio.document.audio!);
    expect(mp3.meta).toMatchObject({ teamId: t, kind: 'audio', contentType: 'audio/mpeg' });
    const mp3File = path.join(dir, 'check.mp3');
    fs.writeFileSync(mp3File, mp3.data);
    const probe = execFileSync('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=format_name:stream=codec_name',
      '-of',
      'json',
      mp3File,
    ]);
    expect(JSON.parse(probe.toString())).toMatchObject({
      format: { format_name: 'mp3' },
      streams: [{ codec_name: 'mp3' }],
    });
    expect(audio.creditsUsed).toBe(5);

    const both = await scraper.scrape(t, {
      url: `${base}/with-video`,
      formats: ['markdown', 'audio', 'video'],
    });
    const video = await artifact(both.document.video!);
    expect(video.meta).toMatchObject({ teamId: t, kind: 'video', contentType: 'video/mp4' });
    expect(Buffer.from(video.data).equals(media.mp4)).toBe(true);
    expect((await artifact(both.document.audio!)).meta.kind).toBe('audio'); // the video's sound track
    expect(both.creditsUsed).toBe(9);

    const og = await scraper.scrape(t, { url: `${base}/with-og-video`, formats: ['video'] });
    expect(og.document.video).toMatch(/\/v2\/artifacts\//);
  });

  it('warns when a page has no media, or no track of the kind asked for, and charges nothing extra', async () => {
    const none = await scraper.scrape(team(), {
      url: `${base}/no-media`,
      formats: ['markdown', 'audio', 'video'],
    });
    expect(none.document.audio).toBeUndefined();
    expect(none.document.video).toBeUndefined();
    expect(none.document.warning).toMatch(/No audio was found on this page/);
    expect(none.document.warning).toMatch(/No video was found on this page/);
    expect(none.creditsUsed).toBe(1);

    const silent = await scraper.scrape(team(), { url: `${base}/silent-video`, formats: ['audio'] });
    expect(silent.document.audio).toBeUndefined();
    expect(silent.document.warning).toMatch(/has no audio track/);
  });
});
