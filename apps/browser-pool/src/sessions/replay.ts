import type { PageAction, ReplayContext } from '@wds/contracts';
import type { Page } from 'playwright-core';
import { runActions } from '../render/actions-runner';
import { Deadline, sleep } from '../render/deadline';
import type { StorageState } from '../render/context-options';

/** Actions that change the page; executeJavascript is never replayed, captures need no replay. */
const REPLAYED = new Set<PageAction['type']>(['wait', 'click', 'write', 'press', 'scroll']);

/**
 * Brings a fresh session page to the state of the scrape it was made for: its profile's cookies,
 * its headers, the URL, waitFor and the page-changing actions, within `timeoutMs`.
 */
export async function replayScrape(
  page: Page,
  context: ReplayContext,
  state: StorageState | undefined,
  timeoutMs: number,
): Promise<void> {
  const deadline = new Deadline(Date.now() + timeoutMs);
  if (state?.cookies?.length) await page.context().addCookies(state.cookies);
  if (context.options.headers) await page.setExtraHTTPHeaders(context.options.headers);
  await page.goto(context.url, { waitUntil: 'load', timeout: deadline.budget('navigation') });
  if (context.options.waitFor > 0) await sleep(Math.min(context.options.waitFor, deadline.remaining()));
  const actions = context.actions.filter((a) => REPLAYED.has(a.type));
  // Page-changing actions only: no DevTools session of its own is needed (nor attached).
  if (actions.length) await runActions({ page }, actions, deadline);
}
