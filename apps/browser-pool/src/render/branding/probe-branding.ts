import { Branding, BrandingColour, ServiceError } from '@wds/contracts';
import { z } from 'zod';
import type { CDPSession } from 'playwright-core';
import { BRANDING_PROBE } from './branding-probe';

/**
 * The branding profile of the page in its current state, computed by {@link BRANDING_PROBE} in an
 * isolated world of the main frame (the page's own scripts share the DOM but not the probe's globals,
 * so an overridden `getComputedStyle` or prototype cannot steer it).
 */
export async function probeBranding(
  cdp: CDPSession,
  timeoutMs: number,
): Promise<{ branding: Branding; palette: BrandingColour[] }> {
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const { executionContextId } = await cdp.send('Page.createIsolatedWorld', {
    frameId: frameTree.frame.id,
    worldName: 'wds-branding',
  });
  const res = await cdp.send('Runtime.evaluate', {
    expression: BRANDING_PROBE,
    contextId: executionContextId,
    returnByValue: true,
    timeout: Math.max(100, timeoutMs),
  });
  if (res.exceptionDetails) {
    const why = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text;
    throw new ServiceError('UPSTREAM_FAILED', `The branding of the page could not be computed: ${why}`, {
      reason: 'branding',
    });
  }
  const { palette: rawPalette, ...profile } = (res.result.value ?? {}) as { palette?: unknown };
  const parsed = Branding.safeParse(profile);
  const palette = z
    .array(BrandingColour)
    .max(16)
    .safeParse(rawPalette ?? []);
  if (!parsed.success) {
    throw new ServiceError(
      'INTERNAL',
      `The branding probe returned an unexpected shape: ${parsed.error.message}`,
    );
  }
  if (!palette.success) {
    throw new ServiceError(
      'INTERNAL',
      `The branding probe returned an unexpected palette: ${palette.error.message}`,
    );
  }
  return { branding: parsed.data, palette: palette.data };
}
