import { Injectable } from '@nestjs/common';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { Document, SCRAPE_RPC, ServiceError, type ScrapeDocumentRef } from '@wds/contracts';
import { Messaging } from '@wds/messaging';

const gunzipAsync = promisify(gunzip);

/** Resolves a scrape reply's document: inline as is, or read by reference from the scraper in chunks. */
@Injectable()
export class ScrapeDocumentReader {
  constructor(private readonly messaging: Messaging) {}

  async resolve(
    teamId: string,
    reply: { document?: Document; documentRef?: ScrapeDocumentRef },
  ): Promise<Document> {
    if (reply.document) return reply.document;
    if (!reply.documentRef) throw new ServiceError('INTERNAL', 'scrape reply carried no document');
    const ref = reply.documentRef;
    const parts: Buffer[] = [];
    // In order: the scraper erases a zero-data-retention document once its last chunk is read.
    for (let index = 0; index < ref.chunks; index++) {
      const chunk = await this.messaging.request(SCRAPE_RPC.documentChunk, {
        teamId,
        jobId: ref.jobId,
        index,
      });
      parts.push(Buffer.from(chunk.data, 'base64'));
    }
    const json = await gunzipAsync(Buffer.concat(parts));
    return Document.parse(JSON.parse(json.toString('utf8')));
  }
}
