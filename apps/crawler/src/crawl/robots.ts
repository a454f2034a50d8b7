import robotsParser from 'robots-parser';
import { robotsSitemaps } from './sitemaps';

export interface RobotsRules {
  isAllowed(url: string): boolean;
  sitemaps(): string[];
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
