import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { BROWSER_SESSION_RPC } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { wsBase } from './session-urls';

/** `/v2/browser/<id>/cdp/<token>[/devtools/...]` */
const PATH =
  /^\/v2\/(?:browser|interact)\/([0-9a-f-]{36})\/cdp\/([A-Za-z0-9_-]{20,100})(\/devtools\/(?:browser|page\/[\w-]+)(?:\/[\w-]+)?)?\/?(?:\?.*)?$/i;
/** Request headers passed on to the replica (the WebSocket handshake and nothing that identifies the caller). */
const FORWARDED = new Set([
  'upgrade',
  'connection',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
  'user-agent',
]);

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
        (await this.messaging.request(BROWSER_SESSION_RPC.resolve, { sessionId, token })).endpoint,
      );
    } catch {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = net.connect(Number(endpoint.port), endpoint.hostname);
    this.open.add(socket);
    this.open.add(upstream);
    const end = () => {
      this.open.delete(socket);
      this.open.delete(upstream);
      socket.destroy();
      upstream.destroy();
    };
    upstream.on('error', (err) => {
      this.logger.warn({ err, sessionId }, 'session endpoint unreachable');
      end();
    });
    upstream.on('close', end);
    socket.on('close', end);
    upstream.on('connect', () => {
      const host = req.headers.host ?? '127.0.0.1';
      const base =
        this.config.WDS_PUBLIC_BASE_URL?.replace(/\/+$/, '') ??
        `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${host}`;
      const lines = [`GET /sessions/${sessionId}/${token}${devtools} HTTP/1.1`, `Host: ${endpoint.host}`];
      for (const [k, v] of Object.entries(req.headers)) {
        if (FORWARDED.has(k) && typeof v === 'string') lines.push(`${k}: ${v}`);
      }
      lines.push(`x-wds-public-ws-base: ${wsBase(base)}/v2/browser/${sessionId}/cdp/${token}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
  }
}
