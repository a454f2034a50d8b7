import { CrawlRequest, type CrawlRequestInput } from '@wds/contracts';
import type { JobEvents, JobStore, PageCandidate, PageDispatcher } from '@wds/jobs';
import type { ChangeRecheckUseCase } from './change-recheck';
import { robotsAgentOf, robotsFetchAgentOf } from './crawl-context';
import { KickoffCrawlUseCase } from './kickoff.usecase';
import { CRAWLER_USER_AGENT, SiteFetcher, type FetchedText } from './site-fetcher';

/** Serves fixed bodies by URL and records the User-Agent of each read. */
class RecordingFetcher extends SiteFetcher {
  readonly reads: { url: string; userAgent?: string }[] = [];
  constructor(private readonly bodies: Record<string, string>) {
    super();
  }
  async getText(url: string, opts: { userAgent?: string } = {}): Promise<FetchedText | undefined> {
    this.reads.push({ url, userAgent: opts.userAgent });
    const text = this.bodies[url];
    return text === undefined ? { status: 404, url, text: '' } : { status: 200, url, text };
  }
  async close(): Promise<void> {}
}

const ROBOTS =
  'User-agent: WDSBot\nDisallow: /wds\n\nUser-agent: OtherBot\nDisallow: /other\n\n' +
  'Sitemap: https://e.com/maps/a.xml\n';
const SITEMAP =
  '<urlset><url><loc>https://e.com/wds</loc></url><url><loc>https://e.com/other</loc></url></urlset>';

async function kickoff(input: Omit<CrawlRequestInput, 'url'>) {
  const fetcher = new RecordingFetcher({
    'https://e.com/robots.txt': ROBOTS,
    'https://e.com/maps/a.xml': SITEMAP,
  });
  let added: { candidates: readonly PageCandidate[]; blocked: readonly string[] } | undefined;
  const store = {
    get: async () => ({
      id: 'c1',
      status: 'scraping',
      seeded: false,
      options: CrawlRequest.parse({ url: 'https://e.com/', ...input }),
    }),
    addPages: async (_id: string, candidates: readonly PageCandidate[], opts: { blocked: string[] }) => {
      added = { candidates, blocked: opts.blocked };
      return { inserted: candidates.length, dispatch: [], finished: false };
    },
  } as unknown as JobStore;
  const dispatcher = { publish: async () => undefined } as unknown as PageDispatcher;
  const events = { lifecycle: async () => undefined } as unknown as JobEvents;
  const recheck = { execute: async () => undefined } as unknown as ChangeRecheckUseCase;
  await new KickoffCrawlUseCase(store, fetcher, dispatcher, events, recheck).execute({
    crawlId: 'c1',
    teamId: 't',
  });
  return { reads: fetcher.reads, ...added! };
}

describe('kickoff: robots.txt and sitemap reads', () => {
  it('reads robots.txt and sitemaps as the published crawler, obeying the WDSBot group', async () => {
    const { reads, candidates, blocked } = await kickoff({});
    expect(reads).toEqual([
      { url: 'https://e.com/robots.txt', userAgent: CRAWLER_USER_AGENT },
      { url: 'https://e.com/maps/a.xml', userAgent: CRAWLER_USER_AGENT },
    ]);
    expect(candidates.map((c) => c.url)).toEqual(['https://e.com/', 'https://e.com/other']);
    expect(blocked).toEqual(['https://e.com/wds']);
  });

  it('with robotsUserAgent, reads robots.txt as that agent and obeys its group', async () => {
    const { reads, candidates, blocked } = await kickoff({ robotsUserAgent: 'OtherBot/2.0' });
    expect(reads[0]).toEqual({ url: 'https://e.com/robots.txt', userAgent: 'OtherBot/2.0' });
    // The option names robots.txt only: sitemaps stay the crawler's own reads.
    expect(reads[1]).toEqual({ url: 'https://e.com/maps/a.xml', userAgent: CRAWLER_USER_AGENT });
    expect(candidates.map((c) => c.url)).toEqual(['https://e.com/', 'https://e.com/wds']);
    expect(blocked).toEqual(['https://e.com/other']);
  });

  it('with ignoreRobotsTxt, does not read robots.txt and blocks nothing', async () => {
    const { reads, blocked } = await kickoff({ ignoreRobotsTxt: true });
    // Nothing declared (robots.txt unread): both well-known locations are tried.
    expect(reads.map((r) => r.url)).toEqual(['https://e.com/sitemap.xml', 'https://e.com/sitemap_index.xml']);
    expect(blocked).toEqual([]);
  });

  it('evaluates rules for the product token but fetches with the full published string', () => {
    const plain = CrawlRequest.parse({ url: 'https://e.com/' });
    expect(robotsAgentOf(plain)).toBe('WDSBot');
    expect(robotsFetchAgentOf(plain)).toBe(CRAWLER_USER_AGENT);
    expect(CRAWLER_USER_AGENT.startsWith('WDSBot/')).toBe(true);
    const custom = CrawlRequest.parse({ url: 'https://e.com/', robotsUserAgent: 'OtherBot/2.0' });
    expect(robotsAgentOf(custom)).toBe('OtherBot/2.0');
    expect(robotsFetchAgentOf(custom)).toBe('OtherBot/2.0');
  });
});
