import { DeadLetter, deadLetterSubject, type StreamDef } from '@wds/contracts';
import { startNats } from '@wds/local-infra';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Messaging } from '../../src';

export interface PrivateNats {
  url: string;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

/**
 * A private nats-server in its own temporary directory. Suites that dead-letter use one: their
 * subjects live under `wds.dlq.v1.>`, which the real WDS_DLQ_V1 stream of other suites on the shared
 * server would overlap.
 */
export async function startPrivateNats(name: string): Promise<PrivateNats> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wds-${name}-`));
  const nats = await startNats({ dataDir: dir });
  return {
    url: nats.url,
    stop: async () => {
      await nats.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A work-queue stream on `t<id>.work.>` and the limits stream of its dead letters, named by `prefix`. */
export function workStreams(prefix: string, id: string): { WORK: StreamDef; DLQ: StreamDef } {
  const common = { maxAgeMs: 60_000, duplicateWindowMs: 60_000 };
  return {
    WORK: { name: `${prefix}_WORK_${id}`, subjects: [`t${id}.work.>`], retention: 'workqueue', ...common },
    DLQ: {
      name: `${prefix}_DLQ_${id}`,
      subjects: [deadLetterSubject(`t${id}.work.>`)],
      retention: 'limits',
      ...common,
    },
  };
}

/** The dead letters stored in `dlq`, in order; only those of `subject` when given. */
export async function deadLetters(m: Messaging, dlq: StreamDef, subject?: string): Promise<DeadLetter[]> {
  const info = await m.jsm.streams.info(dlq.name);
  const out: DeadLetter[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const msg = await m.jsm.streams.getMessage(dlq.name, { seq }).catch(() => null);
    if (msg && (subject === undefined || msg.subject === deadLetterSubject(subject))) {
      out.push(DeadLetter.parse(msg.json()));
    }
  }
  return out;
}

/** Polls `fn` until it returns a value other than undefined or false (rejects after `timeoutMs`). */
export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
