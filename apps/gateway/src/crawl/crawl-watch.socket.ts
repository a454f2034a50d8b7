import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { CRAWL_RPC, ServiceError } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { WebSocketServer, type WebSocket } from 'ws';
import { AuthenticateApiKey } from '../auth/authenticate-api-key.usecase';
import { readStatusPage } from '../jobs/job-status.pager';

const PATH = /^\/v2\/crawl\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/?(?:\?.*)?$/i;
const POLL_MS = 1000;
/** Documents per status read while streaming (each becomes one `document` message). */
const READ_BYTES = 2 * 1024 * 1024;

/**
 * The WebSocket the Firecrawl SDK's watcher opens at `/v2/crawl/{id}` with the API key as the
 * subprotocol. Messages, as the SDK reads them: `catchup` (counts), one `document` per page in
 * completion order, then `done` (completed), `error` (failed) or a final status (cancelled).
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
    let skip = 0;
    let first = true;
    while (open) {
      const page = await readStatusPage(this.messaging, CRAWL_RPC, {
        teamId,
        jobId,
        skip,
        byteBudget: READ_BYTES,
      });
      const counts = {
        status: page.status,
        total: page.total,
        completed: page.completed,
        creditsUsed: page.creditsUsed,
        expiresAt: page.expiresAt,
      };
      if (first) {
        send(ws, JSON.stringify({ type: 'catchup', data: { ...counts, status: 'scraping', data: [] } }));
        first = false;
      }
      for (const json of page.documents) send(ws, `{"type":"document","data":${json}}`);
      skip = page.nextSkip;
      if (page.more) continue;
      if (page.status !== 'scraping') {
        if (page.status === 'completed')
          send(ws, JSON.stringify({ type: 'done', data: { ...counts, data: [] } }));
        else if (page.status === 'failed') {
          const { errors } = await this.messaging.request(CRAWL_RPC.errors, { teamId, jobId });
          send(ws, JSON.stringify({ type: 'error', error: errors.at(-1)?.error ?? 'Crawl failed' }));
        } else send(ws, JSON.stringify({ type: 'status', data: { ...counts, data: [] } }));
        ws.close(1000);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

function send(ws: WebSocket, text: string): void {
  if (ws.readyState === ws.OPEN) ws.send(text);
}
