import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { videoCentreColours } from '@wds/testing';
import { callApi, listenLocal, type LocalServer } from './support/http';
import { startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// Session recordings through the whole stack: a session created with recordSession is encoded as HLS
// by the browser-pool (Chromium's screencast → ffmpeg → the artifacts bucket), and its playlistUrl
// and GET /v2/browser/{id}/replay serve it; the video is decoded with ffmpeg and must show the pages
// the session showed, in order, for about as long as it showed them.

const run = promisify(execFile);
const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-recording-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `e2e-admin-${randomBytes(16).toString('hex')}`;

function startSite(): Promise<LocalServer> {
  return listenLocal((req, res) => {
    const colour =
      req.url === '/red' ? 'rgb(220,0,0)' : req.url === '/blue' ? 'rgb(0,0,220)' : 'rgb(255,255,255)';
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><title>${req.url}</title>
      <style>html,body{margin:0;height:100%;background:${colour}}</style></head><body></body></html>`);
  });
}

describe('browser session recordings through the stack', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: LocalServer;
  let work: string;

  const call = (method: string, route: string, body?: unknown, key: string | undefined = KEY) =>
    callApi(stack.url, method, route, { key, body, timeoutMs: 120_000 });
  const execute = async (id: string, code: string): Promise<void> => {
    const r = await call('POST', `/v2/browser/${id}/execute`, { code, language: 'node' });
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    site = await startSite();
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'wds-recording-'));
    e2e = await startSiteStack({
      name: 'browser-recording',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: KEY,
      adminToken: ADMIN_TOKEN,
      sites: [site],
      env: { WDS_BROWSER_PROCESSES: '1' },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
    if (work) await fs.rm(work, { recursive: true, force: true });
  }, 60_000);

  it('records what the session shows as HLS: watchable while it runs, ended on DELETE, the pages in order and in time', async () => {
    const t0 = Date.now();
    const created = await call('POST', '/v2/browser', { ttl: 300, activityTtl: 120, recordSession: true });
    expect(created.status).toBe(200);
    const { id, playlistUrl } = created.body as { id: string; playlistUrl: string };
    expect(playlistUrl).toMatch(
      new RegExp(`^${stack.url}/v2/browser/${id}/recording/[A-Za-z0-9_-]{43}/index\\.m3u8$`),
    );
    await execute(id, `await page.goto('${site.url}/red')`);
    await sleep(6000);
    await execute(id, `await page.goto('${site.url}/blue')`);
    await sleep(6000);

    // While the session runs: an event playlist of finished segments, no end yet, no API key needed.
    let running = '';
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(1000)) {
      const r = await fetch(playlistUrl);
      if (r.status === 200) {
        running = await r.text();
        if (running.includes('.ts')) break;
      } else expect(r.status).toBe(404);
    }
    expect(running).toContain('#EXT-X-PLAYLIST-TYPE:EVENT');
    expect(running).not.toContain('#EXT-X-ENDLIST');

    const ended = await call('DELETE', `/v2/browser/${id}`);
    expect(ended.status).toBe(200);
    const elapsed = (Date.now() - t0) / 1000;

    const answer = await fetch(playlistUrl);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const playlist = await answer.text();
    expect(playlist).toContain('#EXT-X-ENDLIST');
    const segments = playlist.split('\n').filter((l) => l.endsWith('.ts'));
    expect(segments.length).toBeGreaterThanOrEqual(3);
    await fs.writeFile(path.join(work, 'index.m3u8'), playlist);
    for (const name of segments) {
      const seg = await fetch(new URL(name, playlistUrl));
      expect(seg.status).toBe(200);
      expect(seg.headers.get('content-type')).toBe('video/mp2t');
      await fs.writeFile(path.join(work, name), Buffer.from(await seg.arrayBuffer()));
    }

    // The video: H.264, 1280x720, as long as the session was recorded (from its first frame to DELETE).
    const probe = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration:stream=codec_name,width,height',
      '-of',
      'json',
      path.join(work, 'index.m3u8'),
    ]);
    const info = JSON.parse(probe.stdout) as {
      format: { duration: string };
      streams: { codec_name: string; width: number; height: number }[];
    };
    expect(info.streams[0]).toMatchObject({ codec_name: 'h264', width: 1280, height: 720 });
    const duration = Number(info.format.duration);
    expect(duration).toBeGreaterThan(10);
    expect(duration).toBeLessThan(elapsed + 2);

    // Its centre twice a second: the first page (white, maybe), then red for ~6 s, then blue.
    const seen = await videoCentreColours(path.join(work, 'index.m3u8'), 2, 200);
    const runs = seen.replace(/\?/g, '').replace(/(.)\1*/g, '$1');
    expect({ seen, runs }).toEqual({ seen, runs: expect.stringMatching(/^W?RB$/) });
    expect(seen.split('R').length - 1).toBeGreaterThanOrEqual(8); // ≥ 4 s of red at 2 samples/s
    expect(seen.split('B').length - 1).toBeGreaterThanOrEqual(8);

    // The same video as one MP4 (made when the session ended), named by GET /v2/browser/{id}.
    const ended2 = await call('GET', `/v2/browser/${id}`);
    const videoUrl = ended2.body.videoUrl as string;
    expect(videoUrl).toBe(playlistUrl.replace(/index\.m3u8$/, 'recording.mp4'));
    const mp4 = await fetch(videoUrl);
    expect(mp4.status).toBe(200);
    expect(mp4.headers.get('content-type')).toBe('video/mp4');
    await fs.writeFile(path.join(work, 'recording.mp4'), Buffer.from(await mp4.arrayBuffer()));
    const mp4Probe = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      path.join(work, 'recording.mp4'),
    ]);
    expect(Math.abs(Number(mp4Probe.stdout.trim()) - duration)).toBeLessThan(0.6);
    expect(await videoCentreColours(path.join(work, 'recording.mp4'), 2, 200)).toBe(seen);
  }, 240_000);

  it('records interact sessions too: playlistUrl in every interact answer, the recording ended when the interaction stops', async () => {
    const scraped = await call('POST', '/v2/scrape', { url: `${site.url}/red`, formats: ['markdown'] });
    expect(scraped.status).toBe(200);
    const jobId = scraped.body.data.metadata.scrapeId as string;
    const first = await call('POST', `/v2/scrape/${jobId}/interact`, { code: 'await page.title()' });
    expect(first.status).toBe(200);
    const { sessionId, playlistUrl } = first.body as { sessionId: string; playlistUrl: string };
    expect(playlistUrl).toMatch(
      new RegExp(`^${stack.url}/v2/browser/${sessionId}/recording/[A-Za-z0-9_-]{43}/index\\.m3u8$`),
    );
    await sleep(6000);
    const second = await call('POST', `/v2/scrape/${jobId}/interact`, {
      code: `await page.goto('${site.url}/blue')`,
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ sessionId, playlistUrl });
    await sleep(6000);
    expect((await call('DELETE', `/v2/scrape/${jobId}/interact`)).status).toBe(200);

    const answer = await fetch(playlistUrl);
    expect(answer.status).toBe(200);
    const playlist = await answer.text();
    expect(playlist).toContain('#EXT-X-ENDLIST');
    const dir = path.join(work, 'interact');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'index.m3u8'), playlist);
    for (const name of playlist.split('\n').filter((l) => l.endsWith('.ts'))) {
      const seg = await fetch(new URL(name, playlistUrl));
      expect(seg.status).toBe(200);
      await fs.writeFile(path.join(dir, name), Buffer.from(await seg.arrayBuffer()));
    }
    // The scraped page (red, replayed when the session was made), then the page the code opened.
    const seen = await videoCentreColours(path.join(dir, 'index.m3u8'), 2, 200);
    const runs = seen.replace(/\?/g, '').replace(/(.)\1*/g, '$1');
    expect({ seen, runs }).toEqual({ seen, runs: expect.stringMatching(/^W?RB$/) });
    // The team reaches it by the session id as well.
    expect((await call('GET', `/v2/browser/${sessionId}/replay`)).status).toBe(200);
  }, 240_000);

  it('serves the playlist to the team by API key (GET /replay, absolute segment URLs) and to nobody else; GET /v2/browser/{id} names it', async () => {
    const created = await call('POST', '/v2/browser', { ttl: 120, recordSession: true });
    expect(created.status).toBe(200);
    const { id, playlistUrl } = created.body as { id: string; playlistUrl: string };
    const plain = await call('POST', '/v2/browser', { ttl: 120 });
    expect(plain.status).toBe(200);
    expect(plain.body.playlistUrl).toBeUndefined();
    await execute(id, `await page.goto('${site.url}/red')`);
    // GET /v2/browser/{id}: the session with its URLs while active, its bill once ended.
    const active = await call('GET', `/v2/browser/${id}`);
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({ success: true, id, status: 'active', playlistUrl });
    expect(active.body.cdpUrl).toMatch(/^ws:\/\//);
    expect(active.body.sessionDurationMs).toBeUndefined();
    await sleep(5000);
    expect((await call('DELETE', `/v2/browser/${id}`)).status).toBe(200);
    const gone = await call('GET', `/v2/interact/${id}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({
      id,
      status: 'destroyed',
      endReason: 'deleted',
      cdpUrl: '',
      playlistUrl,
    });
    expect(gone.body.sessionDurationMs).toBeGreaterThan(4000);
    expect(gone.body.creditsBilled).toBeGreaterThanOrEqual(2);
    expect((await call('DELETE', `/v2/browser/${plain.body.id}`)).status).toBe(200);

    const replay = await fetch(`${stack.url}/v2/browser/${id}/replay`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(replay.status).toBe(200);
    const lines = (await replay.text()).split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(0);
    const base = playlistUrl.replace(/index\.m3u8$/, '');
    for (const l of lines) expect(l).toMatch(new RegExp(`^${base}seg\\d{5}\\.ts$`));
    const seg = await fetch(lines[0]);
    expect(seg.status).toBe(200);
    expect((await seg.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    // The same under the newer route name; the session list names the recording too.
    expect((await call('GET', `/v2/interact/${id}/replay`)).status).toBe(200);
    const list = await call('GET', '/v2/browser?status=destroyed');
    const listed = (list.body.sessions as { id: string; playlistUrl?: string }[]).find((s) => s.id === id);
    expect(listed?.playlistUrl).toBe(playlistUrl);

    // No key: 401; another team's key: 403; a session that was not recorded: 404.
    expect((await fetch(`${stack.url}/v2/browser/${id}/replay`)).status).toBe(401);
    const other = await callApi(stack.url, 'POST', '/admin/v1/teams', {
      key: ADMIN_TOKEN,
      body: { name: `other-${randomBytes(3).toString('hex')}`, credits: 1000 },
    });
    expect(other.status).toBe(201);
    expect((await call('GET', `/v2/browser/${id}/replay`, undefined, other.body.apiKey)).status).toBe(403);
    expect((await call('GET', `/v2/browser/${id}`, undefined, other.body.apiKey)).status).toBe(403);
    expect((await call('GET', `/v2/browser/${randomUUID()}`)).status).toBe(404);
    const notRecorded = await call('GET', `/v2/browser/${plain.body.id}/replay`);
    expect(notRecorded.status).toBe(404);
    expect(notRecorded.body.error).toMatch(/not recorded/);

    // The token opens this recording only: a wrong token, another session's id, bad names: 404/400.
    const wrong = playlistUrl.replace(/\/recording\/[A-Za-z0-9_-]{43}\//, `/recording/${'A'.repeat(43)}/`);
    expect((await fetch(wrong)).status).toBe(404);
    expect((await fetch(playlistUrl.replace(id, plain.body.id))).status).toBe(404);
    expect((await fetch(playlistUrl.replace(/index\.m3u8$/, 'seg99999.ts'))).status).toBe(404);
    expect((await fetch(playlistUrl.replace(/index\.m3u8$/, '..%2Fsecret'))).status).toBe(400);

    // The team deletes the recording: another team cannot, then every file is gone.
    expect((await call('DELETE', `/v2/browser/${id}/replay`, undefined, other.body.apiKey)).status).toBe(403);
    const removed = await call('DELETE', `/v2/browser/${id}/replay`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, deleted: lines.length + 2 }); // + MP4, playlist
    expect((await fetch(playlistUrl)).status).toBe(404);
    expect((await fetch(playlistUrl.replace(/index\.m3u8$/, 'recording.mp4'))).status).toBe(404);
    expect((await fetch(lines[0])).status).toBe(404);
    expect((await call('GET', `/v2/browser/${id}/replay`)).status).toBe(404);
    expect((await call('DELETE', `/v2/browser/${id}/replay`)).status).toBe(404);
  }, 180_000);

  it('refuses to delete the recording of a session still recording (409)', async () => {
    const created = await call('POST', '/v2/browser', { ttl: 120, recordSession: true });
    expect(created.status).toBe(200);
    const still = await call('DELETE', `/v2/browser/${created.body.id}/replay`);
    expect(still.status).toBe(409);
    expect(still.body.error).toMatch(/still recording/);
    expect((await call('DELETE', `/v2/browser/${created.body.id}`)).status).toBe(200);
  }, 120_000);
});
