import { Injectable } from '@nestjs/common';
import { SERVICE_KINDS, type ServiceKind } from '@wds/contracts';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import { discoverInstances } from '@wds/service-kit';

const PING_TIMEOUT_MS = 2000;
/** How long replies to the discovery broadcast are collected; a loaded node answers in well under this. */
const DISCOVERY_WAIT_MS = 1000;

export interface PlatformHealth {
  status: 'ok' | 'degraded';
  nats: 'ok' | 'unreachable';
  database: 'ok' | 'unreachable';
  /** Live instances per service kind. */
  services: Record<ServiceKind, number>;
  /** What keeps the platform from being healthy: `nats`, `database` and service kinds without an instance. */
  missing: string[];
  /** What running instances report as wrong with themselves, as `<kind>: <problem>` (e.g. a wedged deliverer). */
  problems: string[];
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The gateway's view of the whole platform for GET /health (operations.md, Health). */
@Injectable()
export class CheckPlatformHealth {
  constructor(
    private readonly messaging: Messaging,
    private readonly db: Database,
  ) {}

  async execute(): Promise<PlatformHealth> {
    const natsUp = this.messaging.isConnected();
    const [dbUp, instances] = await Promise.all([
      within(this.db.ping(), PING_TIMEOUT_MS).then(
        () => true,
        () => false,
      ),
      natsUp
        ? discoverInstances(this.messaging, { timeoutMs: DISCOVERY_WAIT_MS }).catch(() => [])
        : Promise.resolve([]),
    ]);
    const services = Object.fromEntries(SERVICE_KINDS.map((k) => [k, 0])) as Record<ServiceKind, number>;
    const problems = new Set<string>();
    for (const i of instances) {
      services[i.kind]++;
      for (const p of i.problems) problems.add(`${i.kind}: ${p}`);
    }
    const missing = [
      ...(natsUp ? [] : ['nats']),
      ...(dbUp ? [] : ['database']),
      ...SERVICE_KINDS.filter((k) => services[k] === 0),
    ];
    return {
      status: missing.length || problems.size ? 'degraded' : 'ok',
      nats: natsUp ? 'ok' : 'unreachable',
      database: dbUp ? 'ok' : 'unreachable',
      services,
      missing,
      problems: [...problems],
    };
  }
}
