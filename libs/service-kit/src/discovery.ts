import { Svcm, type Service } from '@nats-io/services';
import { isServiceKind, type ServiceKind } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

/** NATS micro service names are `wds-<kind>`; the kind is repeated in metadata. */
export const SERVICE_NAME_PREFIX = 'wds-';

export interface DiscoveredInstance {
  kind: ServiceKind;
  id: string;
  version: string;
  healthUrl?: string;
  startedAt?: string;
  instanceId?: string;
  /** What the instance itself reports as wrong (HealthProblems); empty when healthy. */
  problems: string[];
}

export interface InstanceRegistration {
  kind: ServiceKind;
  instanceId: string;
  version: string;
  healthUrl: string;
  /** Reported with the instance's stats; see HealthProblems. */
  problems?: () => string[];
}

type NcOf = ConstructorParameters<typeof Svcm>[0];

/**
 * Announces this process with the NATS micro protocol ($SRV.PING/INFO/STATS), which gives liveness
 * discovery without a registry: an instance that stops or dies stops answering.
 */
export async function registerInstance(messaging: Messaging, reg: InstanceRegistration): Promise<Service> {
  // @nats-io/services pins a pre-release nats-core whose types differ only nominally from ours.
  const svcm = new Svcm(messaging.nc as unknown as NcOf);
  const service = await svcm.add({
    name: SERVICE_NAME_PREFIX + reg.kind,
    version: reg.version,
    description: `Web Data Service ${reg.kind}`,
    metadata: { kind: reg.kind, instanceId: reg.instanceId, healthUrl: reg.healthUrl },
    queue: reg.kind,
    // Sent with $SRV.STATS (the discovery request), once per endpoint.
    statsHandler: () => Promise.resolve({ problems: reg.problems?.() ?? [] }),
  });
  service.addEndpoint('ping', {
    subject: `wds.${reg.kind}.v1.instance.ping`,
    handler: (err, msg) => {
      if (!err) msg.respond(JSON.stringify({ kind: reg.kind, instanceId: reg.instanceId }));
    },
  });
  return service;
}

/** Every live instance answering $SRV.STATS within the wait, mapped to its service kind. */
export async function discoverInstances(
  messaging: Messaging,
  opts: { timeoutMs?: number } = {},
): Promise<DiscoveredInstance[]> {
  const client = new Svcm(messaging.nc as unknown as NcOf).client({
    strategy: 'timer',
    maxWait: opts.timeoutMs ?? 500,
  });
  const found: DiscoveredInstance[] = [];
  try {
    for await (const s of await client.stats()) {
      if (!s.name.startsWith(SERVICE_NAME_PREFIX)) continue;
      const kind = s.metadata?.kind ?? s.name.slice(SERVICE_NAME_PREFIX.length);
      if (!isServiceKind(kind)) continue;
      found.push({
        kind,
        id: s.id,
        version: s.version,
        healthUrl: s.metadata?.healthUrl,
        instanceId: s.metadata?.instanceId,
        startedAt: s.started,
        problems: problemsOf(s.endpoints),
      });
    }
  } catch (err) {
    // With no instance at all, the request ends in "no responders": that is an empty answer.
    if (!isNoResponders(err)) throw err;
  }
  return found;
}

function problemsOf(endpoints: readonly { data?: unknown }[] | undefined): string[] {
  const found = new Set<string>();
  for (const e of endpoints ?? []) {
    const problems = (e.data as { problems?: unknown } | null | undefined)?.problems;
    if (Array.isArray(problems)) for (const p of problems) if (typeof p === 'string') found.add(p);
  }
  return [...found];
}

function isNoResponders(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e.name === 'NoRespondersError' || /no responders/i.test(e.message)) return true;
  }
  return false;
}
