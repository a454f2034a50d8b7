import type { Branding, BrandingColour } from '@wds/contracts';
import type { LlmPort, LlmUsage } from '@wds/llm';

/** The roles the model may name; background and text colours stay as measured (page facts). */
export const NAMED_ROLES = ['primary', 'secondary', 'accent', 'link', 'success', 'warning', 'error'] as const;
type Role = (typeof NAMED_ROLES)[number];

const NONE = 'none';

/** The brand's personality the model may name (Firecrawl's `personality{tone, energy, targetAudience}`). */
export const TONES = [
  'professional',
  'friendly',
  'playful',
  'technical',
  'luxurious',
  'authoritative',
  'casual',
  'bold',
  'calm',
  'inspirational',
] as const;
export const ENERGIES = ['low', 'medium', 'high'] as const;
/** Characters of the page's text the model reads for the personality (its title, description, opening). */
export const PERSONALITY_TEXT_CHARS = 1200;

const SYSTEM = [
  'You are a brand designer naming the colour roles of a web page from the colours it actually uses.',
  'Each colour is listed with where the page uses it: text characters, background area, bordered elements, link characters, buttons, and the CSS variables that hold it.',
  'For each role answer one of the listed colours exactly, or "none" when no listed colour plays that role.',
  'primary: the main brand colour (filled call-to-action buttons, brand CSS variables); secondary: the second brand colour; accent: a highlight colour used sparingly; link: the colour of links;',
  'success, warning, error: only colours clearly used for those states (green, amber, red, or CSS variables named so).',
  'Never use the page background or the body text colour for primary, secondary or accent unless nothing else fits.',
  "When the page's words are given, also describe the brand's personality from them: its tone of voice, its energy, and in a few words who the page speaks to.",
].join(' ');

export interface BrandingRolesOutcome {
  /** The profile with the named roles (unchanged when the model named none or failed). */
  branding: Branding;
  /** Roles the model changed or added, for logs and tests. */
  named: Partial<Record<Role, string>>;
  warnings: string[];
  usage?: LlmUsage;
  model?: string;
}

/**
 * The optional LLM pass of the `branding` format (WDS_BRANDING_LLM): the model assigns colour roles
 * among the colours the browser measured on the page and, given the page's words, names the brand's
 * personality (a tone and an energy from fixed lists, the audience in a few words). The answer is constrained by a JSON schema
 * whose values are an enum of those colours (grammar-enforced on llama.cpp, validated with ajv by
 * the port), and each value is checked against the palette again, so a role can only ever get a
 * colour the page uses. A failed or invalid answer keeps the measured profile, with a warning.
 */
export class BrandingRoles {
  constructor(private readonly llm: LlmPort) {}

  async execute(input: {
    branding: Branding;
    palette: readonly BrandingColour[];
    url: string;
    /**
     * What the page says (title, description, the opening of its main content): with it the model
     * also names the brand's personality. Absent: colour roles only.
     */
    pageText?: string;
    /** The team the page is scraped for (LlmRequest.tenant). */
    teamId?: string;
    signal: AbortSignal;
  }): Promise<BrandingRolesOutcome> {
    const { branding, palette } = input;
    if (palette.length === 0) return { branding, named: {}, warnings: [] };
    const allowed = allowedColours(palette, branding);
    const colours = palette.map((c) => c.color);
    const words = input.pageText?.trim().slice(0, PERSONALITY_TEXT_CHARS);
    const properties: Record<string, unknown> = Object.fromEntries(
      NAMED_ROLES.map((r) => [r, { type: 'string', enum: [...allowed[r], NONE] }]),
    );
    if (words) {
      properties.personality = {
        type: 'object',
        properties: {
          tone: { type: 'string', enum: [...TONES] },
          energy: { type: 'string', enum: [...ENERGIES] },
          targetAudience: { type: 'string', minLength: 3, maxLength: 60 },
        },
        required: ['tone', 'energy', 'targetAudience'],
        additionalProperties: false,
      };
    }
    const schema = {
      type: 'object',
      properties,
      required: [...NAMED_ROLES, ...(words ? ['personality'] : [])],
      additionalProperties: false,
    };
    const r = await this.llm.structured({
      feature: 'branding',
      schema,
      schemaName: 'colour_roles',
      system: SYSTEM,
      instruction: `Measured roles (heuristic, may be wrong): ${JSON.stringify(branding.colors ?? {})}. Name the roles${words ? ' and the personality' : ''}.`,
      document: {
        text: describePalette(palette, branding) + (words ? `\n\nThe page's words:\n${words}` : ''),
        source: input.url,
      },
      maxTokens: words ? 220 : 160,
      temperature: 0,
      signal: input.signal,
      tenant: input.teamId,
    });
    const base = { usage: r.usage, model: r.model };
    if (!r.valid) {
      return {
        ...base,
        branding,
        named: {},
        warnings: [
          ...r.warnings,
          'The model could not name the branding colour roles; the measured roles are kept.',
        ],
      };
    }
    const answer = r.value as Record<Role, string> & {
      personality?: { tone: string; energy: string; targetAudience: string };
    };
    const named: Partial<Record<Role, string>> = {};
    const colors = { ...(branding.colors ?? {}) };
    for (const role of NAMED_ROLES) {
      const c = answer[role];
      // The schema already restricts values to the palette; checked again so no colour is invented.
      if (typeof c !== 'string' || c === NONE || !allowed[role].includes(c) || !colours.includes(c)) continue;
      if (colors[role] !== c) named[role] = c;
      colors[role] = c;
    }
    const p = answer.personality;
    // The schema restricts tone and energy to their lists; checked again, and the audience trimmed.
    const personality =
      p &&
      (TONES as readonly string[]).includes(p.tone) &&
      (ENERGIES as readonly string[]).includes(p.energy) &&
      p.targetAudience.trim().length > 0
        ? { tone: p.tone, energy: p.energy, targetAudience: p.targetAudience.trim().slice(0, 60) }
        : undefined;
    return {
      ...base,
      branding: { ...branding, colors, ...(personality ? { personality } : {}) },
      named,
      warnings: r.warnings,
    };
  }
}

/**
 * The colours each role may take: always colours of the palette; brand roles (primary, secondary,
 * accent) never the measured page background or body text colour (a small model otherwise names the
 * most used colour); `link` only colours links use, when the page has any.
 */
export function allowedColours(
  palette: readonly BrandingColour[],
  branding: Branding,
): Record<Role, string[]> {
  const all = palette.map((c) => c.color);
  const plain = new Set([branding.colors?.background, branding.colors?.textPrimary]);
  const brand = all.filter((c) => !plain.has(c));
  const links = palette.filter((c) => c.link > 0).map((c) => c.color);
  return {
    primary: brand,
    secondary: brand,
    accent: brand,
    link: links.length > 0 ? links : all,
    success: all,
    warning: all,
    error: all,
  };
}

/** One line per colour: where the page uses it (the model's only evidence). */
export function describePalette(palette: readonly BrandingColour[], branding: Branding): string {
  const lines = palette.map((c) => {
    const uses = [
      c.text ? `text ${c.text} chars` : '',
      c.link ? `links ${c.link} chars` : '',
      c.background ? `background area ${c.background}` : '',
      c.border ? `borders ${c.border}` : '',
      c.button ? `buttons ${c.button}` : '',
      c.cssVariables.length ? `css variables ${c.cssVariables.join(' ')}` : '',
    ].filter(Boolean);
    const notes = [
      c.color === branding.colors?.background ? 'page background' : '',
      c.color === branding.colors?.textPrimary ? 'body text' : '',
    ].filter(Boolean);
    return `${c.color}: ${uses.join(', ') || 'declared only'}${notes.length ? ` (${notes.join(', ')})` : ''}`;
  });
  const buttons = [branding.components?.buttonPrimary, branding.components?.buttonSecondary]
    .filter((b) => b !== undefined)
    .map((b) => `button background ${b.background}, text ${b.textColor}`);
  return [
    'Colours of the page:',
    ...lines,
    ...(buttons.length ? ['Most used buttons:', ...buttons] : []),
  ].join('\n');
}
