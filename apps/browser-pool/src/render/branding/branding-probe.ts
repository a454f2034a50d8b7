/**
 * In-page source of the branding probe (run in an isolated world of the page's main frame, so page
 * scripts cannot tamper with the DOM APIs it uses). It reads computed styles of the rendered page
 * and returns the branding profile: deterministic for a given page (document order breaks every tie).
 * Kept as source text: this project compiles without DOM typings.
 *
 * Colours are '#RRGGBB' (canvas-normalised, so any CSS colour syntax works; translucent colours are
 * blended over the page background). Roles come from, in order: the page's CSS custom properties
 * named after the role (`--primary`, `--color-accent`, `--danger`...), its buttons (the most used
 * filled button style is primary), then the most used saturated colours. Keys never get null values
 * (the Python SDK types them as strings): a role that cannot be determined is left out.
 * Beside the profile it returns `palette` (the page's colours with where each is used, at most 16),
 * which {@link probeBranding} hands back separately: it is input for the optional LLM naming of
 * colour roles in the scraper, not part of the public profile.
 */
export const BRANDING_PROBE = String.raw`(() => {
  const MAX_ELEMENTS = 4000;
  const doc = document, root = doc.documentElement, body = doc.body || root;
  const canvas = doc.createElement('canvas'); canvas.width = 1; canvas.height = 1;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const rgbaCache = new Map();
  const rgba = (c) => {
    if (!c || c === 'transparent' || c === 'none') return null;
    if (rgbaCache.has(c)) return rgbaCache.get(c);
    let out = null;
    try {
      ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = '#000000'; ctx.fillStyle = c;
      ctx.fillRect(0, 0, 1, 1);
      const d = ctx.getImageData(0, 0, 1, 1).data;
      out = d[3] === 0 ? null : [d[0], d[1], d[2], d[3] / 255];
    } catch (e) { out = null; }
    rgbaCache.set(c, out); return out;
  };
  const hex = (v) => '#' + v.slice(0, 3).map((n) => Math.round(n).toString(16).padStart(2, '0')).join('').toUpperCase();
  const blend = (fg, bg) => [0, 1, 2].map((i) => fg[i] * fg[3] + bg[i] * (1 - fg[3]));
  const sat = (v) => { const mx = Math.max(v[0], v[1], v[2]) / 255, mn = Math.min(v[0], v[1], v[2]) / 255; return mx === 0 ? 0 : (mx - mn) / mx; };
  const lum = (v) => { const f = (n) => { n /= 255; return n <= 0.03928 ? n / 12.92 : Math.pow((n + 0.055) / 1.055, 2.4); }; return 0.2126 * f(v[0]) + 0.7152 * f(v[1]) + 0.0722 * f(v[2]); };
  const cs = (el) => getComputedStyle(el);
  const visible = (el) => { const s = cs(el); if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0) return false; const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const abs = (u) => { if (!u) return null; try { const x = new URL(u, doc.baseURI); return /^(https?|data):$/.test(x.protocol) ? x.href : null; } catch (e) { return null; } };
  const family = (f) => (f || '').split(',')[0].trim().replace(/^["']|["']$/g, '');
  const px = (v) => { const n = parseFloat(v); return isFinite(n) ? n : 0; };
  const tally = (m, k, w) => { if (k === null || k === undefined || k === '') return; m.set(k, (m.get(k) || 0) + w); };
  const ranked = (m) => Array.from(m.entries()).map((e, i) => [e[0], e[1], i]).sort((a, b) => b[1] - a[1] || a[2] - b[2]).map((e) => e[0]);

  let pageBg = null;
  for (const el of [body, root]) { const c = rgba(cs(el).backgroundColor); if (c) { pageBg = blend(c, [255, 255, 255, 1]); break; } }
  if (!pageBg) pageBg = [255, 255, 255];
  const solid = (c) => { const v = rgba(c); return v ? hex(blend(v, pageBg.concat([1]))) : null; };
  const solidV = (c) => { const v = rgba(c); return v ? blend(v, pageBg.concat([1])) : null; };
  const bgHex = hex(pageBg);

  const textColors = new Map(), fonts = new Map(), weights = new Map(), saturated = new Map(), spacings = new Map();
  const linkColors = new Map(), bgAreas = new Map(), borderColors = new Map();
  const all = body.querySelectorAll('*');
  const n = Math.min(all.length, MAX_ELEMENTS);
  for (let i = 0; i < n; i++) {
    const el = all[i];
    if (/^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|META|LINK|BR)$/.test(el.tagName)) continue;
    if (!visible(el)) continue;
    const s = cs(el);
    let text = 0;
    for (const node of el.childNodes) if (node.nodeType === 3) text += node.textContent.trim().length;
    if (text > 0) {
      const c = solid(s.color);
      tally(textColors, c, text);
      tally(fonts, family(s.fontFamily), text);
      tally(weights, Number(s.fontWeight) || 400, text);
      if (el.closest('a')) tally(linkColors, c, text);
      const cv = solidV(s.color); if (cv && sat(cv) > 0.35) tally(saturated, c, text);
    }
    const bg = solidV(s.backgroundColor);
    if (bg && el !== body) {
      const r = el.getBoundingClientRect();
      const area = Math.min(r.width * r.height, 200000) / 100;
      if (sat(bg) > 0.35) tally(saturated, hex(bg), area);
      tally(bgAreas, hex(bg), area);
    }
    if (px(s.borderTopWidth) > 0 && s.borderTopStyle !== 'none') tally(borderColors, solid(s.borderTopColor), 1);
    for (const v of [s.paddingTop, s.paddingLeft, s.marginTop, s.marginBottom]) { const p = Math.round(px(v)); if (p > 0 && p <= 128) tally(spacings, p, 1); }
  }

  const buttonSel = 'button, input[type=submit], input[type=button], [role=button], a[class*=btn], a[class*=button], a[class*=Button], a[class*=cta]';
  const buttons = [];
  for (const el of Array.from(doc.querySelectorAll(buttonSel)).slice(0, 300)) {
    if (!visible(el)) continue;
    const s = cs(el);
    const bgv = solidV(s.backgroundColor);
    const bw = px(s.borderTopWidth);
    buttons.push({
      background: bgv ? hex(bgv) : 'transparent',
      filled: !!bgv && hex(bgv) !== bgHex,
      saturation: bgv ? sat(bgv) : 0,
      textColor: solid(s.color) || '#000000',
      borderColor: bw > 0 && s.borderTopStyle !== 'none' ? solid(s.borderTopColor) : null,
      borderRadius: s.borderTopLeftRadius || '0px',
      padding: s.paddingTop + ' ' + s.paddingRight,
      transition: { duration: s.transitionDuration, easing: s.transitionTimingFunction },
    });
  }
  const styleKey = (b) => b.background + '|' + b.textColor + '|' + b.borderColor;
  const styleCount = new Map();
  for (const b of buttons) tally(styleCount, styleKey(b), 1);
  const filled = buttons.map((b, i) => [b, i]).filter((e) => e[0].filled)
    .sort((a, b) => (Number(b[0].saturation > 0.2) - Number(a[0].saturation > 0.2)) || (styleCount.get(styleKey(b[0])) - styleCount.get(styleKey(a[0]))) || a[1] - b[1])
    .map((e) => e[0]);
  const primaryButton = filled[0];
  const secondaryButton = buttons.find((b) => primaryButton ? styleKey(b) !== styleKey(primaryButton) : !b.filled);

  // Colours the page's own stylesheet names by role (custom properties on :root).
  const roleVars = {};
  const ROLES = { primary: /primary/, secondary: /secondary/, accent: /accent/, success: /success/, warning: /warn/, error: /error|danger/ };
  const names = new Set();
  for (const sheet of Array.from(doc.styleSheets)) {
    let rules; try { rules = sheet.cssRules; } catch (e) { continue; }
    for (const rule of Array.from(rules || [])) {
      if (!rule.style || !/^(:root|html)$/.test((rule.selectorText || '').trim())) continue;
      for (const prop of Array.from(rule.style)) if (prop.startsWith('--')) names.add(prop);
    }
  }
  const rootStyle = cs(root);
  for (const name of Array.from(names).sort((a, b) => a.length - b.length || (a < b ? -1 : 1))) {
    const lower = name.toLowerCase();
    if (/text|foreground|fg|border|shadow|hover|light|dark|muted/.test(lower)) continue;
    for (const role of Object.keys(ROLES)) {
      if (roleVars[role] || !ROLES[role].test(lower)) continue;
      const c = solid(rootStyle.getPropertyValue(name).trim());
      if (c) roleVars[role] = c;
    }
  }

  const texts = ranked(textColors);
  const sats = ranked(saturated);
  const colors = {};
  const put = (k, v) => { if (v) colors[k] = v; };
  put('primary', roleVars.primary || (primaryButton && primaryButton.background) || sats[0] || ranked(linkColors)[0]);
  put('secondary', roleVars.secondary || (secondaryButton && (secondaryButton.filled ? secondaryButton.background : secondaryButton.borderColor)) || sats.find((c) => c !== colors.primary));
  put('accent', roleVars.accent || sats.find((c) => c !== colors.primary && c !== colors.secondary));
  put('background', bgHex);
  put('textPrimary', texts[0] || solid(cs(body).color));
  put('textSecondary', texts.find((c) => c !== colors.textPrimary && c !== colors.primary));
  put('link', ranked(linkColors)[0]);
  put('success', roleVars.success); put('warning', roleVars.warning); put('error', roleVars.error);

  const first = (sel) => { for (const el of doc.querySelectorAll(sel)) if (visible(el)) return el; return null; };
  const bodyStyle = cs(body);
  const h = [first('h1'), first('h2'), first('h3')];
  const para = first('p') || body;
  const ratio = (el) => { const s = cs(el); const fs = px(s.fontSize); return s.lineHeight === 'normal' || !fs ? 1.2 : Math.round((px(s.lineHeight) / fs) * 100) / 100; };
  const fontSizes = { body: bodyStyle.fontSize };
  ['h1', 'h2', 'h3'].forEach((k, i) => { if (h[i]) fontSizes[k] = cs(h[i]).fontSize; });
  const fontFamilies = { primary: family(bodyStyle.fontFamily) || ranked(fonts)[0] || 'serif' };
  const headingEl = h[0] || h[1] || h[2];
  fontFamilies.heading = headingEl ? family(cs(headingEl).fontFamily) : fontFamilies.primary;
  const codeEl = first('code, pre, kbd, samp');
  if (codeEl) fontFamilies.code = family(cs(codeEl).fontFamily);
  const used = Array.from(weights.keys()).sort((a, b) => a - b);
  const fontWeights = { regular: Number(bodyStyle.fontWeight) || 400 };
  const heavier = used.filter((w) => w >= 600);
  const headingWeights = h.filter(Boolean).map((el) => Number(cs(el).fontWeight) || 700);
  const bold = Math.max.apply(null, heavier.concat(headingWeights.filter((w) => w >= 600)).concat([0]));
  if (bold > 0) fontWeights.bold = bold;
  const medium = used.find((w) => w >= 500 && w < 600); if (medium) fontWeights.medium = medium;
  const light = used.find((w) => w < 400); if (light) fontWeights.light = light;
  const lineHeights = { body: ratio(para) }; if (headingEl) lineHeights.heading = ratio(headingEl);

  const spacingValues = ranked(spacings);
  let baseUnit = 4;
  for (const unit of [8, 6, 5, 4, 2]) {
    const total = spacingValues.length ? Array.from(spacings.values()).reduce((a, b) => a + b, 0) : 0;
    const hits = Array.from(spacings.entries()).filter((e) => e[0] % unit === 0).reduce((a, e) => a + e[1], 0);
    if (total > 0 && hits / total >= 0.6) { baseUnit = unit; break; }
  }
  const input = first('input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=checkbox]):not([type=radio]), textarea, select');
  const inputStyle = input ? cs(input) : null;
  const radii = new Map();
  for (const b of buttons) if (b.borderRadius !== '0px') tally(radii, b.borderRadius, 1);
  if (inputStyle && inputStyle.borderTopLeftRadius !== '0px') tally(radii, inputStyle.borderTopLeftRadius, 1);

  const meta = (sel) => { const el = doc.querySelector(sel); return el ? el.getAttribute('content') : null; };
  const link = (sel) => { const el = doc.querySelector(sel); return el ? abs(el.getAttribute('href')) : null; };
  const favicon = link('link[rel~="icon" i]') || link('link[rel="shortcut icon" i]');
  const ogImage = abs(meta('meta[property="og:image"]') || meta('meta[name="og:image"]') || meta('meta[name="twitter:image"]'));
  const logoEl = (() => {
    const cands = Array.from(doc.querySelectorAll('img, svg')).filter(visible);
    const hint = (el) => [el.getAttribute('src'), el.getAttribute('alt'), el.getAttribute('class'), el.id, el.parentElement && el.parentElement.getAttribute('class'), el.parentElement && el.parentElement.id, el.closest('a') && el.closest('a').getAttribute('aria-label')].join(' ');
    return cands.find((el) => /logo|brand/i.test(hint(el)))
      || cands.find((el) => el.closest('header, nav, [role=banner]') && el.closest('a') && /^\/?$|^https?:\/\/[^/]+\/?$/.test(el.closest('a').getAttribute('href') || 'x'))
      || null;
  })();
  let logo = null;
  if (logoEl && logoEl.tagName.toLowerCase() === 'img') logo = abs(logoEl.currentSrc || logoEl.getAttribute('src'));
  else if (logoEl) { const svg = new XMLSerializer().serializeToString(logoEl); if (svg.length <= 50000) logo = 'data:image/svg+xml;base64,' + btoa(unescape(encodeURIComponent(svg))); }

  const icons = {};
  if (favicon) icons.favicon = favicon;
  const apple = link('link[rel~="apple-touch-icon" i]'); if (apple) icons.appleTouchIcon = apple;
  const mask = link('link[rel="mask-icon" i]'); if (mask) icons.maskIcon = mask;

  const out = {
    colorScheme: lum(pageBg) < 0.4 ? 'dark' : 'light',
    colors,
    fonts: ranked(fonts).slice(0, 6).map((f) => ({ family: f })),
    typography: { fontFamilies, fontSizes, fontWeights, lineHeights },
    spacing: {
      baseUnit,
      borderRadius: ranked(radii)[0] || '0px',
      padding: {},
      margins: {},
    },
    components: {},
    icons,
    images: { logo, favicon, ogImage },
    animations: {},
    layout: {},
  };
  // The colours the page uses, with where they are used: what an optional LLM pass may assign roles
  // among (it never sees, and so can never return, a colour that is not on the page).
  const palette = new Map();
  const use = (c, k, w) => { if (!c) return; const e = palette.get(c) || { color: c, text: 0, background: 0, border: 0, link: 0, button: 0, cssVariables: [] }; e[k] += w; palette.set(c, e); };
  for (const [c, w] of textColors) use(c, 'text', Math.round(w));
  for (const [c, w] of bgAreas) use(c, 'background', Math.round(w));
  for (const [c, w] of borderColors) use(c, 'border', Math.round(w));
  for (const [c, w] of linkColors) use(c, 'link', Math.round(w));
  for (const b of buttons) { if (b.filled) use(b.background, 'button', 1); if (b.borderColor) use(b.borderColor, 'button', 1); }
  use(bgHex, 'background', 1);
  for (const name of Array.from(names).sort()) {
    const c = solid(rootStyle.getPropertyValue(name).trim());
    if (c && /colou?r|primary|secondary|accent|brand|success|warn|error|danger|info|link|bg|background/i.test(name)) { use(c, 'text', 0); const e = palette.get(c); if (e.cssVariables.length < 4) e.cssVariables.push(name); }
  }
  const weight = (e) => e.text / 10 + e.background / 50 + e.border + e.link + e.button * 20 + e.cssVariables.length * 50 + (e.color === bgHex ? 1000 : 0);
  out.palette = Array.from(palette.values()).map((e, i) => [e, weight(e), i]).sort((a, b) => b[1] - a[1] || a[2] - b[2]).slice(0, 16).map((x) => x[0]);
  const brandName = meta('meta[property="og:site_name"]') || meta('meta[name="application-name"]');
  if (brandName) out.brandName = brandName.trim();
  if (logo) out.logo = logo;
  if (primaryButton) {
    out.components.buttonPrimary = { background: primaryButton.background, textColor: primaryButton.textColor, borderRadius: primaryButton.borderRadius };
    out.spacing.padding.button = primaryButton.padding;
    if (primaryButton.transition.duration && primaryButton.transition.duration !== '0s') {
      out.animations.transitionDuration = primaryButton.transition.duration;
      out.animations.transitionEasing = primaryButton.transition.easing;
    }
  }
  if (secondaryButton) {
    out.components.buttonSecondary = { background: secondaryButton.background, textColor: secondaryButton.textColor, borderColor: secondaryButton.borderColor || secondaryButton.background, borderRadius: secondaryButton.borderRadius };
  }
  if (inputStyle) {
    out.components.input = { background: solid(inputStyle.backgroundColor) || 'transparent', textColor: solid(inputStyle.color) || colors.textPrimary, borderColor: solid(inputStyle.borderTopColor) || 'transparent', borderRadius: inputStyle.borderTopLeftRadius };
    out.spacing.padding.input = inputStyle.paddingTop + ' ' + inputStyle.paddingRight;
  }
  if (para !== body) out.spacing.margins.paragraph = cs(para).marginBottom;
  if (headingEl) out.spacing.margins.heading = cs(headingEl).marginBottom;
  const header = first('header, [role=banner]');
  if (header) out.layout.headerHeight = Math.round(header.getBoundingClientRect().height) + 'px';
  const container = first('main, [role=main], .container, #content');
  if (container) { const mw = cs(container).maxWidth; out.layout.contentMaxWidth = mw === 'none' ? Math.round(container.getBoundingClientRect().width) + 'px' : mw; }
  return out;
})()`;
