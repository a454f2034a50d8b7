import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '@wds/observability';

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

export interface ReplicaSplice {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  /** http://host:port of the owning replica's session endpoint. */
  endpoint: URL;
  /** Request path on the replica (it checks the token in it again). */
  path: string;
  /** Extra `name: value` header lines for the replica. */
  headers?: string[];
  /** Sockets open now (closed on shutdown). */
  open: Set<Duplex>;
  logger: Logger;
  sessionId: string;
}

/** The refusal written to a client whose upgrade names no active session/token. */
export function refuseUpgrade(socket: Duplex): void {
  socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
}

/**
 * Splices an upgrade request, byte for byte, to a path on the replica that holds the session: the
 * handshake is re-sent with only the WebSocket headers, then both sockets are piped. Used by the
 * cdpUrl proxy and the live views.
 */
export function spliceToReplica(s: ReplicaSplice): void {
  const { req, socket, head, endpoint, open } = s;
  const upstream = net.connect(Number(endpoint.port), endpoint.hostname);
  open.add(socket);
  open.add(upstream);
  const end = () => {
    open.delete(socket);
    open.delete(upstream);
    socket.destroy();
    upstream.destroy();
  };
  upstream.on('error', (err) => {
    s.logger.warn({ err, sessionId: s.sessionId }, 'session endpoint unreachable');
    end();
  });
  upstream.on('close', end);
  socket.on('close', end);
  upstream.on('connect', () => {
    const lines = [`GET ${s.path} HTTP/1.1`, `Host: ${endpoint.host}`];
    for (const [k, v] of Object.entries(req.headers)) {
      if (FORWARDED.has(k) && typeof v === 'string') lines.push(`${k}: ${v}`);
    }
    lines.push(...(s.headers ?? []));
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    socket.pipe(upstream).pipe(socket);
  });
}
