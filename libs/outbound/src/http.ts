import net from 'node:net';
import { Agent, ProxyAgent, buildConnector, type Dispatcher } from 'undici';
import { headerProblem, ServiceError } from '@wds/contracts';
import { isTextual, sniffCharset } from './charset';
import { decodeContent } from './decompress';
import { upstreamFailed } from './errors';
import { exchange, RequestAbort } from './exchange';
import type { NetworkPolicy, ResolvedTarget } from './policy';

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** End to end: DNS, connect, headers and body, across every redirect hop. */
  timeoutMs: number;
  /** Default 10. */
  maxRedirects?: number;
  /** Cap on the (decompressed) body; default 20 MiB. */
  maxBytes?: number;
  /** Default false (verify). The scrape API's default of true is applied by the caller. */
  skipTlsVerification?: boolean;
  /** `http(s)://[user:pass@]host:port` of an HTTP proxy (CONNECT tunnel to the target). */
  proxyUrl?: string;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** Decoded from gzip/deflate/br Content-Encoding (then content-encoding/-length are dropped from headers). */
  body: Buffer;
  /** The Content-Type header as sent. */
  contentType?: string;
  /** Charset to decode `body` with (see decodeBody); only for textual or untyped bodies. */
  charset?: string;
  /** Every redirect target in order (empty without redirects); the last one equals `url`. */
  redirects: string[];
  timings: { totalMs: number };
}

export interface OutboundHttpOptions {
  policy: NetworkPolicy;
  /** Sent when the request has no User-Agent header. */
  userAgent?: string;
  /** Max sockets per origin and dispatcher. */
  connections?: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_REDIRECTS = 10;
const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 15_000;
export const DEFAULT_USER_AGENT = 'WebDataService/1.0 (+https://github.com/wds)';
/** Credentials meant for one origin are not forwarded to another one a redirect points at. */
const CROSS_ORIGIN_STRIPPED = ['authorization', 'cookie', 'proxy-authorization'];

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k.toLowerCase())));
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

function abortable<T>(promise: Promise<T>, abort: RequestAbort): Promise<T> {
  return Promise.race([promise, abort.whenAborted]);
}

interface Hop {
  url: string;
  method: 'GET' | 'HEAD' | 'POST';
  headers: Record<string, string>;
  body?: string | Buffer;
}

/**
 * The one HTTP client for requests made on a user's behalf. The network policy is applied before
 * each hop (so redirects are vetted) and again when the socket connects (so a DNS answer that
 * changes between check and connect cannot reach a blocked address).
 */
export class OutboundHttp {
  private readonly policy: NetworkPolicy;
  private readonly userAgent: string;
  private readonly connections?: number;
  private readonly dispatchers = new Map<string, Dispatcher>();
  private closed = false;

  constructor(opts: OutboundHttpOptions) {
    this.policy = opts.policy;
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.connections = opts.connections;
  }

  async request(req: OutboundRequest): Promise<OutboundResponse> {
    if (this.closed) throw new ServiceError('SERVICE_UNAVAILABLE', 'outbound HTTP client is closed');
    // An invalid header makes undici fail the request inside its client and leaves that client
    // unusable (requests to the origin then queue forever): refused before anything is dispatched.
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      const problem = headerProblem(name, value);
      if (problem !== null) throw new ServiceError('BAD_REQUEST', problem);
    }
    const started = performance.now();
    const abort = new RequestAbort();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new Error('outbound request deadline reached'));
    }, req.timeoutMs);
    const onCallerAbort = () => abort.abort(req.signal?.reason);
    if (req.signal?.aborted) onCallerAbort();
    else req.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const state = { host: safeHost(req.url) };
    try {
      const res = await this.follow(req, abort, state);
      return { ...res, timings: { totalMs: Math.round(performance.now() - started) } };
    } catch (err) {
      if (timedOut) {
        throw new ServiceError(
          'SCRAPE_TIMEOUT',
          `request to ${state.host} timed out after ${req.timeoutMs} ms`,
          {
            host: state.host,
            timeoutMs: req.timeoutMs,
          },
        );
      }
      if (req.signal?.aborted) throw req.signal.reason ?? err;
      throw err;
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.dispatchers.values()];
    this.dispatchers.clear();
    await Promise.all(all.map((d) => d.close()));
  }

  private async follow(
    req: OutboundRequest,
    abort: RequestAbort,
    state: { host: string },
  ): Promise<Omit<OutboundResponse, 'timings'>> {
    const maxRedirects = req.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
    const viaProxy = req.proxyUrl !== undefined;
    const dispatcher = this.dispatcher(req.skipTlsVerification === true, req.proxyUrl);
    const redirects: string[] = [];
    let hop: Hop = {
      url: req.url,
      method: req.method ?? 'GET',
      headers: this.initialHeaders(req.headers ?? {}),
      body: req.body,
    };
    for (;;) {
      const target = await abortable(this.policy.checkUrl(hop.url), abort);
      state.host = target.host;
      const res = await exchange(
        dispatcher,
        {
          url: target.url,
          host: target.host,
          method: hop.method,
          headers: hop.headers,
          body: hop.body,
          maxBytes,
          viaProxy,
          isRedirect: (status, headers) => REDIRECT_STATUSES.has(status) && Boolean(headers.location),
        },
        abort,
      );
      const headers = res.headers;
      if (REDIRECT_STATUSES.has(res.status) && headers.location) {
        if (redirects.length >= maxRedirects) {
          throw upstreamFailed(
            'too_many_redirects',
            `too many redirects (more than ${maxRedirects}) from ${req.url}`,
            {
              redirects,
            },
          );
        }
        hop = nextHop(hop, res.status, headers.location, target);
        redirects.push(hop.url);
        continue;
      }
      const raw = res.body;
      const decoded = await abortable(
        decodeContent(raw, headers['content-encoding'], maxBytes, target.host),
        abort,
      );
      if (decoded) {
        delete headers['content-encoding'];
        delete headers['content-length'];
      }
      const body = decoded ?? raw;
      const contentType = headers['content-type'];
      return {
        url: target.url.href,
        status: res.status,
        headers,
        body,
        contentType,
        charset: isTextual(contentType) && body.length > 0 ? sniffCharset(body, contentType) : undefined,
        redirects,
      };
    }
  }

  private initialHeaders(user: Record<string, string>): Record<string, string> {
    const headers = { ...user };
    if (!hasHeader(headers, 'user-agent')) headers['user-agent'] = this.userAgent;
    if (!hasHeader(headers, 'accept-encoding')) headers['accept-encoding'] = 'gzip, deflate, br';
    return headers;
  }

  /** One keep-alive dispatcher per TLS mode and proxy, created on first use. */
  private dispatcher(skipTls: boolean, proxyUrl: string | undefined): Dispatcher {
    const key = `${skipTls ? 'insecure' : 'verify'}|${proxyUrl ?? ''}`;
    let dispatcher = this.dispatchers.get(key);
    if (!dispatcher) {
      dispatcher = proxyUrl
        ? new ProxyAgent({
            uri: proxyUrl,
            requestTls: { rejectUnauthorized: !skipTls },
            connections: this.connections,
            headersTimeout: 0,
            bodyTimeout: 0,
          })
        : new Agent({
            connections: this.connections,
            connect: this.policyConnector(!skipTls),
            headersTimeout: 0,
            bodyTimeout: 0,
          });
      this.dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  }

  /**
   * Connects only to vetted addresses: names go through the policy's lookup for the socket's port
   * (lookup is not called for literal IPs, so those are checked here).
   */
  private policyConnector(verifyTls: boolean): buildConnector.connector {
    const byPort = new Map<number, buildConnector.connector>();
    return (opts, callback) => {
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      let connect = byPort.get(port);
      if (!connect) {
        connect = buildConnector({
          rejectUnauthorized: verifyTls,
          lookup: this.policy.lookupFor(port),
          timeout: CONNECT_TIMEOUT_MS,
        } as buildConnector.BuildOptions);
        byPort.set(port, connect);
      }
      const chosen = connect;
      if (net.isIP(opts.hostname)) {
        this.policy.vet(opts.hostname, port).then(
          () => chosen(opts, callback),
          (err: Error) => callback(err, null),
        );
        return;
      }
      chosen(opts, callback);
    };
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url.slice(0, 100);
  }
}

/** Location resolution and the method/body rules of the Fetch standard for 301/302/303/307/308. */
function nextHop(prev: Hop, status: number, location: string, from: ResolvedTarget): Hop {
  let next: URL;
  try {
    next = new URL(location, from.url);
  } catch {
    throw upstreamFailed('bad_redirect', `invalid redirect location from ${from.host}`, { location });
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw upstreamFailed(
      'bad_redirect',
      `redirect from ${from.host} to unsupported scheme ${next.protocol}`,
      {
        location: next.href.slice(0, 200),
      },
    );
  }
  let { method, body, headers } = prev;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    headers = withoutHeaders(headers, [
      'content-type',
      'content-length',
      'content-encoding',
      'content-language',
    ]);
  }
  if (next.origin !== from.url.origin) headers = withoutHeaders(headers, CROSS_ORIGIN_STRIPPED);
  return { url: next.href, method, body, headers };
}
