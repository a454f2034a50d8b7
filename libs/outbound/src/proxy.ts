/** Hides the password of a proxy URL so it can appear in errors and logs. */
export function redactProxyUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/**
 * Parses a `WDS_PROXY_BASIC` / `WDS_PROXY_ENHANCED` comma list of `http(s)://[user:pass@]host:port`
 * URLs. Blank entries are skipped; a malformed one throws, naming it without its password.
 */
export function parseProxyList(value?: string): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry) => {
      let url: URL;
      try {
        url = new URL(entry);
      } catch {
        throw new Error(`invalid proxy URL "${redactProxyUrl(entry)}"`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new Error(
          `unsupported proxy scheme ${url.protocol} in "${redactProxyUrl(entry)}" (http or https)`,
        );
      }
      if (!url.hostname) throw new Error(`proxy URL has no host: "${redactProxyUrl(entry)}"`);
      if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
        throw new Error(`proxy URL must not have a path or query: "${redactProxyUrl(entry)}"`);
      }
      return entry;
    });
}

/** Round-robin over a fixed list of proxy URLs. */
export class ProxyPool {
  private readonly urls: readonly string[];
  private index = 0;

  constructor(urls: readonly string[]) {
    this.urls = [...urls];
  }

  get size(): number {
    return this.urls.length;
  }

  /** The next proxy URL, or undefined when the pool is empty. */
  next(): string | undefined {
    if (this.urls.length === 0) return undefined;
    const url = this.urls[this.index % this.urls.length];
    this.index = (this.index + 1) % this.urls.length;
    return url;
  }
}
