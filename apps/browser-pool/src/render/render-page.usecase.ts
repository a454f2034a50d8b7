import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import {
  ServiceError,
  type Artifact,
  type BrowserRenderReply,
  type BrowserRenderRequest,
  type RenderedContent,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import { InlineArtifacts, type ArtifactStore } from '../artifacts/artifact-store';
import type { BrowserPool } from '../pool/browser-pool';
import type { ProfileStore } from '../profiles/profile-store';
import type { ReplayStore } from '../replay/replay-store';
import { checkActionLimits } from './actions-runner';
import { contextSpecFor, type StorageState } from './context-options';
import { Deadline } from './deadline';
import type { JobContext } from './job-context';
import type { PageRenderer, RenderOutcome } from './page-renderer';

const gzipAsync = promisify(gzip);

/** Rendered content above this (JSON bytes) is stored as an artifact: NATS messages stay under 1 MiB. */
export const INLINE_CONTENT_MAX_BYTES = 700_000;

export interface RenderSettings {
  replayRetentionMs: number;
}

/** Loopback proxy listeners: the one whose connections leave through a given upstream proxy. */
export interface UpstreamProxies {
  urlFor(upstream: string | undefined): Promise<string>;
}

/** wds.browser-pool.v1.render: one page in a fresh context, binaries stored as artifacts. */
export class RenderPageUseCase {
  constructor(
    private readonly pool: BrowserPool<JobContext>,
    private readonly renderer: PageRenderer,
    private readonly artifacts: ArtifactStore,
    private readonly profiles: ProfileStore,
    private readonly replay: ReplayStore,
    private readonly proxies: UpstreamProxies,
    private readonly settings: RenderSettings,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async execute(req: BrowserRenderRequest): Promise<BrowserRenderReply> {
    const started = this.now();
    const deadline = new Deadline(started + req.timeoutMs, this.now);
    checkActionLimits(req.actions, req.waitFor);
    // Stored while the page renders (off the latency path); a failed insert still fails the request.
    const saved = req.zeroDataRetention
      ? Promise.resolve()
      : this.replay.save(req, this.settings.replayRetentionMs);
    saved.catch(() => undefined);

    const outcome = await (req.profile
      ? this.profiles.withProfile(req.teamId, req.profile.name, req.profile.saveChanges, async (state) => {
          const result = await this.renderIn(req, deadline, state, req.profile!.saveChanges);
          return { result, state: result.storageState };
        })
      : this.renderIn(req, deadline, undefined, false));
    await saved;

    const reply = await this.store(req, outcome);
    this.logger.debug(
      { jobId: req.jobId, status: outcome.status, blocked: outcome.blocked, ms: this.now() - started },
      'page rendered',
    );
    return { ...reply, ms: Math.max(0, Math.round(this.now() - started)) };
  }

  private async renderIn(
    req: BrowserRenderRequest,
    deadline: Deadline,
    state: StorageState | undefined,
    captureStorage: boolean,
  ): Promise<RenderOutcome> {
    const proxyServer = req.upstreamProxy ? await this.proxies.urlFor(req.upstreamProxy) : undefined;
    const spec = contextSpecFor(req, state, proxyServer);
    return this.pool.run({ key: spec.key, options: spec.options, deadline: deadline.at }, (job) =>
      this.renderer.render(job, req, deadline, { captureStorage }),
    );
  }

  private async store(req: BrowserRenderRequest, o: RenderOutcome): Promise<Omit<BrowserRenderReply, 'ms'>> {
    const put = (kind: 'screenshot' | 'pdf', contentType: string, data: Buffer): Promise<Artifact> =>
      this.artifacts.put(req.teamId, kind, contentType, data);
    const content: RenderedContent = { html: o.html, scrapes: o.actions.scrapes };
    const json = Buffer.from(JSON.stringify(content));
    let inline: RenderedContent | undefined = content;
    let contentArtifact: string | undefined;
    if (json.length > INLINE_CONTENT_MAX_BYTES) {
      if (this.artifacts instanceof InlineArtifacts) {
        throw new ServiceError(
          'UPSTREAM_FAILED',
          `The rendered page (${json.length} bytes) is too large to return without artifact storage`,
        );
      }
      const stored = await this.artifacts.put(
        req.teamId,
        'content',
        'application/json+gzip',
        await gzipAsync(json),
      );
      inline = undefined;
      contentArtifact = stored.id;
    }
    return {
      status: o.status,
      finalUrl: o.finalUrl,
      contentType: o.contentType,
      content: inline,
      contentArtifact,
      screenshot: o.screenshot
        ? await put('screenshot', o.screenshot.contentType, o.screenshot.data)
        : undefined,
      branding: o.branding,
      brandingPalette: o.brandingPalette,
      actions: {
        screenshots: await Promise.all(
          o.actions.screenshots.map((s) => put('screenshot', s.contentType, s.data)),
        ),
        javascriptReturns: o.actions.javascriptReturns,
        pdfs: await Promise.all(o.actions.pdfs.map((p) => put('pdf', 'application/pdf', p))),
      },
      blockedRequests: o.blocked,
    };
  }
}
