import type { BrandingColour } from '@wds/contracts';
import { allowedColours, describePalette } from './branding-roles';

const c = (color: string, over: Partial<BrandingColour> = {}): BrandingColour => ({
  color,
  text: 0,
  background: 0,
  border: 0,
  link: 0,
  button: 0,
  cssVariables: [],
  ...over,
});

describe('branding roles: the colours each role may take', () => {
  const palette = [
    c('#FFFFFF', { background: 5000 }),
    c('#111827', { text: 900 }),
    c('#FF5A1F', { button: 3 }),
    c('#2563EB', { link: 40, text: 40 }),
  ];
  const branding = { colors: { background: '#FFFFFF', textPrimary: '#111827' } };

  it('brand roles never get the page background or body text colour; link only link colours', () => {
    const a = allowedColours(palette, branding);
    expect(a.primary).toEqual(['#FF5A1F', '#2563EB']);
    expect(a.secondary).toEqual(a.primary);
    expect(a.accent).toEqual(a.primary);
    expect(a.link).toEqual(['#2563EB']);
    expect(a.error).toEqual(['#FFFFFF', '#111827', '#FF5A1F', '#2563EB']);
  });

  it('without link colours on the page, link may take any palette colour', () => {
    const a = allowedColours(palette.slice(0, 3), branding);
    expect(a.link).toEqual(['#FFFFFF', '#111827', '#FF5A1F']);
  });

  it('describes each colour by its uses, marking background and body text', () => {
    const text = describePalette(palette, branding);
    expect(text).toContain('#FFFFFF: background area 5000 (page background)');
    expect(text).toContain('#111827: text 900 chars (body text)');
    expect(text).toContain('#2563EB: text 40 chars, links 40 chars');
  });
});
