import { randomUUID } from 'node:crypto';
import { ErrorCode, RPC, ServiceError } from '@wds/contracts';
import { ReleaseCredits } from '../src/ledger/release-credits.usecase';
import { ReservationSweeper } from '../src/ledger/reservation-sweeper';
import { rejection, startBilling, type BillingHarness } from './support/billing-harness';

jest.setTimeout(60_000);

describe('credits ledger over NATS (real PostgreSQL + NATS)', () => {
  let h: BillingHarness;
  let billing: BillingHarness['service'];

  const call = <D extends (typeof RPC)[keyof typeof RPC]>(
    def: D,
    payload: Parameters<typeof billing.messaging.request<D>>[1],
  ) => billing.messaging.request(def, payload);
  const grant = (teamId: string, amount: number) => h.grant(teamId, amount);
  const balance = (teamId: string) => h.balance(teamId);

  const reserve = (teamId: string, requestId: string, amount: number) =>
    call(RPC.creditsReserve, { teamId, requestId, amount, endpoint: 'scrape' });

  beforeAll(async () => {
    h = await startBilling();
    billing = h.service;
  });
  afterAll(() => h?.stop());

  it('never overdraws under concurrent reservations', async () => {
    const team = randomUUID();
    await grant(team, 100);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => reserve(team, `req-${i}`, 3)),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(33);
    expect(failed).toHaveLength(17);
    for (const f of failed) {
      expect(f.reason).toBeInstanceOf(ServiceError);
      expect((f.reason as ServiceError).code).toBe(ErrorCode.INSUFFICIENT_CREDITS);
      expect((f.reason as ServiceError).status).toBe(402);
    }
    expect(await balance(team)).toBe(1);
    const { rows } = await billing.database.query<{ sum: string }>(
      'SELECT sum(delta) AS sum FROM billing.ledger_entries WHERE team_id = $1',
      [team],
    );
    expect(Number(rows[0].sum)).toBe(1);
  });

  it('answers a retried reserve with the same reservation and no second debit', async () => {
    const team = randomUUID();
    await grant(team, 10);
    const first = await reserve(team, 'same', 4);
    const again = await reserve(team, 'same', 4);
    expect(again.reservationId).toBe(first.reservationId);
    expect(await balance(team)).toBe(6);
    const racing = await Promise.all(Array.from({ length: 10 }, () => reserve(team, 'raced', 1)));
    expect(new Set(racing.map((r) => r.reservationId)).size).toBe(1);
    expect(await balance(team)).toBe(5);
    // The same request key of another team is another reservation.
    const other = randomUUID();
    await grant(other, 10);
    expect((await reserve(other, 'same', 4)).reservationId).not.toBe(first.reservationId);
  });

  it('refunds the difference when the actual cost is lower, and settles once', async () => {
    const team = randomUUID();
    await grant(team, 10);
    const { reservationId } = await reserve(team, 'r', 5);
    expect(await call(RPC.creditsSettle, { reservationId, actual: 2 })).toEqual({ balance: 8, charged: 2 });
    expect(await call(RPC.creditsSettle, { reservationId, actual: 2 })).toEqual({ balance: 8, charged: 2 });
    // A settled request retried with its key is not charged again.
    expect((await reserve(team, 'r', 5)).reservationId).toBe(reservationId);
    expect(await balance(team)).toBe(8);
  });

  it('debits extra cost down to zero and records the shortfall', async () => {
    const team = randomUUID();
    await grant(team, 10);
    const { reservationId } = await reserve(team, 'r', 5);
    expect(await call(RPC.creditsSettle, { reservationId, actual: 7 })).toEqual({ balance: 3, charged: 7 });
    const second = await reserve(team, 'r2', 2);
    expect(await call(RPC.creditsSettle, { reservationId: second.reservationId, actual: 9 })).toEqual({
      balance: 0,
      charged: 3,
    });
    const { rows } = await billing.database.query<{ shortfall: string }>(
      'SELECT shortfall FROM billing.reservations WHERE id = $1',
      [second.reservationId],
    );
    expect(Number(rows[0].shortfall)).toBe(6);
  });

  it('releases an expired reservation once, and a retry after the release reserves again', async () => {
    const team = randomUUID();
    await grant(team, 10);
    const { reservationId } = await reserve(team, 'r', 6);
    const release = billing.app.get(ReleaseCredits);
    await billing.database.query(
      "UPDATE billing.reservations SET expires_at = now() - interval '1 second' WHERE id = $1",
      [reservationId],
    );
    expect((await release.execute({ reservationId, onlyIfExpired: true })).balance).toBe(10);
    expect((await release.execute({ reservationId, onlyIfExpired: true })).replayed).toBe(true);
    expect(await balance(team)).toBe(10);
    const retry = await reserve(team, 'r', 6);
    expect(retry).toEqual({ reservationId, balance: 4 });
    // The retry's hold is live again: only its expiry releases it.
    expect((await release.execute({ reservationId, onlyIfExpired: true })).replayed).toBe(true);
    expect(await balance(team)).toBe(4);
  });

  it('applies a grant once per idempotency key and refuses an overdrawing correction', async () => {
    const team = randomUUID();
    const req = { teamId: team, amount: 50, reason: 'welcome', idempotencyKey: `k-${team}` };
    expect(await call(RPC.creditsGrant, req)).toEqual({ balance: 50 });
    expect(await call(RPC.creditsGrant, req)).toEqual({ balance: 50 });
    expect(await call(RPC.creditsGrant, { ...req, amount: -20, idempotencyKey: `c-${team}` })).toEqual({
      balance: 30,
    });
    const err = await rejection(call(RPC.creditsGrant, { ...req, amount: -31, idempotencyKey: `d-${team}` }));
    expect(err.code).toBe(ErrorCode.INSUFFICIENT_CREDITS);
    expect(await balance(team)).toBe(30);
  });

  it('answers 402 INSUFFICIENT_CREDITS for a team without credits and rejects fractional credits', async () => {
    const err = await rejection(reserve(randomUUID(), 'r', 1));
    expect(err.code).toBe(ErrorCode.INSUFFICIENT_CREDITS);
    expect(err.status).toBe(402);
    const bad = await rejection(reserve(randomUUID(), 'r', 1.5));
    expect(bad.code).toBe(ErrorCode.BAD_REQUEST);
    const missing = await rejection(call(RPC.creditsSettle, { reservationId: randomUUID(), actual: 1 }));
    expect(missing.code).toBe(ErrorCode.NOT_FOUND);
  });

  it('sweeps expired reservations back to the balance', async () => {
    const team = randomUUID();
    await grant(team, 10);
    const expired = await reserve(team, 'old', 4);
    const fresh = await reserve(team, 'new', 3);
    await billing.database.query(
      "UPDATE billing.reservations SET expires_at = now() - interval '1 second' WHERE id = $1",
      [expired.reservationId],
    );
    const sweeper = billing.app.get(ReservationSweeper);
    expect(await sweeper.sweepOnce()).toBeGreaterThanOrEqual(1);
    expect(await balance(team)).toBe(7);
    const { rows } = await billing.database.query<{ id: string; status: string }>(
      'SELECT id, status FROM billing.reservations WHERE team_id = $1 ORDER BY created_at',
      [team],
    );
    expect(rows).toEqual([
      { id: expired.reservationId, status: 'released' },
      { id: fresh.reservationId, status: 'reserved' },
    ]);
  });
});
