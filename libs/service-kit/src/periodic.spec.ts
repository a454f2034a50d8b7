import { Periodic } from './periodic';

describe('Periodic', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const setup = (run: () => Promise<number>) => {
    const warn = jest.fn();
    const periodic = new Periodic<number>({
      everyMs: 1000,
      run,
      logger: { warn } as never,
      what: 'the sweep',
    });
    return { periodic, warn };
  };

  it('runs on every tick, and once at start when asked', async () => {
    const run = jest.fn(async () => 1);
    const { periodic } = setup(run);
    periodic.start({ now: true });
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(3000);
    expect(run).toHaveBeenCalledTimes(4);
    periodic.start(); // a second start adds no timer
    await jest.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(5);
    await periodic.stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(run).toHaveBeenCalledTimes(5);
  });

  it('joins the run in progress instead of starting a second one', async () => {
    let finish!: (n: number) => void;
    const run = jest.fn(() => new Promise<number>((r) => (finish = r)));
    const { periodic } = setup(run);
    const a = periodic.runOnce();
    periodic.start();
    await jest.advanceTimersByTimeAsync(2500); // two ticks while the first run is still going
    const b = periodic.runOnce();
    expect(run).toHaveBeenCalledTimes(1);
    finish(7);
    await expect(Promise.all([a, b])).resolves.toEqual([7, 7]);
    // Once it has ended, the next call starts a new run.
    const c = periodic.runOnce();
    expect(run).toHaveBeenCalledTimes(2);
    finish(8);
    await expect(c).resolves.toBe(8);
    await periodic.stop();
  });

  it('logs a failed run and runs again on the next tick', async () => {
    const run = jest.fn().mockRejectedValueOnce(new Error('database gone')).mockResolvedValue(1);
    const { periodic, warn } = setup(run);
    periodic.start({ now: true });
    await jest.advanceTimersByTimeAsync(0);
    expect(warn).toHaveBeenCalledWith(
      { err: expect.objectContaining({ message: 'database gone' }) },
      'the sweep failed',
    );
    await jest.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledTimes(1);
    await periodic.stop();
  });

  it('stop() waits for the run in progress, and resolves when that run fails', async () => {
    let fail!: (e: Error) => void;
    const { periodic } = setup(() => new Promise<number>((_, reject) => (fail = reject)));
    periodic.start({ now: true });
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    fail(new Error('late'));
    await stopping;
    expect(stopped).toBe(true);
  });
});
