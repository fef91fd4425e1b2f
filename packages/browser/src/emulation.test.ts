import { describe, expect, it } from '@jest/globals';
import { buildEmulation, localeForCountry, timezoneForCountry, userAgentMetadata } from './emulation.js';
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

  it('makes client hints that match the user agent, never the browser\'s own headless brand', () => {
    const windows = userAgentMetadata('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36', '156.0.8078.108', false);
    expect(windows).toMatchObject({ platform: 'Windows', platformVersion: '10.0.0', architecture: 'x86', bitness: '64', mobile: false, model: '' });
    expect(windows.brands).toContainEqual({ brand: 'Google Chrome', version: '140' });
    expect(windows.brands).toContainEqual({ brand: 'Chromium', version: '140' });
    expect(windows.fullVersionList).toContainEqual({ brand: 'Google Chrome', version: '140.0.0.0' });
    const phone = userAgentMetadata('Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.7390.37 Mobile Safari/537.36', '156.0.8078.108', true);
    expect(phone).toMatchObject({ platform: 'Android', platformVersion: '14', mobile: true, model: 'Pixel 7', architecture: '' });
    expect(phone.fullVersionList).toContainEqual({ brand: 'Google Chrome', version: '141.0.7390.37' });
    const mac = userAgentMetadata('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Safari/537.36', '156.0.8078.108', false);
    expect(mac).toMatchObject({ platform: 'macOS', platformVersion: '10.15.7' });
    // Not a Chrome user agent: Chromium's brand at the browser's version, no Chrome brand.
    const bot = userAgentMetadata('MyCrawler/2.0 (+https://example.com/bot)', '156.0.8078.108', false);
    expect(bot.brands.map((b) => b.brand)).toEqual(['Not)A;Brand', 'Chromium']);
    expect(bot.brands).toContainEqual({ brand: 'Chromium', version: '156' });
    for (const m of [windows, phone, mac, bot]) expect(JSON.stringify(m)).not.toMatch(/Headless/i);
  });
});
