'use strict';
// The branding section of `npm run bench:llm`: the optional LLM naming of colour roles
// (apps/scraper formats/llm/branding-roles.ts, WDS_BRANDING_LLM) over palettes as browser-pool
// measures them, with the roles a designer would name. Prints roles named right / expected, colours
// returned that are not on the page (must be 0), p50 latency.
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const { BrandingRoles } = require(path.join(ROOT, 'apps/scraper/dist/scrape/formats/llm/branding-roles.js'));

const c = (color, over) => ({
  color,
  text: 0,
  background: 0,
  border: 0,
  link: 0,
  button: 0,
  cssVariables: [],
  ...over,
});

/** Measured palettes (the shape of browser-pool's brandingPalette) and the roles they should get. */
const CASES = [
  {
    name: 'orange brand, role variables',
    colors: { background: '#FFFFFF', textPrimary: '#111827' },
    palette: [
      c('#FFFFFF', { background: 5000, text: 20 }),
      c('#FF5A1F', { button: 3, text: 10, cssVariables: ['--color-primary'] }),
      c('#111827', { text: 180 }),
      c('#DC2626', { cssVariables: ['--danger'] }),
      c('#10B981', { cssVariables: ['--accent'] }),
      c('#2563EB', { text: 11, link: 11 }),
      c('#6B7280', { text: 52, cssVariables: ['--text-muted'] }),
      c('#D1D5DB', { border: 1 }),
    ],
    expected: { primary: '#FF5A1F', accent: '#10B981', link: '#2563EB', error: '#DC2626' },
  },
  {
    name: 'blue brand, state colours',
    colors: { background: '#FFFFFF', textPrimary: '#172B4D' },
    palette: [
      c('#FFFFFF', { background: 8000 }),
      c('#172B4D', { text: 2400 }),
      c('#0052CC', { button: 4, link: 300, text: 300, cssVariables: ['--brand-blue'] }),
      c('#36B37E', { cssVariables: ['--color-success'] }),
      c('#FFAB00', { cssVariables: ['--color-warning'] }),
      c('#DE350B', { cssVariables: ['--color-error'] }),
      c('#F4F5F7', { background: 900 }),
      c('#DFE1E6', { border: 12 }),
    ],
    expected: {
      primary: '#0052CC',
      link: '#0052CC',
      success: '#36B37E',
      warning: '#FFAB00',
      error: '#DE350B',
    },
  },
  {
    name: 'purple buttons, no variables',
    colors: { background: '#F8FAFC', textPrimary: '#1F2937' },
    palette: [
      c('#F8FAFC', { background: 6000 }),
      c('#1F2937', { text: 3100 }),
      c('#6D28D9', { button: 5, link: 120, text: 120 }),
      c('#FFFFFF', { text: 60, background: 400 }),
      c('#9CA3AF', { text: 200, border: 8 }),
      c('#F59E0B', { background: 40, text: 12 }),
    ],
    expected: { primary: '#6D28D9', link: '#6D28D9' },
  },
];

async function benchBranding(llm, say) {
  const roles = new BrandingRoles(llm);
  let right = 0;
  let total = 0;
  let invented = 0;
  const ms = [];
  say('');
  say(`branding colour roles: ${CASES.length} palettes`);
  for (const k of CASES) {
    const t0 = performance.now();
    const r = await roles.execute({
      branding: { colors: k.colors },
      palette: k.palette,
      url: 'https://example.com/',
      signal: AbortSignal.timeout(600_000),
    });
    ms.push(performance.now() - t0);
    const got = r.branding.colors ?? {};
    const onPage = new Set(k.palette.map((p) => p.color));
    invented += Object.values(got).filter((v) => !onPage.has(v)).length;
    const ok = Object.entries(k.expected).filter(([role, v]) => got[role] === v).length;
    right += ok;
    total += Object.keys(k.expected).length;
    say(
      `  ${k.name.padEnd(30)} ${ok}/${Object.keys(k.expected).length}  ${JSON.stringify(r.named)}${r.warnings.length ? `  warnings: ${r.warnings.join(' ')}` : ''}`,
    );
  }
  const sorted = [...ms].sort((a, b) => a - b);
  say(`branding roles named as expected: ${right}/${total}; colours not on the page: ${invented}`);
  say(`p50 latency branding roles ${(sorted[sorted.length >> 1] / 1000).toFixed(1)} s (n=${ms.length})`);
}

module.exports = { benchBranding };
