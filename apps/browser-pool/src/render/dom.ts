import type { CDPSession } from 'playwright-core';

/**
 * The serialised document (doctype included) of the page's main frame, read natively by the DevTools
 * DOM agent: page scripts cannot alter what it returns (an overridden `outerHTML` getter has no effect)
 * and no helper script is injected into the page.
 */
export async function readHtml(cdp: CDPSession): Promise<string> {
  const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
  const { outerHTML } = await cdp.send('DOM.getOuterHTML', { nodeId: root.nodeId });
  return outerHTML;
}
