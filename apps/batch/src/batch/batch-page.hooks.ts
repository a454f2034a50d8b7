import type { Document, PageTask, ScrapeRequestInput } from '@wds/contracts';
import type { JobRow, PageJobHooks } from '@wds/jobs';
import { storedOptions } from './batch-options';

/** The batch's part of the page pipeline: every page is scraped with the batch's options, nothing is discovered. */
export class BatchPageHooks implements PageJobHooks {
  scrapeRequest(job: JobRow, task: PageTask): ScrapeRequestInput {
    return { ...storedOptions(job).scrapeOptions, url: task.url } as ScrapeRequestInput;
  }

  afterScrape(_job: JobRow, _task: PageTask, document: Document): { document: Document } {
    return { document };
  }
}
