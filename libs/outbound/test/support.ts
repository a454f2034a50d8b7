import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '@wds/contracts';

export interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface TestServer {
  port: number;
  /** `http(s)://127.0.0.1:<port>` */
  origin: string;
  hits: Hit[];
  /** TCP connections accepted so far (a refused destination must not even connect). */
  readonly connections: number;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, hit: Hit) => void;

async function listen(server: http.Server, scheme: string, hits: Hit[]): Promise<TestServer> {
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    origin: `${scheme}://127.0.0.1:${port}`,
    hits,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function recording(handler: Handler, hits: Hit[]): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      hits.push(hit);
      handler(req, res, hit);
    });
  };
}

/** An HTTP server on 127.0.0.1 that records every request it receives. */
export function startServer(handler: Handler): Promise<TestServer> {
  const hits: Hit[] = [];
  return listen(http.createServer(recording(handler, hits)), 'http', hits);
}

/** A self-signed certificate for 127.0.0.1/localhost made with the openssl CLI (Node cannot issue X.509). */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbound-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    return {
      key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function startTlsServer(tls: { key: string; cert: string }, handler: Handler): Promise<TestServer> {
  const hits: Hit[] = [];
  return listen(https.createServer(tls, recording(handler, hits)), 'https', hits);
}

export interface TestProxy extends TestServer {
  /** `host:port` of every CONNECT tunnel opened. */
  connects: string[];
  /** Proxy-Authorization header of every request or CONNECT. */
  auth: (string | undefined)[];
}

/** A minimal forward proxy: absolute-form requests are relayed, CONNECT opens a TCP tunnel. */
export async function startProxy(): Promise<TestProxy> {
  const connects: string[] = [];
  const auth: (string | undefined)[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    auth.push(req.headers['proxy-authorization']);
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = http.request(target, { method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    auth.push(req.headers['proxy-authorization']);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream).add(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const base = await listen(server, 'http', []);
  return {
    port: base.port,
    origin: base.origin,
    hits: base.hits,
    get connections() {
      return base.connections;
    },
    connects,
    auth,
    close: async () => {
      for (const s of sockets) s.destroy();
      await base.close();
    },
  };
}

/** A port nothing listens on (bound then released). */
export async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Awaits a promise expected to reject with a ServiceError and returns that error. */
export async function serviceFailure(p: Promise<unknown>): Promise<ServiceError> {
  const outcome = await p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok)
    throw new Error(`expected a ServiceError, got a result: ${JSON.stringify(outcome.value).slice(0, 200)}`);
  expect(outcome.error).toBeInstanceOf(ServiceError);
  return outcome.error as ServiceError;
}
