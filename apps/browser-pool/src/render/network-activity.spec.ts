import { NetworkActivity } from './network-activity';

describe('NetworkActivity.waitForQuiet', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const settled = (p: Promise<void>) => {
    let done = false;
    void p.then(() => (done = true));
    return () => done;
  };

  it('resolves after the quiet period when nothing is in flight', async () => {
    const n = new NetworkActivity();
    const done = settled(n.waitForQuiet(50, 1000));
    await jest.advanceTimersByTimeAsync(49);
    expect(done()).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
  });

  it('waits for requests in flight and restarts the quiet period when one starts', async () => {
    const n = new NetworkActivity();
    n.started();
    const done = settled(n.waitForQuiet(50, 1000));
    await jest.advanceTimersByTimeAsync(300);
    expect(done()).toBe(false);
    n.ended();
    await jest.advanceTimersByTimeAsync(40);
    n.started();
    n.ended();
    await jest.advanceTimersByTimeAsync(40);
    expect(done()).toBe(false);
    await jest.advanceTimersByTimeAsync(10);
    expect(done()).toBe(true);
  });

  it('gives up at the cap while the page keeps requesting', async () => {
    const n = new NetworkActivity();
    n.started();
    const done = settled(n.waitForQuiet(50, 200));
    await jest.advanceTimersByTimeAsync(199);
    expect(done()).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
    expect(n.inFlight).toBe(1);
  });
});
