import type { ScreenshotOptions } from '@wds/contracts';
import type { CDPSession, Page } from 'playwright-core';

/** Full-page captures beyond this height fail or take many seconds in Chromium; taller pages are cut. */
export const MAX_FULL_PAGE_HEIGHT = 16_384;

export interface Capture {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg';
}

interface LayoutMetrics {
  cssContentSize: { width: number; height: number };
}

/**
 * PNG, or JPEG when a quality is given; the viewport is resized first when one is named. Captured over
 * the DevTools protocol with `optimizeForSpeed` (faster zlib settings: a 1920×1080 PNG encodes in about
 * half the time, ~40% larger) instead of Playwright's screenshot, which first injects its helper
 * script and stylesheets into the page.
 */
export async function takeScreenshot(
  page: Page,
  cdp: CDPSession,
  opts: Partial<ScreenshotOptions>,
  timeout: number,
): Promise<Capture> {
  if (opts.viewport) await page.setViewportSize(opts.viewport);
  const jpeg = opts.quality !== undefined;
  let clip: { x: number; y: number; width: number; height: number; scale: number } | undefined;
  if (opts.fullPage) {
    const { cssContentSize } = (await cdp.send('Page.getLayoutMetrics')) as unknown as LayoutMetrics;
    clip = {
      x: 0,
      y: 0,
      width: Math.max(1, Math.ceil(cssContentSize.width)),
      height: Math.max(1, Math.min(Math.ceil(cssContentSize.height), MAX_FULL_PAGE_HEIGHT)),
      scale: 1,
    };
  }
  const capture = cdp.send('Page.captureScreenshot', {
    format: jpeg ? 'jpeg' : 'png',
    ...(jpeg ? { quality: opts.quality } : {}),
    optimizeForSpeed: true,
    captureBeyondViewport: clip !== undefined,
    ...(clip ? { clip } : {}),
  });
  const { data } = await withTimeout(capture, timeout, 'screenshot');
  return { data: Buffer.from(data, 'base64'), contentType: jpeg ? 'image/jpeg' : 'image/png' };
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timeout ${ms}ms exceeded during ${what}`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
