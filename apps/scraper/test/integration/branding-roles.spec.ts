import { ScrapeRunRequest, type Branding, type BrandingColour } from '@wds/contracts';
import type { RunningModelServer } from '@wds/local-infra';
import { llmConfigFromEnv, OpenAiCompatibleLlm } from '@wds/llm';
import { createLogger } from '@wds/observability';
import {
  MODEL_SERVER_START_TIMEOUT_MS,
  startFaultProxy,
  startTestModelServer,
  type FaultProxy,
} from '@wds/testing';
import type { FetchedPage } from '../../src/scrape/engine/fetch-engine';
import type { RenderedPage } from '../../src/scrape/engine/browser-engine';
import type { SnapshotStore } from '../../src/scrape/formats/change-tracking/snapshot-store';
import { TrackChangesUseCase } from '../../src/scrape/formats/change-tracking/track-changes.usecase';
import { BrandingRoles, ENERGIES, NAMED_ROLES, TONES } from '../../src/scrape/formats/llm/branding-roles';
import { LlmFormats, type TokenSink } from '../../src/scrape/formats/llm/llm-formats';
import { PageFormats } from '../../src/scrape/formats/page-formats';

// The optional LLM pass of `branding` (WDS_BRANDING_LLM) against a real llama.cpp server with
// SmolLM2-135M: plumbing (roles only among the page's colours, tokens reported, measured profile
// kept on an invalid answer, nothing sent under ZDR), not naming quality.
jest.setTimeout(600_000);

/** The measured profile and palette of browser-pool's branded test page (branding.spec.ts there). */
const BRANDING: Branding = {
  colorScheme: 'light',
  colors: {
    primary: '#FF5A1F',
    secondary: '#FF5A1F',
    accent: '#10B981',
    background: '#FFFFFF',
    textPrimary: '#111827',
    textSecondary: '#6B7280',
    link: '#2563EB',
    error: '#DC2626',
  },
  components: {
    buttonPrimary: { background: '#FF5A1F', textColor: '#FFFFFF', borderRadius: '8px' },
  },
};
const use = (color: string, over: Partial<BrandingColour>): BrandingColour => ({
  color,
  text: 0,
  background: 0,
  border: 0,
  link: 0,
  button: 0,
  cssVariables: [],
  ...over,
});
const PALETTE: BrandingColour[] = [
  use('#FFFFFF', { background: 5000, text: 20 }),
  use('#FF5A1F', { button: 3, text: 10, cssVariables: ['--color-primary'] }),
  use('#111827', { text: 180 }),
  use('#DC2626', { cssVariables: ['--danger'] }),
  use('#10B981', { cssVariables: ['--accent'] }),
  use('#2563EB', { text: 11, link: 11 }),
  use('#6B7280', { text: 52, cssVariables: ['--text-muted'] }),
  use('#D1D5DB', { border: 1 }),
  use('#F9FAFB', { background: 90 }),
];
const COLOURS = PALETTE.map((c) => c.color);

describe('scraper: LLM naming of branding colour roles (real model server)', () => {
  let model: RunningModelServer;
  let proxy: FaultProxy;
  let llm: OpenAiCompatibleLlm;
  const logger = createLogger({ service: 'test', level: 'fatal' });

  beforeAll(async () => {
    model = await startTestModelServer({ contextTokens: 4096, parallel: 1 });
    proxy = await startFaultProxy(model.baseUrl);
    llm = new OpenAiCompatibleLlm({
      ...llmConfigFromEnv({ WDS_LLM_BASE_URL: proxy.baseUrl, WDS_LLM_MODEL: model.modelName }),
      contextTokens: 4096,
      timeoutMs: 540_000,
    });
  }, MODEL_SERVER_START_TIMEOUT_MS);

  afterAll(async () => {
    await proxy?.close();
    await model?.stop();
  });

  const signal = () => AbortSignal.timeout(540_000);

  it('names roles only with colours of the page, keeps background and text colours, reports tokens', async () => {
    const r = await new BrandingRoles(llm).execute({
      branding: BRANDING,
      palette: PALETTE,
      url: 'https://acme.example/',
      signal: signal(),
    });
    // SmolLM2 answers under the grammar: a valid object whose every value is a palette colour.
    expect(r.warnings).toEqual([]);
    for (const role of NAMED_ROLES) {
      const c = r.branding.colors?.[role];
      if (c !== undefined) expect(COLOURS).toContain(c);
    }
    for (const [role, c] of Object.entries(r.named)) {
      expect(COLOURS).toContain(c);
      expect(r.branding.colors?.[role as keyof NonNullable<Branding['colors']>]).toBe(c);
    }
    expect(r.branding.colors).toMatchObject({
      background: '#FFFFFF',
      textPrimary: '#111827',
      textSecondary: '#6B7280',
    });
    expect(r.branding.components).toEqual(BRANDING.components);
    expect(r.usage?.estimated).toBe(false);
    expect(r.usage?.promptTokens).toBeGreaterThan(0);
    expect(r.usage?.completionTokens).toBeGreaterThan(0);
    expect(r.model).toBe(model.modelName);
    // No page words given: colour roles only.
    expect(r.branding.personality).toBeUndefined();
  });

  it("names the brand's personality from the page's words: a listed tone and energy, a short audience", async () => {
    const r = await new BrandingRoles(llm).execute({
      branding: BRANDING,
      palette: PALETTE,
      url: 'https://acme.example/',
      pageText:
        'Acme Rockets — Build your first rocket this weekend!\nKits for curious kids aged 8 to 12 and their parents. ' +
        'Launch day is the best day: snap the parts together, paint it, and watch it fly.',
      signal: signal(),
    });
    expect(r.warnings).toEqual([]);
    const p = r.branding.personality as { tone: string; energy: string; targetAudience: string };
    expect(TONES).toContain(p.tone);
    expect(ENERGIES).toContain(p.energy);
    expect(p.targetAudience.length).toBeGreaterThanOrEqual(3);
    expect(p.targetAudience.length).toBeLessThanOrEqual(60);
    for (const role of NAMED_ROLES) {
      const c = r.branding.colors?.[role];
      if (c !== undefined) expect(COLOURS).toContain(c);
    }
  });

  it('a personality outside the lists is rejected with the whole answer: measured profile kept', async () => {
    const answer = {
      ...Object.fromEntries(NAMED_ROLES.map((role) => [role, 'none'])),
      personality: { tone: 'sarcastic', energy: 'extreme', targetAudience: 'everyone' },
    };
    proxy.rewriteNext(2, JSON.stringify(answer)); // the answer and its repair round
    const r = await new BrandingRoles(llm).execute({
      branding: BRANDING,
      palette: PALETTE,
      url: 'https://acme.example/',
      pageText: 'Acme: rockets for kids.',
      signal: signal(),
    });
    expect(r.branding).toEqual(BRANDING);
    expect(r.warnings.join(' ')).toMatch(/measured roles are kept/);
  });

  it('an answer naming a colour the page does not use is rejected: measured roles kept, with a warning', async () => {
    const invented = JSON.stringify(
      Object.fromEntries(NAMED_ROLES.map((role) => [role, role === 'primary' ? '#123456' : 'none'])),
    );
    proxy.rewriteNext(2, invented); // the answer and its repair round
    const r = await new BrandingRoles(llm).execute({
      branding: BRANDING,
      palette: PALETTE,
      url: 'https://acme.example/',
      signal: signal(),
    });
    expect(r.branding).toEqual(BRANDING);
    expect(r.named).toEqual({});
    expect(r.warnings.join(' ')).toMatch(/measured roles are kept/);
  });

  describe('in the page formats of a fetched page', () => {
    const events: Parameters<TokenSink>[0][] = [];
    const formats = new PageFormats(
      // Change tracking is not exercised here (no snapshot is read or written by pageFields).
      new TrackChangesUseCase({} as SnapshotStore),
      undefined,
      new LlmFormats(new OpenAiCompatibleLlm(llmConfigFromEnv({})), logger, async (e) => {
        events.push(e);
      }),
      undefined,
    );
    const page = {
      status: 200,
      body: Buffer.from('<html><body>Acme</body></html>'),
      contentType: 'text/html',
    } as unknown as FetchedPage;
    const rendered = { branding: BRANDING, brandingPalette: PALETTE } as unknown as RenderedPage;
    const cmd = (over: Partial<ScrapeRunRequest> = {}): ScrapeRunRequest =>
      ScrapeRunRequest.parse({
        teamId: 'team-branding',
        requestId: 'req-branding',
        jobId: `00000000-0000-4000-8000-00000000000${events.length + 1}`,
        options: { url: 'https://acme.example/', formats: ['branding'] },
        usage: { endpoint: 'crawl', apiKey: null },
        ...over,
      });
    let withRoles: PageFormats;

    beforeAll(() => {
      // Built here: the model server's URL is known only after the outer beforeAll.
      withRoles = new PageFormats(
        new TrackChangesUseCase({} as SnapshotStore),
        undefined,
        new LlmFormats(llm, logger, async (e) => {
          events.push(e);
        }),
        new BrandingRoles(llm),
      );
    });

    it('runs the pass when configured and books its tokens under the page endpoint', async () => {
      const c = cmd();
      const out = await withRoles.pageFields({
        cmd: c,
        zeroDataRetention: false,
        page,
        rendered,
        deadline: Date.now() + 540_000,
      });
      expect(out.tokens).toHaveLength(1);
      expect(out.tokens[0].feature).toBe('branding');
      // The page's words ("Acme") were given: a personality from the lists.
      expect(TONES).toContain((out.fields.branding?.personality as { tone: string }).tone);
      for (const role of NAMED_ROLES) {
        const v = out.fields.branding?.colors?.[role];
        if (v !== undefined) expect(COLOURS).toContain(v);
      }
      expect(events).toEqual([
        expect.objectContaining({
          eventId: `${c.jobId}:llm:branding`,
          teamId: 'team-branding',
          endpoint: 'crawl',
          inputTokens: out.tokens[0].usage.promptTokens,
          outputTokens: out.tokens[0].usage.completionTokens,
        }),
      ]);
    });

    it('does not call the model under zero data retention, nor when the switch is off', async () => {
      const before = proxy.requests;
      events.length = 0;
      const zdr = await withRoles.pageFields({
        cmd: cmd(),
        zeroDataRetention: true,
        page,
        rendered,
        deadline: Date.now() + 60_000,
      });
      expect(zdr.fields.branding).toEqual(BRANDING);
      const off = await formats.pageFields({
        cmd: cmd(),
        zeroDataRetention: false,
        page,
        rendered,
        deadline: Date.now() + 60_000,
      });
      expect(off.fields.branding).toEqual(BRANDING);
      expect(off.tokens).toEqual([]);
      expect(proxy.requests).toBe(before);
      expect(events).toEqual([]);
    });
  });
});
