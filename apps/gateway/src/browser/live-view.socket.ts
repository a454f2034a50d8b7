import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { SessionSocket, type SessionUpgrade } from './session-socket';

/** `/v2/browser/<id>/live/<viewToken>/ws` (and under `/v2/interact`). */
const PATH = /^\/v2\/(?:browser|interact)\/([0-9a-f-]{36})\/live\/([A-Za-z0-9_-]{43})\/ws\/?(?:\?.*)?$/i;

/**
 * The screencast WebSocket of a live view: the view token is checked (it must be one of the active
 * session's view tokens — the CDP token is not one) and the socket is spliced to the owning replica,
 * which checks it again and decides from it whether input is forwarded.
 */
@Injectable()
export class LiveViewSocket extends SessionSocket {
  protected readonly purpose = 'live';

  constructor(adapter: HttpAdapterHost, messaging: Messaging, @Inject(LOGGER) logger: Logger) {
    super(adapter, messaging, logger);
  }

  protected match(url: string): SessionUpgrade | undefined {
    const m = PATH.exec(url);
    return m ? { sessionId: m[1].toLowerCase(), token: m[2] } : undefined;
  }

  protected route(_req: unknown, { sessionId, token }: SessionUpgrade) {
    return { path: `/sessions/${sessionId}/live/${token}` };
  }
}
