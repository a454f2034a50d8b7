import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { wsBase } from './session-urls';
import { SessionSocket, type SessionUpgrade } from './session-socket';

/** `/v2/browser/<id>/cdp/<token>[/devtools/...]` */
const PATH =
  /^\/v2\/(?:browser|interact)\/([0-9a-f-]{36})\/cdp\/([A-Za-z0-9_-]{20,100})(\/devtools\/(?:browser|page\/[\w-]+)(?:\/[\w-]+)?)?\/?(?:\?.*)?$/i;
/**
 * The cdpUrl of a session: the WebSocket is checked (the token must be the active session's) and then
 * spliced, byte for byte, to the session endpoint of the replica that holds the browser, which checks
 * the token again and relays CDP to the session's Chromium under the platform's rules.
 */
@Injectable()
export class CdpProxySocket extends SessionSocket {
  protected readonly purpose = 'cdp';

  constructor(
    adapter: HttpAdapterHost,
    messaging: Messaging,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(adapter, messaging, logger);
  }

  protected match(url: string): SessionUpgrade | undefined {
    const m = PATH.exec(url);
    return m ? { sessionId: m[1], token: m[2], rest: m[3] ?? '/devtools/browser' } : undefined;
  }

  protected route(req: IncomingMessage, { sessionId, token, rest }: SessionUpgrade) {
    const host = req.headers.host ?? '127.0.0.1';
    const base =
      this.config.WDS_PUBLIC_BASE_URL?.replace(/\/+$/, '') ??
      `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${host}`;
    return {
      path: `/sessions/${sessionId}/${token}${rest}`,
      headers: [`x-wds-public-ws-base: ${wsBase(base)}/v2/browser/${sessionId}/cdp/${token}`],
    };
  }
}
