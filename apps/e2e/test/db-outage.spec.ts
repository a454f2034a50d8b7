import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startPostgres, type RunningServer } from '@wds/local-infra';
import { startFixtureSite, type FixtureSite } from '@wds/testing';
import { callApi } from './support/http';
import { startE2eStack, type E2eStack, type StackProcess } from './support/stack-process';

// A PostgreSQL outage seen from the API: the stack runs on a PostgreSQL server the test owns
// (DATABASE_URL, so npm start does not restart it), the test stops it, and every route of the
// OpenAPI document is called. Each answers 503 with Retry-After in the error envelope, or an answer
// that needs no database (a 4xx for a bad request, 501 for what is not built), never a 500. Then
// PostgreSQL comes back on the same port and the same calls work again without any restart.

const READY_TIMEOUT_MS = 120_000;
const KEY = `e2e-dbout-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;

interface Answer {
  route: string;
  status: number;
  retryAfter: string | null;
  body: any;
}

describe('every endpoint during a PostgreSQL outage', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: FixtureSite;
  let pg: RunningServer | undefined;
  let pgDir: string;
  let pgPort: number;

  beforeAll(async () => {
    site = await startFixtureSite();
    pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-e2e-dbout-pg-'));
    pgPort = await freePort();
    pg = await startPostgres({ dataDir: path.join(pgDir, 'data'), port: pgPort });
    e2e = await startE2eStack({
      name: 'dbout',
      port: await freePort(),
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: {
        WDS_BOOTSTRAP_API_KEY: KEY,
        WDS_ADMIN_TOKEN: ADMIN_TOKEN,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port}`,
        DATABASE_URL: pg.url,
      },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await e2e?.stop();
    await pg?.stop();
    await site?.close();
    fs.rmSync(pgDir, { recursive: true, force: true });
  }, 60_000);

  async function call(method: string, route: string, body?: unknown, key = KEY): Promise<Answer> {
    const res = await fetch(`${stack.url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // kept as text: the assertion shows it
    }
    return {
      route: `${method} ${route}`,
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: parsed,
    };
  }

  it('answers 503 with Retry-After (never 500) on every route while PostgreSQL is down, and recovers', async () => {
    // Jobs to look up during the outage.
    const scrape = await callApi(stack.url, 'POST', '/v2/scrape', {
      key: KEY,
      body: { url: `${site.url}/article` },
    });
    expect(scrape.status).toBe(200);
    const crawl = await callApi(stack.url, 'POST', '/v2/crawl', {
      key: KEY,
      body: { url: `${site.url}/docs`, limit: 2, sitemap: 'skip' },
    });
    expect(crawl.status).toBe(200);
    const batch = await callApi(stack.url, 'POST', '/v2/batch/scrape', {
      key: KEY,
      body: { urls: [`${site.url}/meta`] },
    });
    expect(batch.status).toBe(200);
    const scrapeId = scrape.body.data.metadata.scrapeId ?? scrape.body.data.metadata.jobId;

    const doc = (await callApi(stack.url, 'GET', '/v2/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const ids: Record<string, string> = {
      '{id}': crawl.body.id,
      '{jobId}': scrapeId ?? crawl.body.id,
      '{sessionId}': crawl.body.id,
      '{teamId}': stack.team ?? 'unknown',
      '{prefix}': 'abcdefabcdef',
    };
    const bodies: Record<string, unknown> = {
      'POST /v2/scrape': { url: `${site.url}/docs`, maxAge: 0 },
      'POST /v2/crawl': { url: `${site.url}/docs`, limit: 2 },
      'POST /v2/crawl/params-preview': { url: `${site.url}/docs`, prompt: 'docs pages' },
      'POST /v2/map': { url: site.url },
      'POST /v2/batch/scrape': { urls: [`${site.url}/docs`] },
      'POST /v2/support/docs-search': { query: 'crawl' },
      'POST /admin/v1/teams': { name: 'outage', credits: 10 },
      'POST /admin/v1/teams/{teamId}/api-keys': {},
      'POST /admin/v1/teams/{teamId}/credits': { amount: 10, reason: 'outage' },
      'PUT /admin/v1/teams/{teamId}/limits': { maxConcurrency: 4 },
      'PUT /admin/v1/teams/{teamId}/features': { enterprise: false, zeroDataRetention: false },
      'PUT /admin/v1/teams/{teamId}/webhook-secret': { secret: 'whsec-outage-0123456789abcdef' },
    };
    const calls: Array<{ method: string; template: string; route: string; admin: boolean }> = [];
    for (const [template, ops] of Object.entries(doc.paths)) {
      const route = template.replace(/\{[^}]+\}/g, (p) => ids[p] ?? p);
      for (const method of Object.keys(ops)) {
        calls.push({ method: method.toUpperCase(), template, route, admin: template.startsWith('/admin/') });
      }
    }
    // Status routes of each kind of job, by id.
    calls.push({
      method: 'GET',
      template: '/v2/batch/scrape/{id}',
      route: `/v2/batch/scrape/${batch.body.id}`,
      admin: false,
    });

    await pg!.stop();
    pg = undefined;
    const answers: Answer[] = [];
    for (const c of calls) {
      const body =
        c.method === 'GET' || c.method === 'DELETE' ? undefined : (bodies[`${c.method} ${c.template}`] ?? {});
      answers.push(await call(c.method, c.route, body, c.admin ? ADMIN_TOKEN : KEY));
    }
    // A key the gateway has never seen cannot be checked without the database: 503, not 401.
    answers.push(
      await call(
        'GET',
        `/v2/crawl/${crawl.body.id}`,
        undefined,
        `wds_abcdefabcdef_${randomBytes(32).toString('base64url')}`,
      ),
    );

    process.stdout.write(
      `\nDuring the outage:\n${answers.map((a) => `  ${a.status} ${a.route}${a.retryAfter ? ` (Retry-After: ${a.retryAfter})` : ''}`).join('\n')}\n`,
    );
    const wrong = answers.filter((a) => {
      if (a.status === 503) {
        return !a.retryAfter || a.body?.success !== false || a.body?.code !== 'SERVICE_UNAVAILABLE';
      }
      return a.status >= 500 && a.status !== 501;
    });
    expect(wrong).toEqual([]);
    // The routes whose answer lives in the database cannot answer anything else.
    const must503 = [
      `POST /v2/crawl`,
      `GET /v2/crawl/${crawl.body.id}`,
      `GET /v2/crawl/${crawl.body.id}/errors`,
      `POST /v2/batch/scrape`,
      `GET /v2/batch/scrape/${batch.body.id}`,
      `GET /v2/webhooks/deliveries`,
    ];
    for (const route of must503) expect(answers.find((a) => a.route === route)?.status).toBe(503);
    expect(answers.at(-1)?.status).toBe(503);

    // Back on the same port: the services' pools reconnect by themselves.
    pg = await startPostgres({ dataDir: path.join(pgDir, 'data'), port: pgPort });
    const back = Date.now();
    let status: Answer | undefined;
    for (const until = back + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      status = await call('GET', `/v2/crawl/${crawl.body.id}`);
      if (status.status === 200) break;
    }
    expect(status?.status).toBe(200);
    process.stdout.write(`status answered again ${Date.now() - back} ms after PostgreSQL was back\n`);
    // A scrape goes through the scraper's and billing's pools too; until they have reconnected a
    // client may still get a 503 with Retry-After, which it is told to retry.
    const first503s: string[] = [];
    let again: Answer | undefined;
    for (
      const until = Date.now() + 60_000;
      Date.now() < until;
      await new Promise((r) => setTimeout(r, 500))
    ) {
      again = await call('POST', '/v2/scrape', { url: `${site.url}/docs`, maxAge: 0 });
      if (again.status === 200) break;
      first503s.push(`${again.status} ${JSON.stringify(again.body).slice(0, 200)}`);
    }
    process.stdout.write(
      `scrape answered 200 ${Date.now() - back} ms after PostgreSQL was back (before: ${first503s.join('; ') || 'none'})\n`,
    );
    expect(again?.status).toBe(200);
    expect(first503s.every((a) => a.startsWith('503'))).toBe(true);
  }, 300_000);
});
