import type { ScrapeRequest } from '../../api/scrape/scrape-request';
import { normalizeFormats } from '../../api/scrape/formats';

/** Formats produced without a browser or an LLM (plain HTTP fetch + HTML transform). */
export const FETCH_ENGINE_FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'images'] as const;

const FORMAT_NEEDS: Record<string, 'a browser' | 'an LLM'> = {
  screenshot: 'a browser',
  branding: 'a browser',
  audio: 'a browser',
  video: 'a browser',
  attributes: 'a browser',
  json: 'an LLM',
  summary: 'an LLM',
  changeTracking: 'an LLM',
  question: 'an LLM',
  highlights: 'an LLM',
};

type FeatureFields = Pick<ScrapeRequest, 'formats' | 'actions' | 'waitFor' | 'profile' | 'onlyCleanContent'>;

/**
 * The first requested format or option that the fetch engine cannot honour, as a message naming it,
 * or undefined. Such a request must be refused (400), never answered with an incomplete document.
 */
export function unsupportedScrapeFeature(o: FeatureFields): { field: string; message: string } | undefined {
  for (const f of normalizeFormats(o.formats)) {
    const needs = FORMAT_NEEDS[f.type];
    if (needs) {
      return {
        field: 'formats',
        message: `The '${f.type}' format needs ${needs}, which is not available for scrapes on this service`,
      };
    }
  }
  if ((o.actions?.length ?? 0) > 0) {
    return {
      field: 'actions',
      message: "'actions' need a browser, which is not available for scrapes on this service",
    };
  }
  if (o.waitFor > 0) {
    return {
      field: 'waitFor',
      message: "'waitFor' needs a browser, which is not available for scrapes on this service",
    };
  }
  if (o.profile) {
    return {
      field: 'profile',
      message: "'profile' needs a browser, which is not available for scrapes on this service",
    };
  }
  if (o.onlyCleanContent) {
    return {
      field: 'onlyCleanContent',
      message: "'onlyCleanContent' needs an LLM, which is not available for scrapes on this service",
    };
  }
  return undefined;
}
