/**
 * The navigation policy of a run, enforced in code before any navigation the model asks for: http(s)
 * only, no credentials in the URL, and (when the caller names them) only the allowed hosts and their
 * subdomains. The browser's network policy (private destinations refused on every request) applies
 * underneath whatever this allows.
 */
export interface NavigationPolicy {
  /** Hosts the agent may navigate to (and their subdomains); undefined = any public http(s) host. */
  allowedDomains?: readonly string[];
}

export type PolicyDecision = { ok: true; url: string } | { ok: false; reason: string };

function normaliseDomain(d: string): string {
  return d.trim().toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
}

/** Whether `host` is one of `domains` or a subdomain of one. */
export function hostAllowed(host: string, domains: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return domains.some((raw) => {
    const d = normaliseDomain(raw);
    return d.length > 0 && (h === d || h.endsWith(`.${d}`));
  });
}

/** Resolves `target` against the current page and checks it; the URL to open, or why not. */
export function checkNavigation(
  target: string,
  currentUrl: string,
  policy: NavigationPolicy,
): PolicyDecision {
  let url: URL;
  try {
    const base = /^https?:/i.test(currentUrl) ? currentUrl : undefined;
    url = base ? new URL(target, base) : new URL(target);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `the ${url.protocol} scheme is not allowed (http and https only)` };
  if (url.username || url.password) return { ok: false, reason: 'URLs with credentials are not allowed' };
  if (policy.allowedDomains && !hostAllowed(url.hostname, policy.allowedDomains))
    return { ok: false, reason: `${url.hostname} is outside the allowed domains of this run` };
  return { ok: true, url: url.href };
}

/** The hosts of the start URLs: a sensible policy for a run that should stay on its sites. */
export function domainsOf(urls: readonly string[]): string[] {
  const out = new Set<string>();
  for (const u of urls) {
    try {
      out.add(new URL(u).hostname.toLowerCase().replace(/^www\./, ''));
    } catch {
      // not a URL: contributes nothing
    }
  }
  return [...out];
}
