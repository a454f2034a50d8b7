import { randomBytes } from 'node:crypto';
import { LiveViewInput, liveViewModeOf, liveViewToken } from './live-view';

describe('live-view tokens', () => {
  const token = randomBytes(32).toString('base64url');

  it('derives two distinct 43-character tokens that reveal neither the session token nor each other', () => {
    const view = liveViewToken(token, 'view');
    const interactive = liveViewToken(token, 'interactive');
    expect(view).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(interactive).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set([token, view, interactive]).size).toBe(3);
    expect(liveViewToken(token, 'view')).toBe(view);
    expect(liveViewToken(randomBytes(32).toString('base64url'), 'view')).not.toBe(view);
  });

  it('tells which view a token opens; the session token itself and other strings open none', () => {
    expect(liveViewModeOf(token, liveViewToken(token, 'view'))).toBe('view');
    expect(liveViewModeOf(token, liveViewToken(token, 'interactive'))).toBe('interactive');
    expect(liveViewModeOf(token, token)).toBeUndefined();
    expect(liveViewModeOf(token, '')).toBeUndefined();
    expect(liveViewModeOf(token, liveViewToken(`${token}x`, 'view'))).toBeUndefined();
  });

  it('accepts only the whitelisted input shapes', () => {
    expect(LiveViewInput.safeParse({ type: 'mousePressed', x: 1, y: 2, button: 'left' }).success).toBe(true);
    expect(LiveViewInput.safeParse({ type: 'insertText', text: 'hi' }).success).toBe(true);
    expect(LiveViewInput.safeParse({ method: 'Runtime.evaluate', params: {} }).success).toBe(false);
    expect(LiveViewInput.safeParse({ type: 'dispatchMouseEvent', x: 1, y: 2 }).success).toBe(false);
    expect(LiveViewInput.safeParse({ type: 'insertText', text: 'x'.repeat(1001) }).success).toBe(false);
  });
});
