import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  browserSessionCredits,
  ErrorCode,
  liveViewModeOf,
  sameToken,
  ServiceError,
  type LiveViewMode,
  type BrowserSessionRecord,
  type CodeLanguage,
  type ReplayContext,
  type SessionCreateRequest,
  type SessionDeleteReply,
  type SessionExecuteReply,
  type SessionExecuteRequest,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import type { ProfileStore } from '../profiles/profile-store';
import type { StorageState } from '../render/context-options';
import type { ReplayStore } from '../replay/replay-store';
import type { Limits, Mount } from '../sandbox/bwrap';
import { SandboxCgroup } from '../sandbox/cgroup';
import { SessionBrowser } from '../sandbox/session-browser';
import { LiveSession } from './live-session';
import { replayScrape } from './replay';
import {
  endOrphanedRecording,
  SessionRecorder,
  type RecordingSettings,
  type RecordingSink,
} from './session-recorder';
import type { SessionBilling } from './session-billing';
import { SessionRuntimes } from './session-runtimes';
import type { SessionStore } from './session-store';
import { WarmBrowsers, type WarmBrowser } from './warm-browsers';

export interface SessionSettings {
  replicaId: string;
  /** Sessions this replica holds at most; beyond, CONCURRENCY_LIMITED (reason capacity). */
  capacity: number;
  chromiumPath: string;
  proxyUrl: () => string;
  baseDir: string;
  /** Sandbox uids: base + 2·slot (browser), base + 2·slot + 1 (code). */
  uidBase: number;
  limits: Limits;
  browserProcesses: number;
  outputCapBytes: number;
  replyBudgetBytes: number;
  runtimeMounts: Mount[];
  launchTimeoutMs: number;
  /** Interact: time allowed to replay a scrape. */
  replayTimeoutMs: number;
  /** Session browsers kept started ahead of a create (0: each create starts its own). */
  warmBrowsers: number;
  /** Session browsers in fewer processes (SESSION_LEAN_ARGS). */
  leanBrowsers: boolean;
  /** Runtimes started (and, node, connected) with each warm browser, for that browser's session only. */
  warmRuntimes: readonly CodeLanguage[];
  /** A session's runtime started ahead and not called within this long is stopped (0: kept). */
  warmRuntimeUnusedMs: number;
  /**
   * Session recordings (recordSession): where their files go and how they are encoded, and whether
   * interact sessions (made for a scrape) are recorded without asking; undefined when this
   * deployment cannot record (why: `recordingUnavailable`).
   */
  recording?: { sink: RecordingSink; settings: RecordingSettings; interact?: boolean };
  recordingUnavailable?: string;
}

/**
 * Browser sessions of this replica: create (room here, the team's maximum, credits for the ttl,
 * a sandboxed browser, the scrape's page state for interact), execute, end (DELETE, ttl,
 * inactivity, drain), and the records and billing that outlive them.
 */
export class SessionManager {
  private readonly live = new Map<string, LiveSession>();
  private readonly freeSlots: number[];
  private starting = 0;
  private readonly startingIds = new Set<string>();
  private draining = false;
  /** Whether sessions get a memory/pids cgroup (else each process gets an address-space limit). */
  private readonly cgroups = SandboxCgroup.available();
  private readonly warm: WarmBrowsers;

  constructor(
    private readonly s: SessionSettings,
    private readonly store: SessionStore,
    private readonly billing: SessionBilling,
    private readonly replays: ReplayStore,
    private readonly profiles: ProfileStore,
    private readonly logger: Logger,
  ) {
    this.freeSlots = Array.from({ length: s.capacity }, (_, i) => s.capacity - 1 - i);
    this.warm = new WarmBrowsers(
      Math.min(s.warmBrowsers, s.capacity),
      { launch: () => this.launchWarm(), discard: (w) => this.discardWarm(w) },
      logger,
    );
  }

  /** Starts the warm browsers (once the policy proxy listens). */
  startWarm(): void {
    this.warm.fill();
  }

  get size(): number {
    return this.live.size;
  }

  stats(): { capacity: number; active: number; starting: number; warm: number; draining: boolean } {
    return {
      capacity: this.s.capacity,
      active: this.live.size,
      starting: this.starting,
      warm: this.warm.available,
      draining: this.draining,
    };
  }

  /** Ids of the sessions live or starting here (their concurrency leases are renewed with the heartbeat). */
  liveIds(): string[] {
    return [...this.live.keys(), ...this.startingIds];
  }

  get(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** The live session with this token, or undefined (constant-time comparison). */
  withToken(id: string, token: string): LiveSession | undefined {
    const session = this.live.get(id);
    if (!session || session.ending) return undefined;
    return sameToken(session.token, token) ? session : undefined;
  }

  /** The live session one of whose view tokens this is, and which view it opens. */
  withViewToken(id: string, token: string): { session: LiveSession; mode: LiveViewMode } | undefined {
    const session = this.live.get(id);
    if (!session || session.ending) return undefined;
    const mode = liveViewModeOf(session.token, token);
    return mode ? { session, mode } : undefined;
  }

  async create(req: SessionCreateRequest): Promise<BrowserSessionRecord> {
    if (req.recordSession && !this.s.recording) {
      throw new ServiceError(
        ErrorCode.NOT_IMPLEMENTED,
        `Session recording is not available on this deployment: ${this.s.recordingUnavailable ?? 'not configured'}`,
      );
    }
    const t0 = Date.now();
    const phases: Record<string, number> = {};
    // Every slot may be held by warm browsers still starting: one of them is this create's.
    if (!this.draining && this.freeSlots.length === 0 && this.warm.available === 0) {
      await this.warm.whenStarted();
    }
    if (this.draining || (this.freeSlots.length === 0 && this.warm.available === 0)) {
      throw new ServiceError(
        ErrorCode.CONCURRENCY_LIMITED,
        this.draining
          ? 'This browser-pool replica is shutting down'
          : 'Every session slot of this replica is taken',
        { reason: 'capacity' },
        1,
      );
    }
    const replay = req.scrapeJobId
      ? await this.replayContext(req.teamId, req.scrapeJobId, req.fallbackUrl)
      : undefined;
    const profile = req.profile ?? replay?.profile;
    // A warm browser when one is ready (its slot, directories and id become the session's), else
    // a slot now and a browser started below.
    // (The replay lookup above awaited: check the slots again.)
    const taken = this.warm.available > 0 ? this.warm.take() : undefined;
    const slot = taken ? taken.slot : this.freeSlots.pop();
    if (slot === undefined) {
      throw new ServiceError(
        ErrorCode.CONCURRENCY_LIMITED,
        'Every session slot of this replica is taken',
        { reason: 'capacity' },
        1,
      );
    }
    this.starting++;
    const id = taken?.id ?? randomUUID();
    this.startingIds.add(id);
    const token = randomBytes(32).toString('base64url');
    // An interact session is recorded when this replica can and is configured to; one asked for
    // with recordSession was refused above when it cannot.
    const recorded =
      req.recordSession || (req.scrapeJobId !== undefined && this.s.recording?.interact === true);
    const recordingToken = recorded ? randomBytes(32).toString('base64url') : undefined;
    let record: BrowserSessionRecord | undefined;
    let browser: SessionBrowser | undefined = taken?.browser;
    let dirs: LiveSession['dirs'] | undefined = taken?.dirs;
    let runtimes: SessionRuntimes | undefined = taken?.runtimes;
    try {
      record = await this.store.insert({
        id,
        teamId: req.teamId,
        replicaId: this.s.replicaId,
        scrapeJobId: req.scrapeJobId,
        streamWebView: req.streamWebView,
        ttlSeconds: req.ttl,
        activityTtlSeconds: req.activityTtl,
        token,
        recordingToken,
        profile,
        maxSessions: req.maxSessions,
        concurrency: req.concurrency,
      });
      phases.inserted = Date.now() - t0;
      // The credit hold runs while the browser is made ready (a replay takes longer than the hold);
      // nothing of the session is handed out before both succeeded.
      const held = this.billing
        .hold(req.teamId, id, req.ttl, req.scrapeJobId ? 'interact' : 'browser')
        .catch((err: unknown) => {
          if (err instanceof ServiceError && err.code === ErrorCode.INSUFFICIENT_CREDITS) {
            throw new ServiceError(
              ErrorCode.INSUFFICIENT_CREDITS,
              `Insufficient credits for a ${req.ttl}s browser session (requires ${browserSessionCredits(req.ttl * 1000)} credits at 2 per minute)`,
              err.details,
            );
          }
          throw err;
        })
        .then((reservationId) => this.store.setReservation(id, reservationId))
        .finally(() => (phases.held = Date.now() - t0));
      const prepared = (async () => {
        if (!browser || !dirs) {
          dirs = this.makeDirs(id, slot);
          browser = await this.launchBrowser(slot, dirs);
        }
        runtimes ??= await this.openRuntimes(id, slot, dirs, browser);
        const made = new LiveSession(record, token, slot, dirs, browser, runtimes, this.logger);
        phases.browser = Date.now() - t0;
        const state = profile ? await this.profiles.load(req.teamId, profile.name) : undefined;
        if (replay) {
          if (req.runtime) made.prestart(req.runtime);
          try {
            await replayScrape(await made.page(), replay, state, this.s.replayTimeoutMs);
          } catch (err) {
            this.logger.info({ err, scrapeJobId: req.scrapeJobId }, 'interact replay failed');
            throw new ServiceError(
              ErrorCode.CONFLICT,
              `Failed to initialize the browser session from the original scrape (${(err as Error).message.split('\n')[0]}); rerun the scrape and try again`,
            );
          }
        } else if (state?.cookies?.length) {
          await browser.browser.contexts()[0].addCookies(state.cookies);
        }
        phases.prepared = Date.now() - t0;
        return made;
      })();
      // Both settle before anything is cleaned up (a failed hold must not close a browser mid-replay).
      const [hold, ready] = await Promise.allSettled([held, prepared]);
      if (hold.status === 'rejected') throw hold.reason;
      if (ready.status === 'rejected') throw ready.reason;
      const session = ready.value;
      if (recordingToken && this.s.recording) {
        const { sink, settings } = this.s.recording;
        await session.startRecording(
          new SessionRecorder(
            () => session.page(),
            path.join(this.s.baseDir, 'recordings', id),
            { teamId: req.teamId, kind: 'recording', sessionId: id, token: recordingToken },
            sink,
            settings,
            this.logger,
          ),
        );
      }
      this.logger.debug(
        {
          sessionId: id,
          warm: !!taken,
          runtimesAhead: !!taken?.runtimes,
          ms: { ...phases, total: Date.now() - t0 },
        },
        'session created',
      );
      if (taken?.runtimes && this.s.warmRuntimeUnusedMs > 0) {
        // Runtimes started ahead that this session has not called by then give their memory back.
        setTimeout(() => {
          if (this.live.get(id) !== session || session.ending) return;
          const stopped = session.stopUncalledRuntimes();
          if (stopped.length) this.logger.debug({ sessionId: id, stopped }, 'stopped unused runtimes');
        }, this.s.warmRuntimeUnusedMs).unref();
      }
      this.live.set(id, session);
      void session.browser.exited.then(() => {
        if (this.live.get(id) === session && !session.ending) void this.end(id, 'browser-exited');
      });
      return { ...record, token };
    } catch (err) {
      runtimes?.close();
      await browser?.close().catch(() => undefined);
      if (dirs) this.removeDirs(dirs);
      if (!this.live.has(id)) this.releaseSlot(slot);
      if (record) {
        // Nothing was used: the record ends at once and the hold is settled at zero.
        await this.finish(id, 'failed', () => 0).catch((e: unknown) =>
          this.logger.error({ err: e, sessionId: id }, 'could not end a session that failed to start'),
        );
      }
      throw err instanceof ServiceError
        ? err
        : new ServiceError(
            ErrorCode.UPSTREAM_FAILED,
            `The browser session could not start: ${(err as Error).message}`,
          );
    } finally {
      this.starting--;
      this.startingIds.delete(id);
    }
  }

  async execute(req: SessionExecuteRequest): Promise<SessionExecuteReply> {
    const session = await this.owned(req.teamId, req.sessionId);
    void this.store.touch(req.sessionId).catch(() => undefined);
    return session.execute(req.language, req.code, req.timeoutSeconds * 1000);
  }

  async delete(teamId: string, sessionId: string): Promise<SessionDeleteReply> {
    const record = await this.store.find(sessionId);
    if (!record) throw new ServiceError(ErrorCode.NOT_FOUND, 'Browser session not found');
    if (record.teamId !== teamId)
      throw new ServiceError(ErrorCode.FORBIDDEN, 'This browser session belongs to another team');
    const ended = await this.end(sessionId, 'deleted');
    if (ended) return { session: ended, endedNow: true };
    const now = await this.store.find(sessionId);
    return { session: now!, endedNow: false };
  }

  /** Ends a session of this replica (whatever the reason); undefined if it had already ended. */
  async end(id: string, reason: string): Promise<BrowserSessionRecord | undefined> {
    const session = this.live.get(id);
    if (session) {
      if (session.ending) return undefined;
      session.ending = true;
    }
    let state: StorageState | undefined;
    try {
      const ended = await this.finish(id, reason, browserSessionCredits, undefined, async (p) => {
        if (session && p?.saveChanges)
          state = await session.browser.browser
            .contexts()[0]
            ?.storageState()
            .catch(() => undefined);
        if (state && p) await this.profiles.save(session!.record.teamId, p.name, state);
      });
      return ended;
    } finally {
      if (session) {
        this.live.delete(id);
        await session
          .close()
          .catch((err: unknown) => this.logger.warn({ err, sessionId: id }, 'closing a session failed'));
        this.removeDirs(session.dirs);
        this.releaseSlot(session.slot);
      }
    }
  }

  /** ttl and activityTtl of every live session (called every second). */
  async expire(): Promise<void> {
    const now = Date.now();
    for (const [id, s] of this.live) {
      if (s.ending) continue;
      if (now >= s.createdAtMs + s.record.ttlSeconds * 1000) void this.end(id, 'ttl');
      else if (now - s.lastActivity >= s.record.activityTtlSeconds * 1000) void this.end(id, 'inactivity');
    }
  }

  /** Sessions of replicas that stopped answering end at their replica's last sign of life. */
  async reapOrphans(silentMs: number): Promise<number> {
    let n = 0;
    for (const o of await this.store.orphaned(silentMs)) {
      if (this.live.has(o.id)) continue;
      const ended = await this.finish(o.id, 'replica-lost', browserSessionCredits, o.lastSeen);
      if (ended) n++;
      if (ended?.recordingToken && this.s.recording) {
        // Its recording stops at the last segment the lost replica stored: the playlist is ended.
        await endOrphanedRecording(this.s.recording.sink, o.id).catch((err: unknown) =>
          this.logger.warn({ err, sessionId: o.id }, 'could not end the recording of a lost session'),
        );
      }
    }
    return n;
  }

  /** Retries the charge of ended sessions billing did not record (it was unreachable). */
  async settleUnbilled(): Promise<void> {
    for (const u of await this.store.unbilled()) {
      if (u.reservationId) await this.billing.settle(u.reservationId, u.credits);
      await this.store.markBilled(u.id);
    }
  }

  /** SIGTERM: no new sessions; every live one ends (and is billed) now. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.warm.close();
    await Promise.allSettled([...this.live.keys()].map((id) => this.end(id, 'drained')));
  }

  /** Records the end (exactly once), then settles the hold at the real cost. */
  private async finish(
    id: string,
    reason: string,
    credits: (durationMs: number, promptUsed: boolean) => number,
    endAt?: Date,
    beforeBilling?: (profile: { name: string; saveChanges: boolean } | undefined) => Promise<void>,
  ): Promise<BrowserSessionRecord | undefined> {
    const ended = await this.store.claimEnd(id, reason, credits, endAt);
    if (!ended) return undefined;
    if (beforeBilling) {
      await beforeBilling(ended.profile).catch((err: unknown) =>
        this.logger.warn({ err, sessionId: id }, 'saving the session profile failed'),
      );
    }
    try {
      if (ended.reservationId)
        await this.billing.settle(ended.reservationId, ended.record.creditsBilled ?? 0);
      await this.store.markBilled(id);
    } catch (err) {
      this.logger.warn({ err, sessionId: id }, 'billing the session failed; retried later');
    }
    this.logger.info(
      { sessionId: id, reason, durationMs: ended.record.durationMs, credits: ended.record.creditsBilled },
      'browser session ended',
    );
    return ended.record;
  }

  /** The team's live session on this replica (other team FORBIDDEN, ended GONE, unknown NOT_FOUND). */
  async owned(teamId: string, id: string): Promise<LiveSession> {
    const session = this.live.get(id);
    if (session && !session.ending) {
      if (session.record.teamId !== teamId)
        throw new ServiceError(ErrorCode.FORBIDDEN, 'This browser session belongs to another team');
      return session;
    }
    const record = await this.store.find(id);
    if (!record) throw new ServiceError(ErrorCode.NOT_FOUND, 'Browser session not found');
    if (record.teamId !== teamId)
      throw new ServiceError(ErrorCode.FORBIDDEN, 'This browser session belongs to another team');
    if (record.status === 'active' && record.replicaId === this.s.replicaId) {
      // Its browser is not here any more (this process restarted): the session is over.
      await this.finish(id, 'replica-lost', browserSessionCredits);
    }
    throw new ServiceError(ErrorCode.GONE, 'Browser session has been destroyed');
  }

  private async replayContext(teamId: string, jobId: string, fallbackUrl?: string): Promise<ReplayContext> {
    const context = await this.replays.find(jobId);
    if (!context && fallbackUrl) {
      const now = new Date().toISOString();
      return {
        jobId,
        teamId,
        url: fallbackUrl,
        options: {
          mobile: false,
          skipTlsVerification: false,
          blockAds: true,
          waitFor: 0,
          timeoutMs: 60_000,
          zeroDataRetention: false,
          branding: false,
        },
        actions: [],
        createdAt: now,
        expiresAt: now,
      };
    }
    if (!context) {
      throw new ServiceError(ErrorCode.NOT_FOUND, 'No replay context for this scrape (unknown or expired)', {
        reason: 'replay-context',
      });
    }
    if (context.teamId !== teamId)
      throw new ServiceError(ErrorCode.FORBIDDEN, 'This scrape belongs to another team');
    return context;
  }

  private launchBrowser(slot: number, dirs: LiveSession['dirs']): Promise<SessionBrowser> {
    return SessionBrowser.launch({
      chromiumPath: this.s.chromiumPath,
      uid: this.browserUid(slot),
      dataDir: dirs.browserData,
      proxyUrl: this.s.proxyUrl(),
      processes: this.s.browserProcesses,
      launchTimeoutMs: this.s.launchTimeoutMs,
      lean: this.s.leanBrowsers,
    });
  }

  /**
   * A warm browser in a free slot, started exactly as a session's, with its own runtimes (relay,
   * socket, cgroup under the future session's id) and WDS_SESSION_WARM_RUNTIMES started in them
   * (undefined: no slot free).
   */
  private async launchWarm(): Promise<WarmBrowser | undefined> {
    if (this.draining) return undefined;
    const slot = this.freeSlots.pop();
    if (slot === undefined) return undefined;
    const id = randomUUID();
    let dirs: LiveSession['dirs'] | undefined;
    let browser: SessionBrowser | undefined;
    try {
      dirs = this.makeDirs(id, slot);
      browser = await this.launchBrowser(slot, dirs);
      const runtimes = await this.openRuntimes(id, slot, dirs, browser);
      const runtimesStarted = this.s.warmRuntimes.length
        ? Promise.all(this.s.warmRuntimes.map((l) => runtimes.prestart(l))).then(() => undefined)
        : undefined;
      runtimesStarted?.catch(() => undefined);
      return { id, slot, dirs, browser, runtimes, runtimesStarted };
    } catch (err) {
      await browser?.close().catch(() => undefined);
      if (dirs) this.removeDirs(dirs);
      this.freeSlots.push(slot);
      throw err;
    }
  }

  private async discardWarm(warm: WarmBrowser): Promise<void> {
    warm.runtimes?.close();
    await warm.browser.close().catch(() => undefined);
    this.removeDirs(warm.dirs);
    this.freeSlots.push(warm.slot);
  }

  /** The code runtimes of `browser` (its relay and socket, a cgroup named after the session id). */
  private async openRuntimes(
    id: string,
    slot: number,
    dirs: LiveSession['dirs'],
    browser: SessionBrowser,
  ): Promise<SessionRuntimes> {
    const cgroup = this.cgroups
      ? SandboxCgroup.create(id, this.s.limits.addressSpaceBytes, this.s.limits.processes, this.codeUid(slot))
      : undefined;
    // (On failure, open() removes the cgroup.)
    return SessionRuntimes.open(
      browser.wsEndpoint,
      dirs,
      {
        uid: this.codeUid(slot),
        limits: this.s.limits,
        outputCapBytes: this.s.outputCapBytes,
        replyBudgetBytes: this.s.replyBudgetBytes,
        runtimeMounts: this.s.runtimeMounts,
      },
      cgroup,
    );
  }

  /** A slot is free again: a warm browser may take it. */
  private releaseSlot(slot: number): void {
    this.freeSlots.push(slot);
    if (!this.draining) this.warm.fill();
  }

  private browserUid(slot: number): number {
    return this.s.uidBase + 2 * slot;
  }

  private codeUid(slot: number): number {
    return this.s.uidBase + 2 * slot + 1;
  }

  private makeDirs(id: string, slot: number): LiveSession['dirs'] {
    const root = path.join(this.s.baseDir, id);
    const dirs = {
      root,
      browserData: path.join(root, 'browser'),
      scratch: path.join(root, 'work'),
      socketDir: path.join(root, 'sock'),
    };
    fs.mkdirSync(root, { recursive: true, mode: 0o711 });
    fs.mkdirSync(dirs.browserData, { mode: 0o700 });
    fs.mkdirSync(dirs.scratch, { mode: 0o700 });
    fs.mkdirSync(dirs.socketDir, { mode: 0o755 });
    fs.chownSync(dirs.browserData, this.browserUid(slot), this.browserUid(slot));
    fs.chownSync(dirs.scratch, this.codeUid(slot), this.codeUid(slot));
    return dirs;
  }

  private removeDirs(dirs: LiveSession['dirs']): void {
    fs.rmSync(dirs.root, { recursive: true, force: true });
  }
}
