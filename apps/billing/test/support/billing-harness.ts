import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { RPC, type ServiceError } from '@wds/contracts';
import { startNats, type RunningServer } from '@wds/local-infra';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { createTestDatabase } from '@wds/testing';
import { billingServiceOptions } from '../../src/billing.service-options';
import { BillingConfig } from '../../src/config';

/** The billing service on its own database and its own NATS, with RPC shortcuts for tests. */
export interface BillingHarness {
  service: RunningService<BillingConfig>;
  grant(teamId: string, amount: number): Promise<{ balance: number }>;
  balance(teamId: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A private NATS per suite: suites run in parallel, and a billing queue group shared with other
 * suites would answer some requests from another database.
 */
export async function startBilling(): Promise<BillingHarness> {
  const natsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-billing-nats-'));
  const nats: RunningServer = await startNats({ dataDir: natsDir });
  const db = await createTestDatabase('billing');
  const service = await bootstrapService(
    billingServiceOptions({
      NATS_URL: nats.url,
      DATABASE_URL: db.url,
      LOG_LEVEL: 'warn',
      HEALTH_HOST: '127.0.0.1',
    }),
  );
  return {
    service,
    grant: (teamId, amount) =>
      service.messaging.request(RPC.creditsGrant, {
        teamId,
        amount,
        reason: 'test',
        idempotencyKey: randomUUID(),
      }),
    balance: async (teamId) => (await service.messaging.request(RPC.creditsBalance, { teamId })).balance,
    stop: async () => {
      await service.stop();
      await db.drop();
      await nats.stop();
      fs.rmSync(natsDir, { recursive: true, force: true });
    },
  };
}

/** The ServiceError a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected a rejection');
}
