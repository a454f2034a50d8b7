import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningModelServer } from '@wds/local-infra';
import { MODEL_SERVER_START_TIMEOUT_MS, startTestModelServer } from '@wds/testing';
import { startScraper, type ScraperHarness } from '../support/scraper-harness';

// changeTracking's json mode against a real llama.cpp server with SmolLM2-135M: plumbing (shapes,
// credits, when the model is called), not answer quality.
jest.setTimeout(600_000);

const SCHEMA = {
  type: 'object',
  properties: { product: { type: 'string' }, price: { type: 'number' } },
  required: ['product', 'price'],
};

describe('scraper: changeTracking json mode (real model server)', () => {
  let model: RunningModelServer;
  let scraper: ScraperHarness;
  let server: http.Server;
  let base: string;
  const state = { price: 10 };

  beforeAll(async () => {
    model = await startTestModelServer({ contextTokens: 4096, parallel: 2 });
    server = http.createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<html><body><main><h1>Kettle</h1><p>The kettle costs ${state.price} dollars.</p></main></body></html>`,
        ),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    scraper = await startScraper({
      WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
      WDS_BROWSER_ENABLED: 'false',
      WDS_LLM_BASE_URL: model.baseUrl,
      WDS_LLM_MODEL: model.modelName,
      WDS_LLM_CONTEXT_TOKENS: '2048',
      WDS_LLM_MAX_OUTPUT_TOKENS: '200',
    });
  }, MODEL_SERVER_START_TIMEOUT_MS);

  afterAll(async () => {
    await scraper?.stop();
    await model?.stop();
    await new Promise((r) => server?.close(r));
  });

  const track = (teamId: string, format: Record<string, unknown>) =>
    scraper.scrape(teamId, {
      url: `${base}/kettle`,
      timeout: 240_000,
      formats: [{ type: 'changeTracking', ...format }],
    });

  it('with a schema: field-level {previous, current} once the page changed, 5 credits; none before', async () => {
    const t = `team-${randomUUID()}`;
    state.price = 10;
    const first = await track(t, { modes: ['json'], schema: SCHEMA });
    expect(first.document.changeTracking).toMatchObject({ changeStatus: 'new' });
    expect(first.document.changeTracking!.json).toBeUndefined();
    expect(first.creditsUsed).toBe(1); // the model is not called for a new page

    state.price = 12;
    const second = await track(t, { modes: ['json', 'git-diff'], schema: SCHEMA });
    const ct = second.document.changeTracking!;
    expect(ct.changeStatus).toBe('changed');
    expect(ct.diff).toContain('+The kettle costs 12 dollars.');
    expect(second.creditsUsed).toBe(5);
    // Whatever the tiny model read, the answer has the field-level shape (or a warning says why not).
    if (ct.json) {
      for (const [key, value] of Object.entries(ct.json)) {
        expect(['product', 'price']).toContain(key);
        expect(Object.keys(value as object).sort()).toEqual(['current', 'previous']);
      }
    } else {
      expect(second.document.warning).toMatch(/json mode/);
    }
  });

  it('without a schema: the model lists the changes it reads in the diff', async () => {
    const t = `team-${randomUUID()}`;
    state.price = 20;
    await track(t, { modes: ['json'] });
    state.price = 30;
    const r = await track(t, { modes: ['json'], prompt: 'What happened to the price?' });
    expect(r.document.changeTracking!.changeStatus).toBe('changed');
    expect(r.creditsUsed).toBe(5);
    const json = r.document.changeTracking!.json as { changes?: unknown[] } | undefined;
    if (json) expect(Array.isArray(json.changes)).toBe(true);
    else expect(r.document.warning).toMatch(/json mode/);
  });
});
