export interface ScrapeHeaderOptions {
  /** Caller headers; they override the generated ones (names compared case-insensitively). */
  userHeaders?: Record<string, string>;
  mobile?: boolean;
  location?: { country?: string; languages?: readonly string[] };
}

const CHROME_VERSION = '131';

export const DESKTOP_USER_AGENT =
  `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ` +
  `Chrome/${CHROME_VERSION}.0.0.0 Safari/537.36`;

export const MOBILE_USER_AGENT =
  `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) ` +
  `Chrome/${CHROME_VERSION}.0.0.0 Mobile Safari/537.36`;

/** Primary language tags per ISO 3166 country code; a browser there usually also accepts English. */
const COUNTRY_LANGUAGES: Record<string, readonly string[]> = {
  US: ['en-US'],
  GB: ['en-GB'],
  AU: ['en-AU'],
  CA: ['en-CA', 'fr-CA'],
  IE: ['en-IE'],
  NZ: ['en-NZ'],
  IN: ['en-IN', 'hi-IN'],
  SG: ['en-SG', 'zh-SG'],
  ZA: ['en-ZA'],
  DE: ['de-DE'],
  AT: ['de-AT'],
  CH: ['de-CH', 'fr-CH'],
  FR: ['fr-FR'],
  BE: ['nl-BE', 'fr-BE'],
  NL: ['nl-NL'],
  ES: ['es-ES'],
  MX: ['es-MX'],
  AR: ['es-AR'],
  CO: ['es-CO'],
  CL: ['es-CL'],
  PT: ['pt-PT'],
  BR: ['pt-BR'],
  IT: ['it-IT'],
  PL: ['pl-PL'],
  CZ: ['cs-CZ'],
  SK: ['sk-SK'],
  HU: ['hu-HU'],
  RO: ['ro-RO'],
  BG: ['bg-BG'],
  GR: ['el-GR'],
  SE: ['sv-SE'],
  NO: ['nb-NO'],
  DK: ['da-DK'],
  FI: ['fi-FI'],
  UA: ['uk-UA'],
  RU: ['ru-RU'],
  TR: ['tr-TR'],
  IL: ['he-IL'],
  SA: ['ar-SA'],
  AE: ['ar-AE'],
  EG: ['ar-EG'],
  JP: ['ja-JP'],
  KR: ['ko-KR'],
  CN: ['zh-CN'],
  TW: ['zh-TW'],
  HK: ['zh-HK'],
  VN: ['vi-VN'],
  TH: ['th-TH'],
  ID: ['id-ID'],
  MY: ['ms-MY'],
  PH: ['en-PH', 'fil-PH'],
};

const LANGUAGE_TAG = /^[a-z]{2,8}(-[a-z0-9]{1,8})*$/i;

/** `['de-DE', 'en']` → `de-DE,de;q=0.9,en;q=0.8`: each region tag is followed by its base language, as Chrome does. */
export function acceptLanguage(languages: readonly string[]): string {
  const tags: string[] = [];
  for (const raw of languages) {
    const tag = raw.trim().replace(/_/g, '-');
    if (!LANGUAGE_TAG.test(tag)) continue;
    const base = tag.split('-')[0].toLowerCase();
    for (const t of [tag, base]) {
      if (!tags.some((x) => x.toLowerCase() === t.toLowerCase())) tags.push(t);
    }
  }
  if (tags.length === 0) return 'en-US,en;q=0.9';
  return tags.map((t, i) => (i === 0 ? t : `${t};q=${Math.max(1, 10 - i) / 10}`)).join(',');
}

/** Languages for a country code: its own, then English as browsers outside English-speaking countries send. */
export function languagesForCountry(country: string | undefined): string[] {
  const own = COUNTRY_LANGUAGES[(country ?? '').trim().toUpperCase()] ?? ['en-US'];
  return own.some((t) => t.startsWith('en-')) ? [...own] : [...own, 'en'];
}

function generateHeaders(mobile: boolean, languages: readonly string[]): Readonly<Record<string, string>> {
  return {
    'User-Agent': mobile ? MOBILE_USER_AGENT : DESKTOP_USER_AGENT,
    Accept:
      'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,' +
      'application/signed-exchange;v=b3;q=0.7',
    'Accept-Language': acceptLanguage(languages),
    'Accept-Encoding': 'gzip, deflate, br',
    'Upgrade-Insecure-Requests': '1',
    'Sec-CH-UA': `"Google Chrome";v="${CHROME_VERSION}", "Chromium";v="${CHROME_VERSION}", "Not_A Brand";v="24"`,
    'Sec-CH-UA-Mobile': mobile ? '?1' : '?0',
    'Sec-CH-UA-Platform': mobile ? '"Android"' : '"Windows"',
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Site': 'none',
    'Sec-Fetch-User': '?1',
  };
}

/** Generated header sets by device and languages: every page of a crawl asks for the same one. */
const generatedSets = new Map<string, Readonly<Record<string, string>>>();
const GENERATED_SETS_MAX = 256;

function generatedHeaders(mobile: boolean, languages: readonly string[]): Readonly<Record<string, string>> {
  const key = JSON.stringify([mobile, languages]);
  let set = generatedSets.get(key);
  if (!set) {
    set = generateHeaders(mobile, languages);
    if (generatedSets.size >= GENERATED_SETS_MAX) generatedSets.clear();
    generatedSets.set(key, set);
  }
  return set;
}

/** Realistic Chrome request headers for the plain-HTTP scrape engine. */
export function buildScrapeHeaders(opts: ScrapeHeaderOptions = {}): Record<string, string> {
  const languages = opts.location?.languages?.length
    ? opts.location.languages
    : languagesForCountry(opts.location?.country);
  const generated = generatedHeaders(opts.mobile === true, languages);
  const user = opts.userHeaders ?? {};
  if (Object.keys(user).length === 0) return { ...generated };
  const overridden = new Set(Object.keys(user).map((k) => k.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(generated)) if (!overridden.has(k.toLowerCase())) out[k] = v;
  return { ...out, ...user };
}
