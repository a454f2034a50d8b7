import { randomUUID } from 'node:crypto';
import { ErrorCode, defineRpc } from '@wds/contracts';
import { createLogger } from '@wds/observability';
import { testNatsUrl } from '@wds/testing';
import { z } from 'zod';
import { Messaging } from '../src';
import { RESPONDER_SILENCE_MS } from '../src/liveness';

const logger = createLogger({ service: 'liveness-test', level: 'silent' });
const suffix = randomUUID().slice(0, 8);
const Slow = defineRpc(
  `test.${suffix}.slow`,
  'test-slow',
  z.object({ ms: z.int() }),
  z.object({ ok: z.boolean() }),
);
const Dead = defineRpc(`test.${suffix}.dead`, 'test-dead', z.object({}), z.object({ ok: z.boolean() }));

/**
 * A request's responder that dies (SIGKILL: no reply, ever) is found out within seconds instead of
 * when the request's own timeout ends; a live responder working longer than that is not.
 */
describe('responder liveness (real NATS)', () => {
  let server: Messaging;
  let client: Messaging;

  beforeAll(async () => {
    server = await Messaging.connect({ servers: testNatsUrl(), name: 'liveness-server', logger });
    client = await Messaging.connect({ servers: testNatsUrl(), name: 'liveness-client', logger });
    server.serve(Slow, async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { ok: true };
    });
    // A process that took the request and died: subscribed in the queue group, never answers.
    server.nc.subscribe(Dead.subject, { queue: Dead.queue, callback: () => undefined });
    await server.nc.flush();
  });

  afterAll(async () => {
    await client.drain();
    await server.drain();
  });

  it('gives up a request whose responder went silent long before its timeout', async () => {
    const t0 = Date.now();
    const err = await client.request(Dead, {}, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    const waited = Date.now() - t0;
    expect(err).toMatchObject({ code: ErrorCode.SERVICE_UNAVAILABLE });
    // Found out after the silence limit, not after the 60 s timeout.
    expect(waited).toBeGreaterThanOrEqual(RESPONDER_SILENCE_MS);
    expect(waited).toBeLessThan(30_000);
  }, 40_000);

  it('waits for a live responder that works longer than the silence limit', async () => {
    await expect(
      client.request(Slow, { ms: RESPONDER_SILENCE_MS + 2500 }, { timeoutMs: 30_000 }),
    ).resolves.toEqual({ ok: true });
  }, 40_000);
});
