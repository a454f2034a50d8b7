import { z } from 'zod';
import { Location } from '../../api/common/location';
import { MAX_ACTIONS, PageAction } from '../../api/scrape/actions';
import { Branding } from '../../api/scrape/document';
import { Viewport } from '../../api/scrape/formats';
import { BrowserProfile } from '../../api/scrape/scrape-request';
import { defineRpc } from '../define';

/*
 * The browser-pool service's internal API (see docs/adr/0004-browser-pool.md). NEVER rename a shipped
 * subject: bump its version and run both until the old one drains.
 */

/** JetStream object store bucket of screenshots, PDFs and large rendered content; keyed by uuid. */
export const ARTIFACTS_BUCKET = 'wds-artifacts';

/**
 * Kinds of stored artifacts; `content` is gzip JSON of {@link RenderedContent} (never served publicly);
 * `audio`/`video` are the scraper's media formats.
 */
export const ArtifactKind = z.enum(['screenshot', 'pdf', 'content', 'audio', 'video']);
export type ArtifactKind = z.output<typeof ArtifactKind>;

/** Metadata stored on every artifact object: the owning team decides who may read it. */
export const ArtifactMeta = z.object({ teamId: z.string().min(1), kind: ArtifactKind });
export type ArtifactMeta = z.output<typeof ArtifactMeta>;

/** A binary result: stored (`id` in {@link ARTIFACTS_BUCKET}) or inline base64 when storage is disabled. */
export const Artifact = z
  .object({
    id: z.uuid().optional(),
    base64: z.string().optional(),
    contentType: z.string().min(1),
    bytes: z.int().min(0),
  })
  .refine((a) => (a.id === undefined) !== (a.base64 === undefined), {
    message: 'An artifact has exactly one of id or base64',
  });
export type Artifact = z.output<typeof Artifact>;

export const ScreenshotOptions = z.object({
  fullPage: z.boolean().default(false),
  quality: z.int().min(1).max(100).optional(),
  viewport: Viewport.optional(),
});
export type ScreenshotOptions = z.output<typeof ScreenshotOptions>;

/** Render one page in a fresh browser context. */
export const BrowserRenderRequest = z.object({
  teamId: z.string().min(1),
  jobId: z.uuid(),
  url: z.url(),
  headers: z.record(z.string(), z.string()).optional(),
  mobile: z.boolean().default(false),
  location: Location.optional(),
  skipTlsVerification: z.boolean().default(false),
  blockAds: z.boolean().default(true),
  /** Extra wait (ms) after the smart wait (load + network idle, capped). */
  waitFor: z.int().min(0).max(60_000).default(0),
  /** Budget of the whole render in the pool (navigation, waits, actions, artifacts). */
  timeoutMs: z.int().min(500).max(300_000),
  screenshot: ScreenshotOptions.optional(),
  /** Compute the page's branding profile from the rendered page (the `branding` format). */
  branding: z.boolean().default(false),
  actions: z.array(PageAction).max(MAX_ACTIONS).default([]),
  profile: BrowserProfile.optional(),
  /** Nothing about the request is kept (no replay context). */
  zeroDataRetention: z.boolean().default(false),
  /**
   * `http(s)://[user:pass@]host:port` every connection of the page leaves through (one of the scraper's
   * WDS_PROXY_BASIC / WDS_PROXY_ENHANCED proxies), after the network policy; never stored.
   */
  upstreamProxy: z.url().optional(),
});
export type BrowserRenderRequest = z.output<typeof BrowserRenderRequest>;
export type BrowserRenderRequestInput = z.input<typeof BrowserRenderRequest>;

/** The rendered DOM and the HTML captured by `scrape` actions. */
export const RenderedContent = z.object({
  html: z.string(),
  scrapes: z.array(z.object({ url: z.string(), html: z.string() })),
});
export type RenderedContent = z.output<typeof RenderedContent>;

/**
 * One colour of a rendered page and where it is used (text characters, background area in 100 px²,
 * bordered elements, link characters, buttons, the CSS custom properties holding it): the input of
 * the optional LLM naming of branding colour roles, which may only pick among these colours.
 */
export const BrandingColour = z.object({
  color: z.string().regex(/^#[0-9A-F]{6}$/),
  text: z.int().min(0),
  background: z.int().min(0),
  border: z.int().min(0),
  link: z.int().min(0),
  button: z.int().min(0),
  cssVariables: z.array(z.string().max(200)).max(4),
});
export type BrandingColour = z.output<typeof BrandingColour>;

export const BrowserRenderReply = z
  .object({
    /** HTTP status of the main document (after redirects). */
    status: z.int(),
    finalUrl: z.string(),
    contentType: z.string().optional(),
    /** Inline when small; otherwise `contentArtifact` names a gzip JSON artifact of the same shape. */
    content: RenderedContent.optional(),
    contentArtifact: z.uuid().optional(),
    screenshot: Artifact.optional(),
    /** The branding profile, when asked for. */
    branding: Branding.optional(),
    /** The page's colours with their uses, beside `branding` (at most 16). */
    brandingPalette: z.array(BrandingColour).max(16).optional(),
    actions: z.object({
      screenshots: z.array(Artifact),
      javascriptReturns: z.array(z.object({ type: z.string(), value: z.unknown() })),
      pdfs: z.array(Artifact),
    }),
    /** Requests the page made that were refused: by the network policy, by the ad/tracker blocker. */
    blockedRequests: z.object({ policy: z.int().min(0), ads: z.int().min(0) }),
    ms: z.int().min(0),
  })
  .refine((r) => (r.content === undefined) !== (r.contentArtifact === undefined), {
    message: 'A render reply has exactly one of content or contentArtifact',
  });
export type BrowserRenderReply = z.output<typeof BrowserRenderReply>;

/** What a browser-capable scrape keeps so its page state can be rebuilt later (interact). */
export const ReplayContext = z.object({
  jobId: z.uuid(),
  teamId: z.string(),
  url: z.string(),
  options: BrowserRenderRequest.omit({
    actions: true,
    profile: true,
    teamId: true,
    jobId: true,
    url: true,
    upstreamProxy: true,
  }),
  actions: z.array(PageAction),
  profile: BrowserProfile.optional(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type ReplayContext = z.output<typeof ReplayContext>;

export const ReplayContextGetRequest = z.object({ teamId: z.string().min(1), jobId: z.uuid() });
export const ReplayContextGetReply = z.object({ context: ReplayContext });

/** Capacity of one browser-pool replica (also exported as metrics). */
export const BrowserPoolStats = z.object({
  instanceId: z.string(),
  capacity: z.int(),
  activeContexts: z.int(),
  browsers: z.int(),
  launches: z.int(),
  crashes: z.int(),
  recycled: z.int(),
  jobs: z.int(),
  rejected: z.int(),
  draining: z.boolean(),
});
export type BrowserPoolStats = z.output<typeof BrowserPoolStats>;

const BROWSER_POOL = 'browser-pool';

/** Browser-pool RPCs, served in the `browser-pool` queue group. */
export const BROWSER_POOL_RPC = {
  /** A replica at capacity answers CONCURRENCY_LIMITED at once; callers retry (another replica may answer). */
  render: defineRpc('wds.browser-pool.v1.render', BROWSER_POOL, BrowserRenderRequest, BrowserRenderReply),
  /** The replay context of a browser-capable scrape of the team; unknown/expired: NOT_FOUND; other team: FORBIDDEN. */
  replayContext: defineRpc(
    'wds.browser-pool.v1.replay-context.get',
    BROWSER_POOL,
    ReplayContextGetRequest,
    ReplayContextGetReply,
  ),
} as const;
