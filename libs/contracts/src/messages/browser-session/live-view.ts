import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/*
 * Live views of a browser session (docs/adr/0008-browser-sessions.md, amendment "live views").
 * Their tokens are derived from the session's secret token, so nothing more is stored and every
 * holder of the session token (the replica, the resolve RPC) can check them; a view token reveals
 * neither the CDP token nor the other view's token (HMAC-SHA256 is one-way).
 */

export const LiveViewMode = z.enum(['view', 'interactive']);
export type LiveViewMode = z.output<typeof LiveViewMode>;

const LABEL: Record<LiveViewMode, string> = { view: 'wds-live-view:ro', interactive: 'wds-live-view:rw' };

/** The live-view token of a session for one mode (43 base64url characters). */
export function liveViewToken(sessionToken: string, mode: LiveViewMode): string {
  return createHmac('sha256', sessionToken).update(LABEL[mode]).digest('base64url');
}

/** Whether two secret tokens are equal, compared in constant time (for equal lengths). */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Which view `token` opens for the session whose secret is `sessionToken` (constant-time), if any. */
export function liveViewModeOf(sessionToken: string, token: string): LiveViewMode | undefined {
  for (const mode of LiveViewMode.options) {
    if (sameToken(liveViewToken(sessionToken, mode), token)) return mode;
  }
  return undefined;
}

/*
 * What a viewer may send on the view WebSocket (JSON text messages). Only the interactive view's
 * messages are acted on, and only these shapes: each maps to one CDP Input call, nothing else is
 * ever executed. Coordinates are CSS pixels of the page's viewport.
 */
const coord = z.number().finite().min(-10_000).max(100_000);
const modifiers = z.int().min(0).max(15).default(0);
export const LiveViewInput = z.discriminatedUnion('type', [
  z.object({
    type: z.enum(['mousePressed', 'mouseReleased', 'mouseMoved']),
    x: coord,
    y: coord,
    button: z.enum(['none', 'left', 'middle', 'right']).default('none'),
    clickCount: z.int().min(0).max(3).default(0),
    modifiers,
  }),
  z.object({
    type: z.literal('mouseWheel'),
    x: coord,
    y: coord,
    deltaX: z.number().finite().min(-10_000).max(10_000),
    deltaY: z.number().finite().min(-10_000).max(10_000),
    modifiers,
  }),
  z.object({
    type: z.enum(['keyDown', 'keyUp']),
    key: z.string().max(32),
    code: z.string().max(32).default(''),
    keyCode: z.int().min(0).max(255).default(0),
    modifiers,
  }),
  z.object({ type: z.literal('insertText'), text: z.string().min(1).max(1000) }),
]);
export type LiveViewInput = z.output<typeof LiveViewInput>;
