import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { CRAWL_RPC, JOB_STATUS_PAGE_BYTES, ServiceError } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { WebSocketServer, type WebSocket } from 'ws';
import { AuthenticateApiKey } from '../auth/authenticate-api-key.usecase';
import { readStatusPage, statusBody, type StatusPage } from '../jobs/job-status.pager';

const PATH = /^\/v2\/crawl\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/?(?:\?.*)?$/i;
const POLL_MS = 1000;
/** Documents per status read while streaming (each becomes one `document` message). */
const READ_BYTES = 2 * 1024 * 1024;
/** Documents already stored that travel in the `catchup` message, as much as one status page. */
const CATCHUP_BYTES = JOB_STATUS_PAGE_BYTES;

/**
 * The WebSocket the Firecrawl SDK's watcher opens at `/v2/crawl/{id}` with the API key as the
 * subprotocol. Messages, as the SDK reads them: `catchup` (counts and the documents stored so far),
 * one `document` per later page in completion order, then `done` (completed), `error` (failed) or
 * `cancelled` (its `data.status` is what the SDK reads).
 */
@Injectable()
export class CrawlWatchSocket implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (p) => p.values().next().value ?? false,
  });

  constructor(
    private readonly adapter: HttpAdapterHost,
    private readonly messaging: Messaging,
    private readonly authenticate: AuthenticateApiKey,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapter.httpAdapter.getHttpServer() as import('node:http').Server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const m = PATH.exec(req.url ?? '');
      if (!m) return;
      void this.upgrade(req, socket, head, m[1]);
    });
  }

  onApplicationShutdown(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, jobId: string): Promise<void> {
    const protocol = (req.headers['sec-websocket-protocol'] ?? '').split(',')[0]?.trim();
    const bearer = req.headers.authorization?.replace(/^Bearer\s+/i, '');
    let teamId: string;
    try {
      teamId = (await this.authenticate.execute(protocol || bearer || undefined)).teamId;
    } catch {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.stream(ws, teamId, jobId).catch((err: unknown) => {
        const message = err instanceof ServiceError ? err.message : 'Internal error';
        if (!(err instanceof ServiceError)) this.logger.warn({ err, jobId }, 'crawl watcher failed');
        send(ws, JSON.stringify({ type: 'error', error: message }));
        ws.close(1011);
      });
    });
  }

  private async stream(ws: WebSocket, teamId: string, jobId: string): Promise<void> {
    let open = true;
    ws.on('close', () => (open = false));
    const caught = await readStatusPage(this.messaging, CRAWL_RPC, {
      teamId,
      jobId,
      skip: 0,
      byteBudget: CATCHUP_BYTES,
    });
    // The SDK ends its watch on a catch-up with a final status: a finished crawl whose documents do
    // not all fit in it is reported as still scraping until the rest has been streamed.
    const status = caught.more ? 'scraping' : caught.status;
    send(ws, `{"type":"catchup","data":${statusBody({ ...caught, status }, null)}}`);
    let page = caught;
    while (open) {
      if (!page.more && page.status !== 'scraping') {
        await this.end(ws, teamId, jobId, page);
        return;
      }
      if (!page.more) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (!open) return;
      page = await readStatusPage(this.messaging, CRAWL_RPC, {
        teamId,
        jobId,
        skip: page.nextSkip,
        byteBudget: READ_BYTES,
      });
      for (const json of page.documents) send(ws, `{"type":"document","data":${json}}`);
    }
  }

  /** The last message of a finished crawl, then a normal close. */
  private async end(ws: WebSocket, teamId: string, jobId: string, page: StatusPage): Promise<void> {
    const counts = {
      status: page.status,
      total: page.total,
      completed: page.completed,
      creditsUsed: page.creditsUsed,
      expiresAt: page.expiresAt,
      data: [],
    };
    if (page.status === 'completed') send(ws, JSON.stringify({ type: 'done', data: counts }));
    else if (page.status === 'failed') {
      const { errors } = await this.messaging.request(CRAWL_RPC.errors, { teamId, jobId });
      send(ws, JSON.stringify({ type: 'error', error: errors.at(-1)?.error ?? 'Crawl failed' }));
    } else send(ws, JSON.stringify({ type: 'cancelled', data: counts }));
    ws.close(1000);
  }
}

function send(ws: WebSocket, text: string): void {
  if (ws.readyState === ws.OPEN) ws.send(text);
}
