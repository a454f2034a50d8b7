import net from 'node:net';
import tls from 'node:tls';
import { redactProxyUrl } from '@wds/outbound';

/** How long an upstream proxy gets to connect and answer a CONNECT. */
const TUNNEL_TIMEOUT_MS = 15_000;

/**
 * Opens a CONNECT tunnel to `host:port` through an HTTP(S) proxy (`http(s)://[user:pass@]host:port`,
 * the form of WDS_PROXY_BASIC / WDS_PROXY_ENHANCED), as the fetch engine's proxy agent does. The
 * destination was already vetted by the network policy; the proxy resolves its name itself.
 */
export function openTunnel(proxyUrl: string, host: string, port: number): Promise<net.Socket> {
  const proxy = new URL(proxyUrl);
  const proxyPort = Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
  const hostname = proxy.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket: net.Socket =
      proxy.protocol === 'https:'
        ? tls.connect({
            host: hostname,
            port: proxyPort,
            servername: net.isIP(hostname) ? undefined : hostname,
          })
        : net.connect(proxyPort, hostname);
    let head = Buffer.alloc(0);
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(`upstream proxy ${redactProxyUrl(proxyUrl)}: ${why}`));
    };
    socket.setTimeout(TUNNEL_TIMEOUT_MS, () => fail('timed out'));
    // Stays for the socket's life: a later error ends the tunnel instead of the process.
    socket.on('error', (err) => fail(err.message));
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      const target = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
      const auth = proxy.username
        ? `Proxy-Authorization: Basic ${Buffer.from(
            `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`,
          ).toString('base64')}\r\n`
        : '';
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
    });
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 16_384) fail('oversized CONNECT answer');
        return;
      }
      socket.off('data', onData);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1];
      if (status !== '200') {
        fail(`CONNECT answered ${status ?? 'garbage'}`);
        return;
      }
      socket.setTimeout(0);
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on('data', onData);
  });
}
