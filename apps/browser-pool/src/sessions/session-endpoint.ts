import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentViews } from '../agent/agent-views';
import type { SessionManager } from './session-manager';

const PATH = /^\/sessions\/([0-9a-f-]{36})\/([A-Za-z0-9_-]{20,100})(\/.*)?$/;
/** `/sessions/<id>/live/<viewToken>`: a live view's screencast WebSocket. */
const LIVE = /^\/sessions\/([0-9a-f-]{36})\/live\/([A-Za-z0-9_-]{43})$/;
/** `/agents/<jobId>/live/<viewToken>`: a running agent's live view (AgentViews). */
const AGENT_LIVE = /^\/agents\/([0-9a-f-]{36})\/live\/([A-Za-z0-9_-]{43})$/;

/**
 * The replica's internal HTTP/WebSocket endpoint for session traffic the gateway forwards (cdpUrl):
 * `/sessions/<id>/<token>/json/version` and `/sessions/<id>/<token>/devtools/...`. The token is
 * checked here too, so reaching this port is not enough to drive a session. Live views:
 * `/sessions/<id>/live/<viewToken>` (WebSocket), checked against the tokens derived from the session's.
 */
export class SessionEndpoint {
  private server?: http.Server;

  constructor(
    private readonly sessions: SessionManager,
    private readonly host: string,
    private readonly port: number,
    /** Running agents' live views, when the agent runs of this replica have them. */
    private readonly agentViews?: AgentViews,
  ) {}

  async start(): Promise<number> {
    const server = http.createServer((req, res) => {
      const m = PATH.exec((req.url ?? '').split('?')[0]);
      const session = m ? this.sessions.withToken(m[1], m[2]) : undefined;
      if (!m || !session) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('unknown session');
        return;
      }
      const base = forwardedBase(req) ?? `ws://${req.headers.host}/sessions/${m[1]}/${m[2]}`;
      session.relay.answerHttp(req, res, base);
    });
    server.on('upgrade', (req, socket, head: Buffer) => {
      const agent = AGENT_LIVE.exec((req.url ?? '').split('?')[0]);
      if (agent) {
        if (this.agentViews) this.agentViews.upgrade(agent[1], agent[2], req, socket, head);
        else socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      const live = LIVE.exec((req.url ?? '').split('?')[0]);
      if (live) {
        const view = this.sessions.withViewToken(live[1], live[2]);
        if (!view) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        else view.session.views.upgrade(req, socket, head, view.mode);
        return;
      }
      const m = PATH.exec((req.url ?? '').split('?')[0]);
      const session = m ? this.sessions.withToken(m[1], m[2]) : undefined;
      if (!m || !session) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      session.relay.upgrade(req, socket, head, m[3] ?? '/devtools/browser');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => resolve());
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }
}

/** The public ws base the gateway passes along, so /json/version names the public URL. */
function forwardedBase(req: http.IncomingMessage): string | undefined {
  const v = req.headers['x-wds-public-ws-base'];
  return typeof v === 'string' && /^wss?:\/\//.test(v) ? v : undefined;
}
