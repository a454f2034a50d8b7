import robotsParser from 'robots-parser';
import { robotsSitemaps } from './sitemaps';

export interface RobotsRules {
  isAllowed(url: string): boolean;
  sitemaps(): string[];
}

/**
 * How much of a robots.txt is read (RFC 9309 2.5: at least 500 KiB; Google reads that much): the
 * rules are kept with the crawl and matched for every link, so a larger file would cost the
 * crawler's event loop seconds to parse and tens of ms per link (a 35 MB file: 1.6 s, then 42 ms a
 * link). Cut at the last line break within the limit.
 */
export const ROBOTS_MAX_CHARS = 500 * 1024;

/** The part of a robots.txt that is read (see ROBOTS_MAX_CHARS). */
export function robotsPart(text: string): string {
  if (text.length <= ROBOTS_MAX_CHARS) return text;
  const cut = text.lastIndexOf('\n', ROBOTS_MAX_CHARS);
  return text.slice(0, cut > 0 ? cut + 1 : ROBOTS_MAX_CHARS);
}

/** robots.txt rules for one user agent; a missing or unreadable file allows everything. */
export function parseRobots(robotsUrl: string, text: string | undefined, userAgent: string): RobotsRules {
  const robots = robotsParser(robotsUrl, text ?? '');
  return {
    // URLs of other hosts are outside this file's say (undefined): allowed.
    isAllowed: (url) => robots.isAllowed(url, userAgent) !== false,
    // Resolved against the file's URL and tolerant of case/whitespace variants (robots-parser
    // returns relative values as written).
    sitemaps: () => robotsSitemaps(robotsUrl, text ?? ''),
  };
}

export const ALLOW_ALL: RobotsRules = { isAllowed: () => true, sitemaps: () => [] };
