import { LlmError } from './errors';
import { Semaphore } from './semaphore';

/** Acquires for `tenant`, records the order in which slots are granted, holds until released. */
function grab(gate: Semaphore, order: string[], name: string, tenant?: string, signal?: AbortSignal) {
  return gate.acquire(signal, tenant).then((release) => {
    order.push(name);
    return release;
  });
}

const flush = () => new Promise((r) => setImmediate(r));

describe('Semaphore', () => {
  it('caps calls in flight and passes a freed slot on', async () => {
    const gate = new Semaphore(2);
    const order: string[] = [];
    const a = grab(gate, order, 'a');
    const b = grab(gate, order, 'b');
    const c = grab(gate, order, 'c');
    await flush();
    expect(order).toEqual(['a', 'b']);
    expect(gate.running).toBe(2);
    expect(gate.queued).toBe(1);
    (await a)();
    await flush();
    expect(order).toEqual(['a', 'b', 'c']);
    expect(gate.running).toBe(2);
    (await b)();
    (await c)();
    expect(gate.running).toBe(0);
  });

  it("gives a freed slot to the tenants in turn: a team's long queue holds another team's call back by one call", async () => {
    const gate = new Semaphore(1);
    const order: string[] = [];
    const holds: Array<Promise<() => void>> = [];
    holds.push(grab(gate, order, 'A0', 'team-a'));
    for (let i = 1; i <= 5; i++) holds.push(grab(gate, order, `A${i}`, 'team-a'));
    holds.push(grab(gate, order, 'B1', 'team-b'));
    holds.push(grab(gate, order, 'B2', 'team-b'));
    holds.push(grab(gate, order, 'C1', 'team-c'));
    expect(gate.queued).toBe(8);
    for (let i = 0; i < 9; i++) {
      await flush();
      (await holds[['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'B1', 'B2', 'C1'].indexOf(order[i])])();
    }
    await flush();
    // Round robin over the tenants with waiters, each tenant's own calls first come first served.
    expect(order).toEqual(['A0', 'A1', 'B1', 'C1', 'A2', 'B2', 'A3', 'A4', 'A5']);
    expect(gate.queued).toBe(0);
    expect(gate.running).toBe(0);
  });

  it('drops a waiter whose signal aborts, in whatever tenant queue it waits', async () => {
    const gate = new Semaphore(1);
    const order: string[] = [];
    const first = grab(gate, order, 'A0', 'team-a');
    const ctl = new AbortController();
    const gone = grab(gate, order, 'B1', 'team-b', ctl.signal);
    const next = grab(gate, order, 'A1', 'team-a');
    await flush();
    ctl.abort();
    await expect(gone).rejects.toBeInstanceOf(LlmError);
    expect(gate.queued).toBe(1);
    (await first)();
    await flush();
    expect(order).toEqual(['A0', 'A1']);
    (await next)();
    expect(gate.running).toBe(0);
  });

  it('refuses at once when the signal has already aborted', async () => {
    const gate = new Semaphore(1);
    await expect(gate.acquire(AbortSignal.abort(), 'team-a')).rejects.toMatchObject({ kind: 'aborted' });
    expect(gate.running).toBe(0);
  });
});
