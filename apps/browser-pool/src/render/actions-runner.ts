import { ServiceError, type PageAction } from '@wds/contracts';
import type { Page } from 'playwright-core';
import { sleep, type Deadline } from './deadline';
import { readHtml } from './dom';
import type { JobContext } from './job-context';
import { takeScreenshot, type Capture } from './screenshot';

/** Sum of every `wait` action's milliseconds plus `waitFor`, so a request cannot park a context. */
export const MAX_TOTAL_WAIT_MS = 60_000;

export interface ActionResultsRaw {
  screenshots: Capture[];
  scrapes: { url: string; html: string }[];
  javascriptReturns: { type: string; value: unknown }[];
  pdfs: Buffer[];
}

/** BAD_REQUEST naming the limit when the waits of a request add up to more than allowed. */
export function checkActionLimits(actions: readonly PageAction[], waitFor: number): void {
  const waits = actions.reduce((s, a) => s + (a.type === 'wait' ? (a.milliseconds ?? 0) : 0), waitFor);
  if (waits > MAX_TOTAL_WAIT_MS) {
    throw new ServiceError(
      'BAD_REQUEST',
      `waitFor and wait actions add up to ${waits} ms; at most ${MAX_TOTAL_WAIT_MS} ms are allowed`,
      { field: 'actions' },
    );
  }
}

/**
 * The page, and its raw DevTools session when the actions capture (screenshot, scrape): the
 * page-changing ones need none (an interact replay runs without one).
 */
export type ActionTarget = Pick<JobContext, 'page'> & Partial<Pick<JobContext, 'cdp'>>;

function devtools(job: ActionTarget): JobContext['cdp'] {
  if (!job.cdp) throw new Error('this action needs the page DevTools session');
  return job.cdp;
}

/** Runs Firecrawl v2 actions in order; a failing action stops the run with an error naming its index. */
export async function runActions(
  job: ActionTarget,
  actions: readonly PageAction[],
  deadline: Deadline,
): Promise<ActionResultsRaw> {
  const out: ActionResultsRaw = { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
  for (const [index, action] of actions.entries()) {
    try {
      await runAction(job, action, deadline, out);
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'SCRAPE_TIMEOUT') throw err;
      if (deadline.remaining() <= 0) {
        throw new ServiceError('SCRAPE_TIMEOUT', `Render timed out during action ${index} (${action.type})`, {
          actionIndex: index,
        });
      }
      const reason = (err as Error).message.split('\n')[0];
      throw new ServiceError('BAD_REQUEST', `Action ${index} (${action.type}) failed: ${reason}`, {
        field: 'actions',
        actionIndex: index,
        actionType: action.type,
      });
    }
  }
  return out;
}

async function runAction(
  job: ActionTarget,
  a: PageAction,
  deadline: Deadline,
  out: ActionResultsRaw,
): Promise<void> {
  const { page } = job;
  const timeout = () => deadline.budget(`action ${a.type}`);
  switch (a.type) {
    case 'wait':
      if (a.selector !== undefined)
        await page.waitForSelector(a.selector, { state: 'visible', timeout: timeout() });
      else await sleep(Math.min(a.milliseconds ?? 0, timeout()));
      return;
    case 'click':
      if (a.all) {
        const targets = await page.locator(a.selector).all();
        if (targets.length === 0) throw new Error(`no element matches ${a.selector}`);
        for (const t of targets) await t.click({ timeout: timeout() });
      } else {
        await page.locator(a.selector).first().click({ timeout: timeout() });
      }
      return;
    case 'write':
      await page.keyboard.type(a.text);
      return;
    case 'press':
      await page.keyboard.press(a.key);
      return;
    case 'scroll':
      await scroll(page, a.direction, a.selector, timeout());
      return;
    case 'screenshot':
      out.screenshots.push(await takeScreenshot(page, devtools(job), a, timeout()));
      return;
    case 'scrape':
      out.scrapes.push({ url: page.url(), html: await readHtml(devtools(job)) });
      return;
    case 'executeJavascript':
      out.javascriptReturns.push(await executeScript(page, a.script));
      return;
    case 'pdf':
      out.pdfs.push(
        await page.pdf({
          format: a.format ?? 'Letter',
          landscape: a.landscape ?? false,
          scale: a.scale ?? 1,
          printBackground: true,
        }),
      );
      return;
  }
}

async function scroll(page: Page, direction: 'up' | 'down', selector: string | undefined, timeout: number) {
  const sign = direction === 'up' ? -1 : 1;
  if (selector === undefined) {
    await page.evaluate(`window.scrollBy(0, ${sign} * window.innerHeight)`);
    return;
  }
  await page.locator(selector).first().waitFor({ state: 'attached', timeout });
  // In-page code as source text: this project compiles without DOM typings.
  await page.evaluate(`(() => {
    const node = document.querySelector(${JSON.stringify(selector)});
    if (node) node.scrollBy(0, ${sign} * (node.clientHeight || window.innerHeight));
  })()`);
}

/**
 * Runs a script as an expression (`document.title`), or, when that is not valid syntax, as the body of
 * an async function (`const a = 1; return a`). Evaluated over the DevTools protocol, so the page's CSP
 * does not block it. Returns Firecrawl's `{type, value}` with a JSON-compatible value.
 */
async function executeScript(page: Page, script: string): Promise<{ type: string; value: unknown }> {
  let value: unknown;
  try {
    value = await page.evaluate(`(${script}\n)`);
  } catch (err) {
    if (!/SyntaxError/.test((err as Error).message)) throw err;
    value = await page.evaluate(`(async () => {\n${script}\n})()`);
  }
  return {
    type: value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value,
    value: value ?? null,
  };
}
