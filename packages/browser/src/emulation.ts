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

/** Client hints of a user agent (`sec-ch-ua*` headers, `navigator.userAgentData`), as the protocol takes them. */
export interface UserAgentMetadata {
  brands: Array<{ brand: string; version: string }>;
  fullVersionList: Array<{ brand: string; version: string }>;
  platform: string;
  platformVersion: string;
  architecture: string;
  model: string;
  mobile: boolean;
  bitness: string;
  wow64: boolean;
}

/**
 * Client hints that tell the same story as `userAgent`: a Chrome user agent gets Chrome's brands at
 * its version and its platform; any other gets Chromium's brand at `browserVersion`. Without them a
 * page or a server sees the browser's own hints beside the overridden user agent: another version,
 * and for Chromium's headless shell the brand `HeadlessChrome`.
 */
export function userAgentMetadata(userAgent: string, browserVersion: string, mobile: boolean): UserAgentMetadata {
  const chrome = /(?:Chrome|CriOS)\/(\d+)((?:\.\d+)*)/.exec(userAgent);
  const major = chrome?.[1] ?? browserVersion.split('.')[0] ?? '0';
  const full = chrome ? `${major}${chrome[2] || '.0.0.0'}` : browserVersion;
  const brands = [
    { brand: 'Not)A;Brand', version: '8' },
    { brand: 'Chromium', version: major },
    ...(chrome ? [{ brand: 'Google Chrome', version: major }] : []),
  ];
  const fullVersionList = [
    { brand: 'Not)A;Brand', version: '8.0.0.0' },
    { brand: 'Chromium', version: full },
    ...(chrome ? [{ brand: 'Google Chrome', version: full }] : []),
  ];
  const android = /Android\s*([\d.]*)/.exec(userAgent);
  const mac = /Mac OS X ([\d_]+)/.exec(userAgent);
  const [platform, platformVersion] = android ? ['Android', android[1] || '10']
    : /Windows/.test(userAgent) ? ['Windows', '10.0.0']
      : mac ? ['macOS', mac[1]!.replace(/_/g, '.')]
        : /CrOS/.test(userAgent) ? ['Chrome OS', '']
          : /Linux|X11/.test(userAgent) ? ['Linux', ''] : ['', ''];
  const model = android ? (/;\s*([^;)]+?)\s*(?:Build\/[^;)]*)?\)/.exec(userAgent.slice(android.index))?.[1] ?? '') : '';
  return {
    brands, fullVersionList, platform: platform!, platformVersion: platformVersion!,
    architecture: android || mobile ? '' : 'x86', model: model === 'K' ? '' : model, mobile: mobile || android !== null,
    bitness: android || mobile ? '' : '64', wow64: false,
  };
}
