import { CREDIT_PRICES, normalizeCacheUrl, type ChangeTracking, type FormatObject } from '@wds/contracts';
import type { LlmUsage } from '@wds/llm';
import { comparable, gitDiff } from './git-diff';
import type { JsonChanges } from './json-changes';
import type { SnapshotStore } from './snapshot-store';

type ChangeTrackingFormat = Extract<FormatObject, { type: 'changeTracking' }>;

export interface TrackChangesCommand {
  teamId: string;
  jobId: string;
  /** URL as requested (`metadata.sourceURL`): the history's key, normalised like cache keys. */
  url: string;
  format: ChangeTrackingFormat;
  markdown: string;
  statusCode: number;
  /** When the content was fetched (a cached copy's fetch time). */
  fetchedAt: Date;
  zeroDataRetention: boolean;
  /** A crawl page no link or sitemap of the crawl led to (re-checked from the history): `hidden`. */
  hidden?: boolean;
  /** Aborts at the scrape's deadline (json mode's model calls). */
  signal: AbortSignal;
}

export interface TrackChangesResult {
  changeTracking?: ChangeTracking;
  warning?: string;
  /** json mode: its credits when the model was called, and the tokens it spent. */
  credits?: number;
  usage?: LlmUsage;
  model?: string;
}

/** json mode's price: the page's 1 plus 4 (5 per page), when the model was called. */
export const JSON_MODE_CREDITS = CREDIT_PRICES.changeTrackingJson;

/** Statuses that say the page is gone. */
const GONE = new Set([404, 410]);

/**
 * The `changeTracking` format: compares the page with the team's previous snapshot of it (per URL and
 * tag) and makes it the new snapshot. `git-diff` mode adds the unified diff (`diff`) and its parsed
 * form (`json`). A page that answers 404/410 is `removed` and keeps its last live snapshot.
 */
export class TrackChangesUseCase {
  constructor(
    private readonly snapshots: SnapshotStore,
    /** json mode (LLM); undefined when no provider is configured (the request is refused earlier). */
    private readonly jsonChanges?: JsonChanges,
  ) {}

  async execute(cmd: TrackChangesCommand): Promise<TrackChangesResult> {
    if (cmd.zeroDataRetention) {
      return { warning: 'Change tracking is not supported with zero data retention: no snapshot is kept.' };
    }
    const key = { teamId: cmd.teamId, url: normalizeCacheUrl(cmd.url), tag: cmd.format.tag ?? '' };
    const gone = GONE.has(cmd.statusCode);
    const previous = await this.snapshots.swap(
      key,
      gone ? undefined : { scrapedAt: cmd.fetchedAt, jobId: cmd.jobId, markdown: cmd.markdown },
    );
    const previousScrapeAt = previous ? previous.scrapedAt.toISOString() : null;
    const visibility = cmd.hidden ? 'hidden' : 'visible';
    if (gone) return { changeTracking: { previousScrapeAt, changeStatus: 'removed', visibility } };
    if (!previous) return { changeTracking: { previousScrapeAt, changeStatus: 'new', visibility } };
    const changed = comparable(previous.markdown) !== comparable(cmd.markdown);
    const out: ChangeTracking = {
      previousScrapeAt,
      changeStatus: changed ? 'changed' : 'same',
      visibility,
    };
    const modes = cmd.format.modes ?? [];
    if (!changed) return { changeTracking: out };
    const diff = gitDiff(previous.markdown, cmd.markdown);
    if (modes.includes('git-diff')) {
      out.diff = diff.text;
      out.json = diff.json;
    }
    if (!modes.includes('json')) return { changeTracking: out };
    if (!this.jsonChanges) {
      return {
        changeTracking: out,
        warning: "changeTracking's json mode needs an LLM, which is not configured.",
      };
    }
    // json mode's structured comparison is the `json` field when asked for (it takes the place of the parsed diff).
    const r = await this.jsonChanges.execute({
      previous: previous.markdown,
      current: cmd.markdown,
      diff: diff.text,
      schema: cmd.format.schema,
      prompt: cmd.format.prompt,
      url: cmd.url,
      teamId: cmd.teamId,
      signal: cmd.signal,
    });
    if (r.json) out.json = r.json;
    else delete out.json;
    return {
      changeTracking: out,
      warning: r.warnings.length > 0 ? r.warnings.join(' ') : undefined,
      credits: r.called ? JSON_MODE_CREDITS : 0,
      usage: r.usage,
      model: r.model,
    };
  }
}
