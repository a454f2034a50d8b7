import { normalizeCacheUrl, type ChangeTracking, type FormatObject } from '@wds/contracts';
import { comparable, gitDiff } from './git-diff';
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
}

export interface TrackChangesResult {
  changeTracking?: ChangeTracking;
  warning?: string;
}

/** Statuses that say the page is gone. */
const GONE = new Set([404, 410]);

/**
 * The `changeTracking` format: compares the page with the team's previous snapshot of it (per URL and
 * tag) and makes it the new snapshot. `git-diff` mode adds the unified diff (`diff`) and its parsed
 * form (`json`). A page that answers 404/410 is `removed` and keeps its last live snapshot.
 */
export class TrackChangesUseCase {
  constructor(private readonly snapshots: SnapshotStore) {}

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
    if (gone) return { changeTracking: { previousScrapeAt, changeStatus: 'removed', visibility: 'visible' } };
    if (!previous)
      return { changeTracking: { previousScrapeAt, changeStatus: 'new', visibility: 'visible' } };
    const changed = comparable(previous.markdown) !== comparable(cmd.markdown);
    const out: ChangeTracking = {
      previousScrapeAt,
      changeStatus: changed ? 'changed' : 'same',
      visibility: 'visible',
    };
    if (changed && (cmd.format.modes ?? []).includes('git-diff')) {
      const diff = gitDiff(previous.markdown, cmd.markdown);
      out.diff = diff.text;
      out.json = diff.json;
    }
    return { changeTracking: out };
  }
}
