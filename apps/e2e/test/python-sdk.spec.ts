import { FIRECRAWL_PY_VERSION, pythonSdk } from './support/python-sdk';
import { listenLocal } from './support/http';

// The harness every Python-SDK e2e suite uses: the pinned firecrawl-py from PyPI in a venv, snippets
// run with `client()`/`emit()` bound, their SDK exceptions surfaced as failures.

describe('the official Python SDK harness', () => {
  it('runs the pinned firecrawl-py and reads back what a snippet emits', async () => {
    const sdk = await pythonSdk();
    const out = await sdk.run(
      `
      import importlib.metadata
      print("free output is kept apart")
      emit({"version": importlib.metadata.version("firecrawl-py"), "client": type(client()).__name__})
      `,
      { apiUrl: 'http://127.0.0.1:9', apiKey: 'fc-unused' },
    );
    expect(out.result).toEqual({ version: FIRECRAWL_PY_VERSION, client: 'Firecrawl' });
    expect(out.stdout).toContain('free output is kept apart');
  }, 600_000);

  it('surfaces an SDK call that fails as a failed run, with what the server answered', async () => {
    const server = await listenLocal((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, error: 'Unauthorized: the key is not known' }));
    });
    try {
      const sdk = await pythonSdk();
      const raw = await sdk.runRaw(`emit(plain(client().scrape("https://example.com")))`, {
        apiUrl: server.url,
        apiKey: 'fc-wrong',
      });
      expect(raw.exitCode).not.toBe(0);
      expect(raw.result).toBeUndefined();
      expect(raw.stderr).toMatch(/Unauthorized/);
      await expect(
        sdk.run(`client().scrape("https://example.com")`, { apiUrl: server.url, apiKey: 'fc-wrong' }),
      ).rejects.toThrow(/exited with/);
    } finally {
      await server.close();
    }
  }, 120_000);
});
