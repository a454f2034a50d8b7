import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { BROWSER_SESSION_RPC } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { refuseUpgrade, spliceToReplica } from './replica-splice';
import { wsBase } from './session-urls';

/** `/v2/browser/<id>/cdp/<token>[/devtools/...]` */
const PATH =
  /^\/v2\/(?:browser|interact)\/([0-9a-f-]{36})\/cdp\/([A-Za-z0-9_-]{20,100})(\/devtools\/(?:browser|page\/[\w-]+)(?:\/[\w-]+)?)?\/?(?:\?.*)?$/i;
/**
 * The cdpUrl of a session: the WebSocket is checked (the token must be the active session's) and then
 * spliced, byte for byte, to the session endpoint of the replica that holds the browser, which checks
 * the token again and relays CDP to the session's Chromium under the platform's rules.
 */
@Injectable()
export class CdpProxySocket implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly open = new Set<Duplex>();

  constructor(
    private readonly adapter: HttpAdapterHost,
    private readonly messaging: Messaging,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapter.httpAdapter.getHttpServer() as import('node:http').Server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const m = PATH.exec(req.url ?? '');
      if (!m) return;
      void this.splice(req, socket, head, m[1], m[2], m[3] ?? '/devtools/browser');
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
    devtools: string,
  ): Promise<void> {
    socket.on('error', () => socket.destroy());
    let endpoint: URL;
    try {
      endpoint = new URL(
        (await this.messaging.request(BROWSER_SESSION_RPC.resolve, { sessionId, token, purpose: 'cdp' }))
          .endpoint,
      );
    } catch {
      refuseUpgrade(socket);
      return;
    }
    const host = req.headers.host ?? '127.0.0.1';
    const base =
      this.config.WDS_PUBLIC_BASE_URL?.replace(/\/+$/, '') ??
      `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${host}`;
    spliceToReplica({
      req,
      socket,
      head,
      endpoint,
      path: `/sessions/${sessionId}/${token}${devtools}`,
      headers: [`x-wds-public-ws-base: ${wsBase(base)}/v2/browser/${sessionId}/cdp/${token}`],
      open: this.open,
      logger: this.logger,
      sessionId,
    });
  }
}
