import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RPC } from '@wds/contracts';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { createTestDatabase } from '@wds/testing';
import type { GatewayConfig } from '../src/config';
import { gatewayServiceOptions } from '../src/gateway.service-options';

export interface TestStack {
  natsUrl: string;
  databaseUrl: string;
  /** A client connection of the test itself (billing stand-in, discovery registrations). */
  messaging: Messaging;
  stop(): Promise<void>;
}

/**
 * A private nats-server and a fresh database for one suite. Private NATS because suites run in
 * parallel: another suite's billing or fake instances on a shared server would answer this
 * suite's requests and show up in its discovery.
 */
export async function startStack(): Promise<TestStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-gw-nats-'));
  let nats: RunningServer | undefined;
  try {
    nats = await startNats({ dataDir: dir });
    const db = await createTestDatabase('gateway');
    const messaging = await Messaging.connect({
      servers: nats.url,
      name: 'gateway-test',
      logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    });
    const server = nats;
    return {
      natsUrl: nats.url,
      databaseUrl: db.url,
      messaging,
      stop: async () => {
        await messaging.drain();
        await db.drop();
        await server.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await nats?.stop();
    throw err;
  }
}

export interface TestGateway {
  running: RunningService<GatewayConfig>;
  url: string;
  stop(): Promise<void>;
}

let instances = 0;

export async function startGateway(stack: TestStack, env: Record<string, string> = {}): Promise<TestGateway> {
  const running = await bootstrapService(
    gatewayServiceOptions({
      NATS_URL: stack.natsUrl,
      DATABASE_URL: stack.databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'fatal',
      WDS_INSTANCE_ID: `gateway-test-${process.pid}-${++instances}`,
      ...env,
    }),
  );
  const address = running.app.getHttpServer().address();
  if (!address || typeof address !== 'object') throw new Error('gateway is not listening');
  return { running, url: `http://127.0.0.1:${address.port}`, stop: () => running.stop() };
}

/**
 * Stand-in for the billing service's grant/balance RPCs, so gateway suites can check exactly
 * which grants the gateway sends. Like the ledger, a grant counts once per idempotency key.
 */
export class BillingStandIn {
  readonly grants = new Map<string, { teamId: string; amount: number; reason: string }>();

  constructor(messaging: Messaging) {
    messaging.serve(RPC.creditsGrant, async (req) => {
      if (!this.grants.has(req.idempotencyKey)) this.grants.set(req.idempotencyKey, req);
      return { balance: this.balance(req.teamId) };
    });
    messaging.serve(RPC.creditsBalance, async (req) => ({ balance: this.balance(req.teamId) }));
  }

  balance(teamId: string): number {
    let sum = 0;
    for (const g of this.grants.values()) if (g.teamId === teamId) sum += g.amount;
    return sum;
  }
}

/** Billing for a team with plenty of credits: blocks of 100, usage accepted. */
export function serveBilling(stack: TestStack): void {
  new BillingStandIn(stack.messaging);
  stack.messaging.serve(RPC.creditsBlockTake, async (req) => ({
    reservationId: randomUUID(),
    granted: Math.max(req.minimum, 100),
    balance: 1_000_000,
    expiresAt: Date.now() + 120_000,
  }));
  stack.messaging.serve(RPC.creditsUsageReport, async (req) => ({
    recorded: req.usage.length,
    used: 0,
    open: !req.close,
    expiresAt: Date.now() + 120_000,
  }));
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(
  base: string,
  method: string,
  urlPath: string,
  opts: {
    token?: string;
    json?: unknown;
    raw?: string;
    contentType?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] = 'application/json';
  }
  if (opts.raw !== undefined) {
    body = opts.raw;
    headers['content-type'] = opts.contentType ?? 'application/json';
  }
  const res = await fetch(base + urlPath, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Left as text; the assertions say what they expect.
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
