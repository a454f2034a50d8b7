import fs from 'node:fs';
import path from 'node:path';
import { FiltersEngine, Request, type RequestType } from '@ghostery/adblocker';
import type { RequestBlocker } from './request-guard';

/** The list shipped with the service (ad networks, trackers, cookie notices). */
export const BUNDLED_FILTER_LIST = path.join(__dirname, '..', '..', 'assets', 'filters.txt');

const TYPES: Record<string, RequestType> = {
  document: 'sub_frame',
  stylesheet: 'stylesheet',
  image: 'image',
  media: 'media',
  font: 'font',
  script: 'script',
  texttrack: 'media',
  xhr: 'xhr',
  fetch: 'fetch',
  eventsource: 'other',
  websocket: 'websocket',
  manifest: 'other',
  other: 'other',
};

/**
 * Ad and tracker blocking with Ghostery's filter engine over local Adblock Plus lists (never fetched at
 * run time), plus the generic cosmetic rules (`##selector`) used to remove cookie notices.
 */
export class AdBlocker implements RequestBlocker {
  private constructor(
    private readonly engine: FiltersEngine,
    /** Generic element-hiding selectors: cookie notices and consent dialogs. */
    readonly noticeSelectors: readonly string[],
  ) {}

  static fromFiles(files: readonly string[]): AdBlocker {
    const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const engine = FiltersEngine.parse(text, { loadCosmeticFilters: false, enableCompression: false });
    const selectors = text
      .split('\n')
      .map((l) => /^##(.+)$/.exec(l.trim())?.[1])
      .filter((s): s is string => s !== undefined);
    return new AdBlocker(engine, selectors);
  }

  isBlocked(req: { url: string; sourceUrl: string; resourceType: string }): boolean {
    const request = Request.fromRawDetails({
      url: req.url,
      sourceUrl: req.sourceUrl,
      type: TYPES[req.resourceType] ?? 'other',
    });
    return this.engine.match(request).match;
  }
}
