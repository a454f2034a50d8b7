import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  changeTrackingDeleteRpc,
  changeTrackingUrlsRpc,
  CONSUMERS,
  normalizeCacheUrl,
  SCRAPE_HITS,
  SCRAPE_RPC,
  type RpcRequestParsed,
  type StreamPayload,
} from '@wds/contracts';
import { jetStream, rpc, type RpcAnswer } from '@wds/messaging';
import { SnapshotStore } from './formats/change-tracking/snapshot-store';
import { GetScrapeUseCase } from './use-cases/get-scrape.usecase';
import { ReadDocumentChunkUseCase } from './use-cases/read-document-chunk.usecase';
import { RunScrapeUseCase } from './use-cases/run-scrape.usecase';
import { StoreHitsUseCase } from './use-cases/store-hits.usecase';

/**
 * The scrape RPCs in the `scraper` queue group (any number of replicas share the work) and the
 * gateway's cache-hit stream, as handlers of the WDS transport (ADR 0001).
 */
@Controller()
export class ScrapeController {
  constructor(
    private readonly runScrape: RunScrapeUseCase,
    private readonly getScrape: GetScrapeUseCase,
    private readonly readChunk: ReadDocumentChunkUseCase,
    private readonly storeHits: StoreHitsUseCase,
    private readonly snapshots: SnapshotStore,
  ) {}

  @MessagePattern(...rpc(SCRAPE_RPC.run))
  run(@Payload() req: RpcRequestParsed<typeof SCRAPE_RPC.run>): RpcAnswer<typeof SCRAPE_RPC.run> {
    return this.runScrape.execute(req);
  }

  @MessagePattern(...rpc(SCRAPE_RPC.get))
  get(@Payload() req: RpcRequestParsed<typeof SCRAPE_RPC.get>): RpcAnswer<typeof SCRAPE_RPC.get> {
    return this.getScrape.execute(req);
  }

  @MessagePattern(...rpc(SCRAPE_RPC.documentChunk))
  documentChunk(
    @Payload() req: RpcRequestParsed<typeof SCRAPE_RPC.documentChunk>,
  ): RpcAnswer<typeof SCRAPE_RPC.documentChunk> {
    return this.readChunk.execute(req);
  }

  @MessagePattern(...rpc(changeTrackingDeleteRpc))
  async deleteChangeTracking(
    @Payload() { teamId, url }: RpcRequestParsed<typeof changeTrackingDeleteRpc>,
  ): RpcAnswer<typeof changeTrackingDeleteRpc> {
    return {
      deleted: await this.snapshots.deleteTeam(
        teamId,
        url === undefined ? undefined : normalizeCacheUrl(url),
      ),
    };
  }

  /** The URLs of a team's change-tracking history (a crawl re-checks those it did not discover). */
  @MessagePattern(...rpc(changeTrackingUrlsRpc))
  async changeTrackingUrls(
    @Payload() req: RpcRequestParsed<typeof changeTrackingUrlsRpc>,
  ): RpcAnswer<typeof changeTrackingUrlsRpc> {
    const urls = await this.snapshots.listUrls(req);
    return { urls, ...(urls.length === req.limit ? { next: urls[urls.length - 1] } : {}) };
  }

  /** A few batches at once: their rows then share INSERTs too (natural batching in the store). */
  @EventPattern(...jetStream(SCRAPE_HITS, CONSUMERS.scraperHits, { concurrency: 4 }))
  hits(@Payload() batch: StreamPayload<typeof SCRAPE_HITS>): Promise<void> {
    return this.storeHits.execute(batch);
  }
}
