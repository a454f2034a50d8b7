import { CommonEnv, parseEnv } from '@wds/config';
import { PAGE_TASK_ACK_WAIT_MS } from '@wds/contracts';
import { jobServiceEnv, jobServiceSettings } from './job-service.env';

const BASE = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'postgres://u@127.0.0.1/db' };
const Crawl = CommonEnv.extend({ ...jobServiceEnv('CRAWL') });

describe('jobServiceEnv / jobServiceSettings', () => {
  it('names every setting with the service prefix, with the defaults of a job service', () => {
    const config = parseEnv(Crawl, BASE);
    expect(config).toMatchObject({
      WDS_CRAWL_RETENTION_HOURS: 24,
      WDS_CRAWL_ZDR_RETENTION_MINUTES: 60,
      WDS_CRAWL_WORKER_CONCURRENCY: 64,
      WDS_CRAWL_ACK_WAIT_MS: PAGE_TASK_ACK_WAIT_MS,
      WDS_CRAWL_WATCHDOG_INTERVAL_MS: 3000,
      WDS_CRAWL_REDISPATCH_MS: 600_000,
      WDS_CRAWL_RECONCILE_MS: 60_000,
      WDS_CRAWL_STALL_FAIL_MS: 1_800_000,
      WDS_JOB_PAGE_EVENTS: 'webhook',
    });
    expect(Object.keys(jobServiceEnv('BATCH')).filter((k) => k.startsWith('WDS_BATCH_'))).toHaveLength(8);
  });

  it('reads the settings of its own prefix only, in the units the runtime takes', () => {
    const Both = CommonEnv.extend({ ...jobServiceEnv('CRAWL'), ...jobServiceEnv('BATCH') });
    const config = parseEnv(Both, {
      ...BASE,
      WDS_CRAWL_RETENTION_HOURS: '2',
      WDS_CRAWL_ZDR_RETENTION_MINUTES: '5',
      WDS_CRAWL_WORKER_CONCURRENCY: '8',
      WDS_CRAWL_ACK_WAIT_MS: '5000',
      WDS_CRAWL_WATCHDOG_INTERVAL_MS: '500',
      WDS_CRAWL_REDISPATCH_MS: '8000',
      WDS_CRAWL_RECONCILE_MS: '4000',
      WDS_CRAWL_STALL_FAIL_MS: '9000',
      WDS_BATCH_WORKER_CONCURRENCY: '3',
      WDS_JOB_PAGE_EVENTS: 'all',
    });
    expect(jobServiceSettings(config, 'CRAWL')).toEqual({
      retentionMs: 2 * 3_600_000,
      zdrRetentionMs: 5 * 60_000,
      concurrency: 8,
      ackWaitMs: 5000,
      pageEvents: 'all',
      watchdog: { intervalMs: 500, redispatchAfterMs: 8000, reconcileAfterMs: 4000, failAfterMs: 9000 },
    });
    expect(jobServiceSettings(config, 'BATCH')).toMatchObject({
      concurrency: 3,
      retentionMs: 24 * 3_600_000,
    });
  });

  it('refuses a setting out of its range (the service does not start)', () => {
    expect(() => parseEnv(Crawl, { ...BASE, WDS_CRAWL_WORKER_CONCURRENCY: '0' })).toThrow(
      /WDS_CRAWL_WORKER_CONCURRENCY/,
    );
    expect(() => parseEnv(Crawl, { ...BASE, WDS_CRAWL_ACK_WAIT_MS: '10' })).toThrow(/WDS_CRAWL_ACK_WAIT_MS/);
  });
});
