import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { agentViewRpc, sameToken, type AgentViewReply } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { Page } from 'playwright-core';
import { LiveViews } from '../sessions/live-view';

/** A running agent's live view: its screencast viewers and the token that opens it. */
interface AgentView {
  token: string;
  views: LiveViews;
  page: Page;
}

/** Serves a run's view subject while it lasts; the returned function stops serving it. */
export type ViewServer = (jobId: string, describe: () => AgentViewReply | undefined) => () => void;

/** The view subject of a run on NATS (agentViewRpc): the gateway asks it for the trace's liveViewUrl. */
export function natsViewServer(messaging: Messaging): ViewServer {
  return (jobId, describe) =>
    messaging.serve(agentViewRpc(jobId), async () => {
      const view = describe();
      if (!view) throw new Error('no live view');
      return view;
    });
}

/**
 * Live views of the agent runs in progress on this replica (GET /v2/agent/{id}/trace?liveView=true
 * names them): view only (the agent drives the page; a viewer's input would race it), the same
 * screencast as a browser session's view, on the replica's session endpoint
 * (`/agents/<jobId>/live/<token>`, which the gateway splices a viewer to). A run's view opens with
 * its page and closes with it; its token is random per run.
 */
export class AgentViews {
  private readonly open = new Map<string, AgentView>();
  /** The session endpoint's URL as the gateway reaches it, once it listens (SessionsServer sets it). */
  endpoint: string | undefined;

  constructor(
    private readonly serve: ViewServer,
    private readonly logger: Logger,
  ) {}

  /** Opens the view of `jobId`'s run on `page`; the returned function closes it. */
  show(jobId: string, page: Page): () => void {
    const view: AgentView = {
      token: randomBytes(32).toString('base64url'),
      page,
      views: new LiveViews(
        async () => page,
        () => undefined,
        undefined,
        (err) => this.logger.warn({ err, jobId }, 'an agent live view could not be shown'),
      ),
    };
    this.open.get(jobId)?.views.close();
    this.open.set(jobId, view);
    const stopServing = this.serve(jobId, () => this.describe(jobId));
    return () => {
      stopServing();
      view.views.close();
      if (this.open.get(jobId) === view) this.open.delete(jobId);
    };
  }

  /** What the view subject answers: where and with which token the run's view opens. */
  describe(jobId: string): AgentViewReply | undefined {
    const view = this.open.get(jobId);
    if (!view || !this.endpoint) return undefined;
    const size = view.page.viewportSize() ?? { width: 1280, height: 800 };
    return { endpoint: this.endpoint, token: view.token, viewport: size };
  }

  /** A viewer's WebSocket (`/agents/<jobId>/live/<token>` on the session endpoint); 404 otherwise. */
  upgrade(jobId: string, token: string, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const view = this.open.get(jobId);
    if (!view || !sameToken(view.token, token)) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    view.views.upgrade(req, socket, head, 'view');
  }

  get count(): number {
    return this.open.size;
  }
}
