import type { Page } from 'playwright-core';
import type { AgentAction } from './actions';

/** What the loop needs from a browser tab (Playwright's Page in production, see PageAgentBrowser). */
export interface AgentBrowser {
  url(): string;
  title(): Promise<string>;
  /** The accessibility snapshot with element refs. */
  snapshot(timeoutMs: number): Promise<string>;
  /** Opens a URL the policy allowed. */
  open(url: string, timeoutMs: number): Promise<void>;
  /** Executes one action (never `finish`); resolves to a detail for the step log, throws when it failed. */
  perform(action: Exclude<AgentAction, { action: 'finish' }>, timeoutMs: number): Promise<string | undefined>;
  /** Stops watching the tab's context (the tab itself stays open). */
  release(): void;
}

/** Characters of text one extract step returns at most. */
export const EXTRACT_MAX_CHARS = 2000;
/** Time given to a page to settle after an action that may navigate or re-render. */
const SETTLE_MS = 400;
const SCROLL_PX = 600;

/**
 * The agent's hands on one Playwright page. Elements are reached only through the refs of the
 * latest AI snapshot (`page.getByRef`), so nothing outside this tab can be targeted. Every other
 * tab the context opens while the agent works (window.open, target=_blank, a script) is closed at
 * once: the agent never works in more than one tab.
 */
export class PageAgentBrowser implements AgentBrowser {
  /** Tabs closed while the agent worked. */
  popupsClosed = 0;
  private readonly onPage = (p: Page) => {
    if (p === this.page) return;
    this.popupsClosed++;
    void p.close().catch(() => undefined);
  };

  constructor(private readonly page: Page) {
    page.context().on('page', this.onPage);
  }

  url(): string {
    return this.page.url();
  }

  async title(): Promise<string> {
    return this.page.title().catch(() => '');
  }

  snapshot(timeoutMs: number): Promise<string> {
    return this.page.ariaSnapshot({ mode: 'ai', timeout: Math.max(1000, timeoutMs) });
  }

  async open(url: string, timeoutMs: number): Promise<void> {
    await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: Math.max(1000, timeoutMs) });
    await this.settle(timeoutMs);
  }

  async perform(
    action: Exclude<AgentAction, { action: 'finish' }>,
    timeoutMs: number,
  ): Promise<string | undefined> {
    const timeout = Math.max(1000, timeoutMs);
    const before = this.popupsClosed;
    const popupNote = () =>
      this.popupsClosed > before
        ? 'a new tab it opened was closed (one tab only): navigate to the link address instead'
        : undefined;
    switch (action.action) {
      case 'click':
        await this.page.getByRef(action.ref).click({ timeout });
        await this.settle(timeoutMs);
        return popupNote();
      case 'fill': {
        const field = this.page.getByRef(action.ref);
        await field.fill(action.text, { timeout });
        if (action.submit) {
          await field.press('Enter', { timeout });
          await this.settle(timeoutMs);
        }
        return popupNote();
      }
      case 'select': {
        const chosen = await this.page.getByRef(action.ref).selectOption(action.option, { timeout });
        await this.settle(timeoutMs);
        return chosen.length ? `selected ${chosen.join(', ').slice(0, 100)}` : undefined;
      }
      case 'press':
        await this.page.keyboard.press(action.key);
        await this.settle(timeoutMs);
        return popupNote();
      case 'scroll':
        await this.page.mouse.wheel(0, action.direction === 'down' ? SCROLL_PX : -SCROLL_PX);
        await this.page.waitForTimeout(Math.min(SETTLE_MS, timeout));
        return undefined;
      case 'navigate':
        await this.open(action.url, timeoutMs);
        return undefined;
      case 'wait':
        await this.page.waitForTimeout(Math.min(action.milliseconds, timeoutMs));
        return undefined;
      case 'extract': {
        const text = action.ref
          ? await this.page.getByRef(action.ref).innerText({ timeout })
          : await this.page.locator('body').innerText({ timeout });
        const clean = text
          .replace(/[ \t]+/g, ' ')
          .replace(/\n{3,}/g, '\n\n')
          .trim();
        return clean.length > EXTRACT_MAX_CHARS ? `${clean.slice(0, EXTRACT_MAX_CHARS)}…` : clean;
      }
    }
  }

  release(): void {
    this.page.context().off('page', this.onPage);
  }

  /** After an action: the document it may have started loading, then a short quiet time. */
  private async settle(timeoutMs: number): Promise<void> {
    const cap = Math.max(0, Math.min(5000, timeoutMs));
    await this.page.waitForLoadState('load', { timeout: cap }).catch(() => undefined);
    await this.page.waitForTimeout(Math.min(SETTLE_MS, cap)).catch(() => undefined);
  }
}
