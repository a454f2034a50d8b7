import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, retryDelayMs } from './retry-schedule';

describe('retry schedule', () => {
  it('parses the default schedule to about 22.7 hours over 8 retries', () => {
    const schedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
    expect(schedule).toEqual([30e3, 120e3, 600e3, 1800e3, 3600e3, 10800e3, 21600e3, 43200e3]);
    const hours = schedule.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(22);
    expect(hours).toBeLessThan(24);
  });

  it('accepts milliseconds with or without the unit and rejects garbage', () => {
    expect(parseRetrySchedule('50ms, 100 ,2s')).toEqual([50, 100, 2000]);
    expect(() => parseRetrySchedule('10x')).toThrow('10x');
    expect(() => parseRetrySchedule('0s')).toThrow('positive');
  });

  it('gives the step for the attempts made, with at most 10% jitter, then stops', () => {
    const schedule = [1000, 5000];
    expect(retryDelayMs(schedule, 1, () => 0)).toBe(1000);
    expect(retryDelayMs(schedule, 2, () => 0.999)).toBe(5500);
    expect(retryDelayMs(schedule, 3, () => 0)).toBeUndefined();
  });
});
