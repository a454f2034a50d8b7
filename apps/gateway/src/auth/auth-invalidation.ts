import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER, discoverInstances } from '@wds/service-kit';
import { z } from 'zod';
import { AuthCache } from './auth-cache';

/**
 * Broadcast to every gateway replica (plain subscription, no queue group) over core NATS.
 * NEVER rename a shipped subject: bump the version and run both until old replicas are gone.
 */
export const AUTH_INVALIDATE_SUBJECT = 'wds.gateway.v1.auth.invalidate';

const Invalidation = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('key'), prefix: z.string().min(1) }),
  z.object({ kind: z.literal('team'), teamId: z.string().min(1) }),
]);
export type Invalidation = z.infer<typeof Invalidation>;

const ACK_WAIT_MS = 2000;

/**
 * Keeps every replica's auth cache honest. `broadcast` returns once each live gateway instance
 * has acknowledged dropping the entry (or after ACK_WAIT_MS), so an admin call that revokes a key
 * answers only when the key no longer works anywhere.
 */
@Injectable()
export class AuthInvalidation implements OnModuleInit, OnModuleDestroy {
  private unsubscribe?: () => void;

  constructor(
    private readonly messaging: Messaging,
    private readonly cache: AuthCache,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const sub = this.messaging.nc.subscribe(AUTH_INVALIDATE_SUBJECT, {
      callback: (err, msg) => {
        if (err) {
          this.logger.error({ err }, 'auth invalidation subscription failed');
          return;
        }
        let parsed: Invalidation;
        try {
          parsed = Invalidation.parse(msg.json());
        } catch (e) {
          this.logger.warn({ err: e }, 'ignoring malformed auth invalidation');
          return;
        }
        this.apply(parsed);
        if (msg.reply) msg.respond('ok');
      },
    });
    this.unsubscribe = () => sub.unsubscribe();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  async broadcast(inv: Invalidation): Promise<void> {
    this.apply(inv);
    const gateways = (await discoverInstances(this.messaging)).filter((i) => i.kind === 'gateway').length;
    let acks = 0;
    try {
      const replies = await this.messaging.nc.requestMany(AUTH_INVALIDATE_SUBJECT, JSON.stringify(inv), {
        strategy: 'count',
        maxMessages: Math.max(gateways, 1),
        maxWait: ACK_WAIT_MS,
      });
      for await (const _reply of replies) acks++;
    } catch (err) {
      // "no responders" when this process is not subscribed yet; the local cache is already clear.
      this.logger.debug({ err }, 'auth invalidation request ended');
    }
    if (acks < gateways) {
      this.logger.warn(
        { acks, gateways, invalidation: inv },
        'not every gateway acknowledged the invalidation',
      );
    }
  }

  private apply(inv: Invalidation): void {
    if (inv.kind === 'key') this.cache.invalidateKey(inv.prefix);
    else this.cache.invalidateTeam(inv.teamId);
  }
}
