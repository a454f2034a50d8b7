import type { ScrapeRequest } from '../../api/scrape/scrape-request';
import { normalizeFormats } from '../../api/scrape/formats';

/** Formats produced without a browser or an LLM (plain HTTP fetch + HTML transform). */
export const FETCH_ENGINE_FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'images'] as const;

const FORMAT_NEEDS: Record<string, 'a browser' | 'an LLM'> = {
  screenshot: 'a browser',
  branding: 'a browser',
  json: 'an LLM',
  summary: 'an LLM',
  question: 'an LLM',
  highlights: 'an LLM',
};

/** Formats the scraper computes with the LLM port (apps/scraper formats/llm). */
export const LLM_FORMATS = ['json', 'summary', 'question', 'highlights'] as const;

/** Formats the browser engine (browser-pool) produces. */
export const BROWSER_ENGINE_FORMATS = ['screenshot', 'branding'] as const;

/**
 * Formats the scraper computes per request, after the page is obtained: never answered from a copy
 * of a cache entry (change tracking compares with the team's previous snapshot; media artifacts expire).
 */
export const PER_REQUEST_FORMATS = ['changeTracking', 'audio', 'video', ...LLM_FORMATS] as const;

/** Whether the request asks for a format of {@link PER_REQUEST_FORMATS}. */
export function hasPerRequestFormat(formats: Parameters<typeof normalizeFormats>[0] | undefined): boolean {
  return normalizeFormats(formats ?? []).some((f) =>
    (PER_REQUEST_FORMATS as readonly string[]).includes(f.type),
  );
}

type FeatureFields = Pick<ScrapeRequest, 'formats' | 'actions' | 'waitFor' | 'profile' | 'onlyCleanContent'>;

/** What the deployment can do beyond the fetch engine. */
export interface ScrapeCapabilities {
  /** A browser engine (browser-pool) renders pages: screenshots, actions, waitFor, profiles. */
  browser?: boolean;
  /**
   * An LLM provider is configured (formats json, summary, question, highlights; onlyCleanContent).
   * The gateway passes true and lets the scraper, which owns the provider, refuse.
   */
  llm?: boolean;
}

/**
 * The first requested format or option that the service cannot honour, as a message naming it,
 * or undefined. Such a request must be refused (400), never answered with an incomplete document.
 */
export function unsupportedScrapeFeature(
  o: FeatureFields,
  caps: ScrapeCapabilities = {},
): { field: string; message: string } | undefined {
  for (const f of normalizeFormats(o.formats)) {
    // Change tracking compares snapshots deterministically; only its `json` mode asks a model.
    const needs =
      f.type === 'changeTracking'
        ? f.modes?.includes('json') && !caps.llm
          ? 'an LLM'
          : undefined
        : FORMAT_NEEDS[f.type];
    if (caps.browser && (BROWSER_ENGINE_FORMATS as readonly string[]).includes(f.type)) continue;
    if (caps.llm && (LLM_FORMATS as readonly string[]).includes(f.type)) continue;
    if (needs) {
      return {
        field: 'formats',
        message:
          caps.browser && needs === 'a browser'
            ? `The '${f.type}' format is not available for scrapes on this service`
            : `The '${f.type}' format needs ${needs}, which is not available for scrapes on this service`,
      };
    }
  }
  if (caps.browser) return unsupportedBeyondBrowser(o, caps);
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
  if (o.onlyCleanContent && !caps.llm) {
    return {
      field: 'onlyCleanContent',
      message: "'onlyCleanContent' needs an LLM, which is not available for scrapes on this service",
    };
  }
  return undefined;
}

function unsupportedBeyondBrowser(
  o: FeatureFields,
  caps: ScrapeCapabilities,
): { field: string; message: string } | undefined {
  if (o.onlyCleanContent && !caps.llm) {
    return {
      field: 'onlyCleanContent',
      message: "'onlyCleanContent' needs an LLM, which is not available for scrapes on this service",
    };
  }
  return undefined;
}
