import { randomUUID } from 'node:crypto';
import { ErrorCode, RPC } from '@wds/contracts';
import { ReservationSweeper } from '../src/ledger/reservation-sweeper';
import { rejection, startBilling, type BillingHarness } from './support/billing-harness';

jest.setTimeout(60_000);

describe('credit blocks over NATS (real PostgreSQL + NATS)', () => {
  let h: BillingHarness;
  let billing: BillingHarness['service'];

  const call = <D extends (typeof RPC)[keyof typeof RPC]>(
    def: D,
    payload: Parameters<typeof billing.messaging.request<D>>[1],
  ) => billing.messaging.request(def, payload);
  const grant = (teamId: string, amount: number) => h.grant(teamId, amount);
  const balance = (teamId: string) => h.balance(teamId);

  const take = (teamId: string, amount: number, minimum = 1) =>
    call(RPC.creditsBlockTake, { teamId, amount, minimum, holder: 'test' });
  const report = (reservationId: string, usage: [string, number][], close = false) =>
    call(RPC.creditsUsageReport, {
      reservationId,
      usage: usage.map(([key, amount]) => ({ key, amount, endpoint: 'scrape' as const })),
      close,
    });

  beforeAll(async () => {
    h = await startBilling();
    billing = h.service;
  });
  afterAll(() => h?.stop());

  it('grants exactly what one request needs while the balance is under 1,000', async () => {
    const team = randomUUID();
    await grant(team, 500);
    const block = await take(team, 200, 5);
    expect(block).toMatchObject({ granted: 5, balance: 495 });
    await expect(rejection(take(team, 10, 600))).resolves.toMatchObject({
      code: ErrorCode.INSUFFICIENT_CREDITS,
      status: 402,
    });
  });

  it('takes at most an eighth of a large balance, charges reported usage once per key, refunds the rest', async () => {
    const team = randomUUID();
    await grant(team, 8_000);
    const block = await take(team, 5_000, 1);
    expect(block).toMatchObject({ granted: 1_000, balance: 7_000 });
    expect(
      await report(block.reservationId, [
        ['req:a', 1],
        ['req:b', 5],
        ['req:a', 1],
      ]),
    ).toMatchObject({
      recorded: 6,
      used: 6,
      open: true,
    });
    // A retried report (its reply was lost) and a retried request are not charged again.
    expect(
      await report(block.reservationId, [
        ['req:b', 5],
        ['req:c', 2],
      ]),
    ).toMatchObject({
      recorded: 2,
      used: 8,
    });
    expect(await report(block.reservationId, [], true)).toMatchObject({ used: 8, open: false });
    expect(await balance(team)).toBe(8_000 - 8);
    const { rows } = await billing.database.query<{ usage_key: string; amount: string }>(
      'SELECT usage_key, amount FROM billing.usage WHERE team_id = $1 ORDER BY usage_key',
      [team],
    );
    expect(rows.map((r) => [r.usage_key, Number(r.amount)])).toEqual([
      ['req:a', 1],
      ['req:b', 5],
      ['req:c', 2],
    ]);
  });

  it('debits usage beyond the block from the balance, down to zero, recording the shortfall', async () => {
    const team = randomUUID();
    await grant(team, 10);
    const block = await take(team, 3, 3);
    await report(block.reservationId, [['pdf', 15]], true);
    expect(await balance(team)).toBe(0);
    const { rows } = await billing.database.query<{ charged: string; shortfall: string; status: string }>(
      'SELECT charged, shortfall, status FROM billing.reservations WHERE id = $1',
      [block.reservationId],
    );
    expect(rows[0]).toEqual({ charged: '10', shortfall: '5', status: 'settled' });
  });

  it('charges usage reported after the block closed straight from the balance, once', async () => {
    const team = randomUUID();
    await grant(team, 100);
    const block = await take(team, 10, 10);
    await report(block.reservationId, [['one', 1]], true);
    expect(await balance(team)).toBe(99);
    expect(await report(block.reservationId, [['two', 2]])).toMatchObject({ recorded: 2, open: false });
    expect(await report(block.reservationId, [['two', 2]])).toMatchObject({ recorded: 0, open: false });
    expect(await balance(team)).toBe(97);
  });

  it('settles an expired block at its reported usage (its holder died), never releasing the usage', async () => {
    const team = randomUUID();
    await grant(team, 50);
    const block = await take(team, 20, 20);
    await report(block.reservationId, [['done-before-crash', 4]]);
    await billing.database.query(
      "UPDATE billing.reservations SET expires_at = now() - interval '1 second' WHERE id = $1",
      [block.reservationId],
    );
    await billing.app.get(ReservationSweeper).sweepOnce();
    expect(await balance(team)).toBe(46);
    const { rows } = await billing.database.query<{ status: string; charged: string }>(
      'SELECT status, charged FROM billing.reservations WHERE id = $1',
      [block.reservationId],
    );
    expect(rows[0]).toEqual({ status: 'settled', charged: '4' });
  });

  it('never overdraws with concurrent block takes', async () => {
    const team = randomUUID();
    await grant(team, 30);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => take(team, 5, 2)));
    const granted = outcomes.reduce((sum, o) => sum + (o.status === 'fulfilled' ? o.value.granted : 0), 0);
    expect(granted).toBe(30);
    const { rows } = await billing.database.query<{ balance: string }>(
      'SELECT balance FROM billing.accounts WHERE team_id = $1',
      [team],
    );
    expect(rows[0].balance).toBe('0');
    // Unused credits parked in open blocks still count as the team's.
    expect(await balance(team)).toBe(30);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(5);
  });

  it('refuses usage against an unknown block', async () => {
    const missing = await rejection(report(randomUUID(), [['x', 1]]));
    expect(missing.code).toBe(ErrorCode.NOT_FOUND);
  });

  it('deletes usage rows past the retention period, keeping recent ones', async () => {
    const team = randomUUID();
    await grant(team, 100);
    const block = await take(team, 10, 10);
    await report(
      block.reservationId,
      [
        ['old', 1],
        ['recent', 1],
      ],
      true,
    );
    await billing.database.query(
      `UPDATE billing.usage SET created_at = now() - interval '91 days' WHERE team_id = $1 AND usage_key = 'old'`,
      [team],
    );
    await billing.app.get(ReservationSweeper).sweepOnce();
    const { rows } = await billing.database.query<{ usage_key: string }>(
      'SELECT usage_key FROM billing.usage WHERE team_id = $1',
      [team],
    );
    expect(rows).toEqual([{ usage_key: 'recent' }]);
    expect(await balance(team)).toBe(98);
  });
});
