import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { BROWSER_SESSION_RPC } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { refuseUpgrade, spliceToReplica } from './replica-splice';

/** `/v2/browser/<id>/live/<viewToken>/ws` (and under `/v2/interact`). */
const PATH = /^\/v2\/(?:browser|interact)\/([0-9a-f-]{36})\/live\/([A-Za-z0-9_-]{43})\/ws\/?(?:\?.*)?$/i;

/**
 * The screencast WebSocket of a live view: the view token is checked (it must be one of the active
 * session's view tokens — the CDP token is not one) and the socket is spliced to the owning replica,
 * which checks it again and decides from it whether input is forwarded.
 */
@Injectable()
export class LiveViewSocket implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly open = new Set<Duplex>();

  constructor(
    private readonly adapter: HttpAdapterHost,
    private readonly messaging: Messaging,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapter.httpAdapter.getHttpServer() as import('node:http').Server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const m = PATH.exec(req.url ?? '');
      if (m) void this.splice(req, socket, head, m[1].toLowerCase(), m[2]);
    });
  }

  onApplicationShutdown(): void {
    for (const s of this.open) s.destroy();
  }

  private async splice(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    sessionId: string,
    token: string,
  ): Promise<void> {
    socket.on('error', () => socket.destroy());
    let endpoint: URL;
    try {
      const reply = await this.messaging.request(BROWSER_SESSION_RPC.resolve, {
        sessionId,
        token,
        purpose: 'live',
      });
      endpoint = new URL(reply.endpoint);
    } catch {
      refuseUpgrade(socket);
      return;
    }
    spliceToReplica({
      req,
      socket,
      head,
      endpoint,
      path: `/sessions/${sessionId}/live/${token}`,
      open: this.open,
      logger: this.logger,
      sessionId,
    });
  }
}
