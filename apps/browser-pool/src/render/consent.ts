import fs from 'node:fs';
import path from 'node:path';
import { filterCompactRules } from '@duckduckgo/autoconsent';
import type { CDPSession, Page } from 'playwright-core';

/** The package's page script and opt-out rules (hundreds of CMPs: OneTrust, Cookiebot, Didomi, Sourcepoint...). */
const SCRIPT_FILE = path.join(
  path.dirname(require.resolve('@duckduckgo/autoconsent')),
  'autoconsent.playwright.js',
);
const RULES_FILE = require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json');

type CompactRules = Parameters<typeof filterCompactRules>[0];

/** Rule sets sent to the documents of one job at most: a page script cannot make the service loop. */
const MAX_INITS_PER_JOB = 20;

const CONFIG = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  // Prehiding keeps a dialog hidden for seconds when its rule then fails; the CSS fallback handles those.
  enablePrehide: false,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  // Started once the page has settled: one detection pass.
  detectRetries: 0,
  // The script runs in the page's main world: CMP APIs are read directly, not through an eval round trip.
  isMainWorld: true,
  prehideTimeout: 2000,
  enableHeuristicDetection: false,
  logs: {
    lifecycle: false,
    rulesteps: false,
    detectionsteps: false,
    evals: false,
    errors: false,
    messages: false,
    waits: false,
  },
};

interface Message {
  type?: string;
  id?: string;
  code?: string;
  cmp?: string;
  url?: string;
  result?: unknown;
  mainFrame?: boolean;
}

/** CDP binding the page script reports through (a string payload; Playwright's bindings cost a script injection per document). */
const BINDING = '__wdsConsent';

/** Lifecycle states after which an autoconsent instance does nothing more. */
const FINAL = new Set(['nothingDetected', 'done', 'optOutSucceeded', 'optOutFailed']);
/** A CMP detected without a visible dialog is given this long for one to show before the page is read. */
const POPUP_GRACE_MS = 600;
/** Frames of a page autoconsent is started in at most (the main frame first). */
const MAX_FRAMES = 10;

/**
 * Runs before autoconsent: forwards only what the service acts on (the script reports every state
 * change, each would be a round trip) and keeps its own reference to the binding.
 */
const SHIM = `(() => {
  const send = globalThis.${BINDING};
  const wanted = new Set(['init', 'popupFound', 'optOutResult', 'autoconsentDone', 'autoconsentError', 'eval']);
  const top = window === window.top;
  let last;
  window.autoconsentSendMessage = (m) => {
    if (typeof send !== 'function' || !m) return Promise.resolve();
    if (m.type === 'report') {
      const lifecycle = m.state && m.state.lifecycle;
      if (lifecycle !== last) send(JSON.stringify({ type: 'state', instanceId: m.instanceId, lifecycle }));
      last = lifecycle;
    } else if (wanted.has(m.type)) {
      send(JSON.stringify(m.type === 'init' ? { ...m, mainFrame: top } : m));
    }
    return Promise.resolve();
  };
})();`;

/** Substrings of the ids and classes of consent dialogs (generic words and the major CMPs' prefixes). */
const MARKERS = [
  'cookie',
  'consent',
  'gdpr',
  'onetrust',
  'didomi',
  'usercentrics',
  'truste',
  'cookiebot',
  'osano',
  'iubenda',
  'termly',
  'klaro',
  'borlabs',
  'cmplz',
  'qc-cmp',
  'sp_message',
  'privacy-manager',
  'cc-window',
];

/**
 * Whether the page shows something that looks like a consent dialog: an element whose id, class or
 * label names cookies, consent or a major CMP, that is fixed, sticky or modal itself, inside such a
 * container, or holding one. Cheap (no text scan), so pages without one skip autoconsent entirely.
 */
const PROBE = `(() => {
  const sel = ${JSON.stringify(
    MARKERS.flatMap((m) => [`[id*="${m}" i]`, `[class*="${m}" i]`])
      .concat([
        '[aria-label*="cookie" i]',
        '[aria-label*="consent" i]',
        'iframe[src*="consent" i]',
        'iframe[src*="privacy-mgmt" i]',
      ])
      .join(','),
  )};
  const boxed = (n) => n.tagName === 'DIALOG' || n.getAttribute('role') === 'dialog' ||
    n.getAttribute('aria-modal') === 'true' || /^(fixed|sticky)$/.test(getComputedStyle(n).position);
  let found;
  try { found = document.querySelectorAll(sel); } catch (e) { return false; }
  for (const el of Array.prototype.slice.call(found, 0, 50)) {
    if (el.shadowRoot) return true;
    for (let n = el, depth = 0; n && n.nodeType === 1 && depth < 12; n = n.parentElement, depth++) if (boxed(n)) return true;
    for (const d of Array.prototype.slice.call(el.querySelectorAll('*'), 0, 30)) if (boxed(d)) return true;
  }
  return false;
})()`;

interface BindingCalled {
  name: string;
  payload: string;
  executionContextId: number;
}

/**
 * Consent dialogs (blockAds): answered ("reject all" where the CMP offers it) by DuckDuckGo's
 * autoconsent and its rules for hundreds of CMPs. Started only on pages that show something like a
 * consent dialog once they have settled, so other pages pay one cheap probe.
 */
export class ConsentHandler {
  private constructor(
    private readonly rules: CompactRules,
    private readonly script: string,
  ) {}

  static load(): ConsentHandler {
    const rules = JSON.parse(fs.readFileSync(RULES_FILE, 'utf8')) as CompactRules;
    return new ConsentHandler(rules, `${SHIM}\n${fs.readFileSync(SCRIPT_FILE, 'utf8')}`);
  }

  /** Answers the page's consent dialogs, waiting at most `maxMs`; returns the CMPs whose dialog was answered. */
  async handle(page: Page, cdp: CDPSession, maxMs: number): Promise<string[]> {
    if (maxMs <= 0) return [];
    const probe = (await cdp.send('Runtime.evaluate', { expression: PROBE, returnByValue: true })) as {
      result?: { value?: unknown };
    };
    if (probe.result?.value !== true) return [];
    const run = new ConsentRun(this.rules, cdp);
    try {
      await run.start(page, this.script);
      return await run.settled(maxMs);
    } finally {
      run.stop();
    }
  }
}

/** One page's autoconsent instances (one per frame) and their messages. */
class ConsentRun {
  private readonly answered: string[] = [];
  private readonly states = new Map<string, { lifecycle: string; since: number }>();
  private inits = 0;
  private found = 0;
  private finished = 0;
  private wake?: () => void;
  private readonly listener = (e: BindingCalled) => {
    if (e.name !== BINDING) return;
    let msg: Message & { instanceId?: string; lifecycle?: string };
    try {
      msg = JSON.parse(e.payload) as typeof msg;
    } catch {
      return;
    }
    void this.onMessage(e.executionContextId, msg).finally(() => this.wake?.());
  };

  constructor(
    private readonly rules: CompactRules,
    private readonly cdp: CDPSession,
  ) {}

  async start(page: Page, script: string): Promise<void> {
    this.cdp.on('Runtime.bindingCalled', this.listener);
    await this.cdp.send('Runtime.enable');
    await this.cdp.send('Runtime.addBinding', { name: BINDING });
    await this.cdp.send('Runtime.evaluate', { expression: script });
    // Frames in the page's process got the binding too; CMPs such as Sourcepoint live in an iframe.
    const frames = page
      .frames()
      .filter((f) => f !== page.mainFrame())
      .slice(0, MAX_FRAMES - 1);
    await Promise.all(frames.map((f) => f.evaluate(script).catch(() => undefined)));
  }

  stop(): void {
    this.cdp.off('Runtime.bindingCalled', this.listener);
  }

  /** Resolves when every instance is finished (or its CMP showed no dialog in time), at most after `maxMs`. */
  async settled(maxMs: number): Promise<string[]> {
    const until = Date.now() + maxMs;
    while (Date.now() < until && !this.isSettled()) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(100, until - Date.now()));
        this.wake = done;
        function done() {
          clearTimeout(timer);
          resolve();
        }
      });
    }
    return [...this.answered];
  }

  private isSettled(): boolean {
    if (this.inits === 0) return false;
    if (this.found > this.finished) return false;
    if (this.states.size < this.inits) return false;
    const now = Date.now();
    return [...this.states.values()].every(
      (s) => FINAL.has(s.lifecycle) || (s.lifecycle === 'cmpDetected' && now - s.since >= POPUP_GRACE_MS),
    );
  }

  private async onMessage(contextId: number, msg: Message & { instanceId?: string; lifecycle?: string }) {
    switch (msg.type) {
      case 'init': {
        if (++this.inits > MAX_INITS_PER_JOB) return;
        const rules = filterCompactRules(this.rules, {
          url: String(msg.url ?? ''),
          mainFrame: msg.mainFrame === true,
        });
        await this.send(contextId, { type: 'initResp', config: CONFIG, rules: { compact: rules } });
        return;
      }
      case 'state':
        if (msg.instanceId && msg.lifecycle && !['loading', 'waitingForInitResponse'].includes(msg.lifecycle))
          this.states.set(msg.instanceId, { lifecycle: msg.lifecycle, since: Date.now() });
        return;
      case 'popupFound':
        this.found++;
        return;
      case 'optOutResult':
        if (msg.cmp && msg.result === true) this.answered.push(msg.cmp);
        return;
      case 'autoconsentDone':
      case 'autoconsentError':
        this.finished++;
        return;
      case 'eval': {
        // Rules that read a CMP's own JS API from a frame: the code comes from the rule set (or from
        // the page itself, which can run any script in its own world anyway).
        const result = await this.evaluate(contextId, String(msg.code));
        await this.send(contextId, { id: msg.id, type: 'evalResp', result: result ?? false });
        return;
      }
    }
  }

  private async evaluate(contextId: number, expression: string): Promise<unknown> {
    try {
      const r = (await this.cdp.send('Runtime.evaluate', {
        expression,
        contextId,
        returnByValue: true,
        awaitPromise: true,
      })) as { result?: { value?: unknown } };
      return r.result?.value;
    } catch {
      // The document went away (navigation, detached frame).
      return undefined;
    }
  }

  private async send(contextId: number, message: object): Promise<void> {
    await this.evaluate(
      contextId,
      `window.autoconsentReceiveMessage && void window.autoconsentReceiveMessage(${JSON.stringify(message)})`,
    );
  }
}
