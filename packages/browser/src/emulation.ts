import ct from 'countries-and-timezones';
import { expandLanguages } from '@trawl/scrape-engine';
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
