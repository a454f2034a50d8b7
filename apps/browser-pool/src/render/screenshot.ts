import type { ScreenshotOptions } from '@wds/contracts';
import type { Page } from 'playwright-core';

/** Full-page captures beyond this height fail or take many seconds in Chromium; taller pages are cut. */
export const MAX_FULL_PAGE_HEIGHT = 16_384;

export interface Capture {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg';
}

/** PNG, or JPEG when a quality is given; the viewport is resized first when one is named. */
export async function takeScreenshot(
  page: Page,
  opts: Partial<ScreenshotOptions>,
  timeout: number,
): Promise<Capture> {
  if (opts.viewport) await page.setViewportSize(opts.viewport);
  const type = opts.quality !== undefined ? 'jpeg' : 'png';
  let clip: { x: number; y: number; width: number; height: number } | undefined;
  if (opts.fullPage) {
    const size = (await page.evaluate(
      '({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight })',
    )) as { width: number; height: number };
    if (size.height > MAX_FULL_PAGE_HEIGHT)
      clip = { x: 0, y: 0, width: size.width, height: MAX_FULL_PAGE_HEIGHT };
  }
  const data = await page.screenshot({
    type,
    quality: opts.quality,
    fullPage: opts.fullPage ?? false,
    clip,
    timeout,
    animations: 'disabled',
    caret: 'hide',
  });
  return { data, contentType: type === 'png' ? 'image/png' : 'image/jpeg' };
}
