import ct from 'countries-and-timezones';
import { devices, type BrowserContextOptions } from 'playwright-core';

/** What the browser should pretend to be. */
export interface EmulationInput {
  /** Emulate a phone (viewport, user agent, touch, device scale). */
  mobile?: boolean;
  /** ISO 3166-1 alpha-2 country: sets timezone and, without `languages`, the locale. */
  country?: string;
  /** Accept-Language values in priority order; the first is the browser locale. */
  languages?: readonly string[];
  /** User-Agent asked for by the request's headers. */
  userAgent?: string;
  /** Default desktop User-Agent (Chromium's own says "HeadlessChrome"). */
  defaultUserAgent: string;
}

/** The emulated locale, time zone and languages, reported back in metadata. */
export interface Emulation {
  contextOptions: BrowserContextOptions;
  locale: string;
  timezoneId: string;
  /** The preferred languages, most preferred first (Chromium adds the q-values itself). */
  languages: readonly string[];
}

/**
 * Countries spanning several zones: the zone most of the population lives in. Elsewhere the first zone
 * the tz database assigns primarily to the country is used.
 */
const MAIN_ZONE: Readonly<Record<string, string>> = {
  US: 'America/New_York', CA: 'America/Toronto', BR: 'America/Sao_Paulo', RU: 'Europe/Moscow',
  AU: 'Australia/Sydney', MX: 'America/Mexico_City', ID: 'Asia/Jakarta', AR: 'America/Argentina/Buenos_Aires',
  KZ: 'Asia/Almaty', CN: 'Asia/Shanghai', CL: 'America/Santiago', ES: 'Europe/Madrid', PT: 'Europe/Lisbon',
  NZ: 'Pacific/Auckland', EC: 'America/Guayaquil', CD: 'Africa/Kinshasa', MN: 'Asia/Ulaanbaatar',
  UA: 'Europe/Kyiv', GL: 'America/Nuuk', MY: 'Asia/Kuala_Lumpur', DE: 'Europe/Berlin', GB: 'Europe/London',
  FR: 'Europe/Paris',
};

/** The main time zone of a country; UTC for an unknown code. */
export function timezoneForCountry(country: string): string {
  const code = country.toUpperCase();
  const main = MAIN_ZONE[code];
  if (main) return main;
  const info = ct.getCountry(code);
  if (!info) return 'UTC';
  const own = info.timezones.find((tz) => ct.getTimezone(tz)?.countries[0] === code);
  return own ?? info.timezones[0] ?? 'UTC';
}

/** The main language of a country as a BCP 47 tag (`de-DE`), from ICU's likely-subtags data. */
export function localeForCountry(country: string): string {
  try {
    const language = new Intl.Locale('und', { region: country.toUpperCase() }).maximize().language;
    return `${language}-${country.toUpperCase()}`;
  } catch {
    return 'en-US';
  }
}

/** The preference list with each regional tag followed by its base language: `de-DE, de, en`. */
export function expandLanguages(languages: readonly string[]): string[] {
  const tags: string[] = [];
  for (const lang of languages) {
    if (!tags.includes(lang)) tags.push(lang);
    const base = lang.split('-')[0];
    if (base && base !== lang && !languages.includes(base) && !tags.includes(base)) tags.push(base);
  }
  return tags;
}

/** Accept-Language with decreasing q values: `de-DE,de;q=0.9,en;q=0.8`. */
export function acceptLanguageFor(languages: readonly string[]): string {
  const tags = expandLanguages(languages);
  return tags.map((t, i) => (i === 0 ? t : `${t};q=${Math.max(0.1, 1 - i * 0.1).toFixed(1)}`)).join(',');
}

/** Browser context options for the request's device and location. */
export function buildEmulation(input: EmulationInput): Emulation {
  const country = input.country ?? 'US';
  const languages = input.languages?.length ? input.languages : [localeForCountry(country)];
  const locale = languages[0] ?? 'en-US';
  const timezoneId = timezoneForCountry(country);
  const device = input.mobile ? devices['Pixel 7'] : undefined;
  const contextOptions: BrowserContextOptions = device
    ? { ...device, ...(input.userAgent ? { userAgent: input.userAgent } : {}) }
    : { viewport: { width: 1366, height: 768 }, userAgent: input.userAgent ?? input.defaultUserAgent };
  return {
    contextOptions: { ...contextOptions, locale, timezoneId },
    locale,
    timezoneId,
    languages: expandLanguages(languages),
  };
}
