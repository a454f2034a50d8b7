import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { BROWSER_SESSION_RPC } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { refuseUpgrade, spliceToReplica } from './replica-splice';

/** What an upgrade on a session's WebSocket route names. */
export interface SessionUpgrade {
  sessionId: string;
  token: string;
  /** The rest of the route, where the socket needs it (the cdpUrl's devtools path). */
  rest?: string;
}

/**
 * A WebSocket route of a browser session (the cdpUrl, a live view): an upgrade whose path `match`es
 * is resolved for `purpose` (the token must be one the active session gives that purpose) and then
 * spliced to the owning replica's `route`, which checks the token again; anything else gets a 404.
 */
export abstract class SessionSocket implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly open = new Set<Duplex>();
  protected abstract readonly purpose: 'cdp' | 'live';

  protected constructor(
    private readonly adapter: HttpAdapterHost,
    protected readonly messaging: Messaging,
    private readonly logger: Logger,
  ) {}

  /** The session and token an upgrade path names, or undefined when the path is not this socket's. */
  protected abstract match(url: string): SessionUpgrade | undefined;

  /** The path on the replica and extra header lines for it. */
  protected abstract route(
    req: IncomingMessage,
    upgrade: SessionUpgrade,
  ): { path: string; headers?: string[] };

  /**
   * The session endpoint of the replica the upgrade goes to, or undefined (then a 404): by default
   * the active session's, when the token is one it gives `purpose`.
   */
  protected async resolve({ sessionId, token }: SessionUpgrade): Promise<URL | undefined> {
    const reply = await this.messaging.request(BROWSER_SESSION_RPC.resolve, {
      sessionId,
      token,
      purpose: this.purpose,
    });
    return new URL(reply.endpoint);
  }

  onApplicationBootstrap(): void {
    const server = this.adapter.httpAdapter.getHttpServer() as import('node:http').Server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const upgrade = this.match(req.url ?? '');
      if (upgrade) void this.splice(req, socket, head, upgrade);
    });
  }

  onApplicationShutdown(): void {
    for (const s of this.open) s.destroy();
  }

  private async splice(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    upgrade: SessionUpgrade,
  ): Promise<void> {
    socket.on('error', () => socket.destroy());
    const endpoint = await this.resolve(upgrade).catch(() => undefined);
    if (!endpoint) {
      refuseUpgrade(socket);
      return;
    }
    spliceToReplica({
      req,
      socket,
      head,
      endpoint,
      ...this.route(req, upgrade),
      open: this.open,
      logger: this.logger,
      sessionId: upgrade.sessionId,
    });
  }
}
