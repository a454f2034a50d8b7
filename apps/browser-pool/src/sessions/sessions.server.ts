import fs from 'node:fs';
import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  BROWSER_SESSION_RPC,
  ErrorCode,
  liveViewModeOf,
  sameToken,
  ServiceError,
  sessionReplicaRpc,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { BrowserPoolConfig } from '../config';
import { AgentViews } from '../agent/agent-views';
import { SessionEndpoint } from './session-endpoint';
import { SessionManager } from './session-manager';
import { PromptSessionUseCase } from './session-prompt';
import { SessionStore } from './session-store';

/** Heartbeat (at most) and housekeeping interval. */
const HEARTBEAT_MS = 5000;

/**
 * Serves the session RPCs (create/lookup/list/resolve in the `browser-pool` queue group; execute and
 * delete on this replica's own subjects), runs the clocks (ttl and inactivity every second; heartbeat,
 * orphan reaping and billing retries every 5 s) and ends every session on SIGTERM.
 */
@Injectable()
export class SessionsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timers: NodeJS.Timeout[] = [];
  private endpointUrl = '';

  constructor(
    private readonly messaging: Messaging,
    private readonly sessions: SessionManager,
    private readonly store: SessionStore,
    private readonly endpoint: SessionEndpoint,
    private readonly prompts: PromptSessionUseCase,
    private readonly agentViews: AgentViews,
    @Inject(APP_CONFIG) private readonly config: BrowserPoolConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const c = this.config;
    const port = await this.endpoint.start();
    this.endpointUrl = c.WDS_BROWSER_SESSION_ADVERTISE ?? `http://127.0.0.1:${port}`;
    // Agent runs' live views are served on the same endpoint.
    this.agentViews.endpoint = this.endpointUrl;
    await this.store.heartbeat(c.WDS_INSTANCE_ID, this.endpointUrl);
    const mine = sessionReplicaRpc(c.WDS_INSTANCE_ID);
    this.messaging.serve(mine.execute, (req) => this.sessions.execute(req));
    this.messaging.serve(mine.delete, (req) => this.sessions.delete(req.teamId, req.sessionId));
    this.messaging.serve(mine.prompt, (req) => this.prompts.execute(req));
    const sandboxed = fs.existsSync('/usr/bin/bwrap') && fs.existsSync('/usr/bin/prlimit');
    if (!sandboxed) {
      this.logger.warn(
        'bubblewrap (/usr/bin/bwrap) is not installed: this replica serves no browser sessions',
      );
    }
    if (c.WDS_BROWSER_SESSIONS > 0 && sandboxed) {
      this.messaging.serve(BROWSER_SESSION_RPC.create, async (req) => ({
        session: await this.sessions.create(req),
      }));
      this.sessions.startWarm();
    }
    this.messaging.serve(BROWSER_SESSION_RPC.lookup, async (req) => {
      const session = req.sessionId
        ? /^[0-9a-f-]{36}$/i.test(req.sessionId)
          ? await this.store.find(req.sessionId)
          : undefined
        : await this.store.findByScrape(req.scrapeJobId!);
      if (!session) throw new ServiceError(ErrorCode.NOT_FOUND, 'Browser session not found');
      if (session.teamId !== req.teamId)
        throw new ServiceError(ErrorCode.FORBIDDEN, 'This browser session belongs to another team');
      return { session };
    });
    this.messaging.serve(BROWSER_SESSION_RPC.list, async (req) => ({
      sessions: await this.store.list(req.teamId, req.status),
    }));
    this.messaging.serve(BROWSER_SESSION_RPC.resolve, async (req) => {
      const record = /^[0-9a-f-]{36}$/i.test(req.sessionId)
        ? await this.store.find(req.sessionId)
        : undefined;
      const active = record?.status === 'active' && record.token ? record.token : undefined;
      const mode = active && req.purpose === 'live' ? liveViewModeOf(active, req.token) : undefined;
      const granted =
        req.purpose === 'live' ? mode !== undefined : active !== undefined && sameToken(active, req.token);
      const endpoint = granted ? await this.store.replicaEndpoint(record!.replicaId) : undefined;
      if (!endpoint) throw new ServiceError(ErrorCode.NOT_FOUND, 'Unknown session or token');
      return { endpoint, ...(mode ? { mode } : {}) };
    });
    this.every(1000, () => this.sessions.expire());
    // Beats well within the timeout after which the others declare this replica lost, on a timer
    // of their own so slow housekeeping never delays them.
    const beat = Math.max(250, Math.min(HEARTBEAT_MS, Math.floor(c.WDS_SESSION_REPLICA_TIMEOUT_MS / 4)));
    this.every(beat, async () => {
      await this.store.heartbeat(c.WDS_INSTANCE_ID, this.endpointUrl);
      await this.store.renewLeases(this.sessions.liveIds());
    });
    this.every(HEARTBEAT_MS, async () => {
      const reaped = await this.sessions.reapOrphans(c.WDS_SESSION_REPLICA_TIMEOUT_MS);
      if (reaped) this.logger.info({ reaped }, 'ended the sessions of a lost replica');
      await this.sessions.settleUnbilled();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.sessions.drain();
    await this.endpoint.close();
    await this.store.forgetReplica(this.config.WDS_INSTANCE_ID).catch(() => undefined);
  }

  private every(ms: number, job: () => Promise<void>): void {
    let running = false;
    const t = setInterval(() => {
      if (running) return;
      running = true;
      job()
        .catch((err: unknown) => this.logger.warn({ err }, 'session housekeeping failed'))
        .finally(() => (running = false));
    }, ms);
    t.unref();
    this.timers.push(t);
  }
}
