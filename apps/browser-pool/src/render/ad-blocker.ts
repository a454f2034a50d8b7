import fs from 'node:fs';
import path from 'node:path';
import { FiltersEngine, Request, type RequestType } from '@ghostery/adblocker';
import type { RequestBlocker } from './request-guard';

/**
 * The small list shipped with the service: the cookie-notice selectors (always used, after consent
 * dialogs were answered) and a fallback set of ad/tracker network rules for hosts without EasyList.
 */
export const BUNDLED_FILTER_LIST = path.join(__dirname, '..', '..', 'assets', 'filters.txt');

/**
 * EasyList and EasyPrivacy as Debian's `webext-ublock-origin-chromium` package ships them (installed
 * next to Chromium, updated with the distribution; never fetched at run time). No npm package bundles
 * these lists: the ad-blocker libraries download them.
 */
export const SYSTEM_FILTER_LISTS = [
  '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt',
  '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easyprivacy.txt',
];

/** The network lists to use: the operator's when configured, else EasyList/EasyPrivacy if installed. */
export function filterListsFor(configured: readonly string[] | undefined): {
  lists: string[];
  fallback: boolean;
} {
  if (configured && configured.length > 0) return { lists: [...configured], fallback: false };
  const system = SYSTEM_FILTER_LISTS.filter((f) => fs.existsSync(f));
  return system.length > 0
    ? { lists: system, fallback: false }
    : { lists: [BUNDLED_FILTER_LIST], fallback: true };
}

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
 * run time), plus the generic cosmetic rules (`##selector`) of the bundled list used to remove cookie
 * notices that no consent rule answered.
 */
export class AdBlocker implements RequestBlocker {
  private constructor(
    private readonly engine: FiltersEngine,
    /** Generic element-hiding selectors: cookie notices and consent dialogs. */
    readonly noticeSelectors: readonly string[],
    /** Lines of the network lists (rules, comments and cosmetic rules alike): for the start-up log. */
    readonly lines: number,
  ) {}

  static fromFiles(networkLists: readonly string[], noticeList: string = BUNDLED_FILTER_LIST): AdBlocker {
    const text = networkLists.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const engine = FiltersEngine.parse(text, { loadCosmeticFilters: false, enableCompression: false });
    const selectors = fs
      .readFileSync(noticeList, 'utf8')
      .split('\n')
      .map((l) => /^##(.+)$/.exec(l.trim())?.[1])
      .filter((s): s is string => s !== undefined);
    return new AdBlocker(engine, selectors, text.split('\n').length);
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
