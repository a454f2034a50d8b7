import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@wds/observability';
import { defaultChromiumPath } from '../pool/browser-launcher';
import { SessionBrowser } from '../sandbox/session-browser';
import { WarmBrowsers, type WarmBrowser } from './warm-browsers';

const UID_BASE = 270_000;

async function until(what: string, check: () => boolean, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Real sandboxed session browsers (bubblewrap, own uid per slot), as the session manager starts them. */
function harness(slots: number) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-warm-'));
  fs.chmodSync(root, 0o711);
  const free = Array.from({ length: slots }, (_, i) => i);
  const launched: WarmBrowser[] = [];
  const discarded: WarmBrowser[] = [];
  const hooks = {
    async launch(): Promise<WarmBrowser | undefined> {
      const slot = free.shift();
      if (slot === undefined) return undefined;
      const id = randomUUID();
      const dir = path.join(root, id);
      fs.mkdirSync(path.join(dir, 'browser'), { recursive: true, mode: 0o711 });
      fs.chownSync(path.join(dir, 'browser'), UID_BASE + slot, UID_BASE + slot);
      const browser = await SessionBrowser.launch({
        chromiumPath: defaultChromiumPath(),
        uid: UID_BASE + slot,
        dataDir: path.join(dir, 'browser'),
        proxyUrl: 'http://127.0.0.1:9',
        processes: 512,
        launchTimeoutMs: 60_000,
        lean: true,
      });
      const warm = {
        id,
        slot,
        dirs: { root: dir, browserData: path.join(dir, 'browser'), scratch: dir, socketDir: dir },
        browser,
      };
      launched.push(warm);
      return warm;
    },
    async discard(w: WarmBrowser): Promise<void> {
      discarded.push(w);
      await w.browser.close();
      free.push(w.slot);
    },
  };
  return { root, free, launched, discarded, hooks };
}

const sandboxed = fs.existsSync('/usr/bin/bwrap') && process.getuid?.() === 0;
const describeSandboxed = sandboxed ? describe : describe.skip;

describeSandboxed('warm session browsers', () => {
  const logger = createLogger({ service: 'warm-browsers-spec', level: 'error' });

  it('hands each ready browser out once and refills in the background, within the free slots', async () => {
    const h = harness(3);
    const pool = new WarmBrowsers(2, h.hooks, logger);
    const taken: WarmBrowser[] = [];
    try {
      pool.fill();
      await until('two ready browsers', () => pool.available === 2);
      expect(h.launched).toHaveLength(2);

      const first = pool.take()!;
      taken.push(first);
      expect(first.browser.browser.isConnected()).toBe(true);
      // The refill takes the third slot; a fourth start finds no slot and stops there.
      await until('the refill', () => pool.available === 2 && pool.inFlight === 0);
      expect(h.launched).toHaveLength(3);
      const second = pool.take()!;
      const third = pool.take()!;
      taken.push(second, third);
      await until('no start in flight', () => pool.inFlight === 0);
      expect(pool.available).toBe(0);
      expect(h.launched).toHaveLength(3);
      expect(new Set(taken.map((w) => w.id)).size).toBe(3);
      expect(new Set(taken.map((w) => w.slot)).size).toBe(3);
      expect(pool.take()).toBeUndefined();

      // A session's browser is never handed out again: its slot comes back only with a new browser.
      await first.browser.close();
      h.free.push(first.slot);
      pool.fill();
      await until('a new browser in the freed slot', () => pool.available === 1);
      const again = pool.take()!;
      taken.push(again);
      expect(again.slot).toBe(first.slot);
      expect(again.id).not.toBe(first.id);
      expect(again.browser).not.toBe(first.browser);
      expect(h.discarded).toHaveLength(0);
    } finally {
      await pool.close();
      await Promise.all(taken.map((w) => w.browser.close()));
      fs.rmSync(h.root, { recursive: true, force: true });
    }
  }, 300_000);

  it('replaces a waiting browser that died, and starts nothing after close', async () => {
    const h = harness(2);
    const pool = new WarmBrowsers(1, h.hooks, logger);
    try {
      pool.fill();
      await until('a ready browser', () => pool.available === 1);
      const dying = h.launched[0];
      // Chromium exits (as after a crash): its sandbox ends with it.
      const cdp = await dying.browser.browser.newBrowserCDPSession();
      await cdp.send('Browser.close').catch(() => undefined);
      await until(
        'the dead one discarded and replaced',
        () => h.discarded.length === 1 && pool.available === 1,
      );
      expect(h.discarded[0]).toBe(dying);
      expect(h.launched).toHaveLength(2);

      await pool.close();
      expect(pool.available).toBe(0);
      expect(h.discarded).toHaveLength(2);
      pool.fill();
      expect(pool.inFlight).toBe(0);
      expect(h.launched).toHaveLength(2);
    } finally {
      await pool.close();
      fs.rmSync(h.root, { recursive: true, force: true });
    }
  }, 300_000);
});
