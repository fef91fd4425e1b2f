import { describe, expect, it } from '@jest/globals';
import { buildEmulation, localeForCountry, timezoneForCountry } from './emulation.js';
import { cookiesFromHeader } from './browser-fetcher.js';

describe('emulation', () => {
  it('picks the main time zone and language of a country', () => {
    expect(timezoneForCountry('US')).toBe('America/New_York');
    expect(timezoneForCountry('de')).toBe('Europe/Berlin');
    expect(timezoneForCountry('JP')).toBe('Asia/Tokyo');
    expect(timezoneForCountry('IN')).toBe('Asia/Kolkata');
    expect(timezoneForCountry('ZZ')).toBe('UTC');
    expect(localeForCountry('FR')).toBe('fr-FR');
    expect(localeForCountry('BR')).toBe('pt-BR');
  });

  it('emulates a phone, or a desktop with the default user agent', () => {
    const phone = buildEmulation({ mobile: true, country: 'GB', defaultUserAgent: 'UA' });
    expect(phone.contextOptions).toMatchObject({ isMobile: true, hasTouch: true, timezoneId: 'Europe/London', locale: 'en-GB' });
    const desktop = buildEmulation({ defaultUserAgent: 'UA', languages: ['es-MX'] });
    expect(desktop.contextOptions).toMatchObject({ userAgent: 'UA', locale: 'es-MX', timezoneId: 'America/New_York' });
    expect(desktop.languages).toEqual(['es-MX', 'es']);
  });
});

describe('cookiesFromHeader', () => {
  it('splits a Cookie header into cookies of the target origin', () => {
    expect(cookiesFromHeader('a=1; b = two=2 ;bad; =x', 'https://shop.test:8443/path?q')).toEqual([
      { name: 'a', value: '1', url: 'https://shop.test:8443/' },
      { name: 'b', value: 'two=2', url: 'https://shop.test:8443/' },
    ]);
  });
});
