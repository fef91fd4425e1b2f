import { describe, expect, it } from '@jest/globals';
import { requiredCapabilities } from './required-capabilities.js';
import { scrapeOptionsSchema } from './scrape-options.js';
import { scrapeRequestSchema } from './scrape-request.js';

function capabilitiesOf(body: Record<string, unknown>) {
  return requiredCapabilities(scrapeRequestSchema.parse({ url: 'https://example.com', ...body }));
}

describe('requiredCapabilities', () => {
  it('is empty for a plain request', () => {
    expect(capabilitiesOf({})).toEqual([]);
    expect(capabilitiesOf({ formats: ['markdown', 'html', 'rawHtml', 'links', 'images'], headers: { a: 'b' } })).toEqual([]);
  });

  it('does not count defaults: location, waitFor 0, proxy auto', () => {
    expect(capabilitiesOf({ waitFor: 0, proxy: 'auto', redactPII: false })).toEqual([]);
  });

  it('names each format needing more than HTTP with its index', () => {
    expect(
      capabilitiesOf({
        formats: [
          'markdown',
          'screenshot',
          { type: 'json', prompt: 'x' },
          'summary',
          'changeTracking',
          { type: 'question', question: 'q' },
          { type: 'highlights' },
          'audio',
          'branding',
          'menu',
          'product',
        ],
      }),
    ).toEqual([
      { capability: 'screenshot', option: 'formats[1]' },
      { capability: 'json', option: 'formats[2]' },
      { capability: 'summary', option: 'formats[3]' },
      { capability: 'changeTracking', option: 'formats[4]' },
      { capability: 'question', option: 'formats[5]' },
      { capability: 'highlights', option: 'formats[6]' },
      { capability: 'audio', option: 'formats[7]' },
      { capability: 'branding', option: 'formats[8]' },
      { capability: 'menu', option: 'formats[9]' },
      { capability: 'product', option: 'formats[10]' },
    ]);
  });

  it('names options needing a browser, LLM, proxy or cache', () => {
    expect(
      capabilitiesOf({
        actions: [{ type: 'scrape' }],
        waitFor: 100,
        mobile: true,
        location: { country: 'US' },
        profile: { name: 'p' },
        onlyCleanContent: true,
        redactPII: { mode: 'mask' },
        proxy: 'enhanced',
        lockdown: false,
      }),
    ).toEqual([
      { capability: 'actions', option: 'actions' },
      { capability: 'waitFor', option: 'waitFor' },
      { capability: 'mobile', option: 'mobile' },
      { capability: 'location', option: 'location' },
      { capability: 'profile', option: 'profile' },
      { capability: 'onlyCleanContent', option: 'onlyCleanContent' },
      { capability: 'redactPII', option: 'redactPII' },
      { capability: 'proxy:enhanced', option: 'proxy' },
    ]);
    expect(capabilitiesOf({ minAge: 1 })).toEqual([{ capability: 'minAge', option: 'minAge' }]);
    expect(capabilitiesOf({ lockdown: true })).toEqual([{ capability: 'lockdown', option: 'lockdown' }]);
    expect(capabilitiesOf({ formats: [{ type: 'changeTracking', modes: ['git-diff', 'json'] }] })).toEqual([
      { capability: 'changeTracking', option: 'formats[0]' },
      { capability: 'changeTracking:json', option: 'formats[0].modes' },
    ]);
    expect(capabilitiesOf({ redactPII: true })).toEqual([{ capability: 'redactPII', option: 'redactPII' }]);
  });

  it('works on nested scrape options too', () => {
    expect(requiredCapabilities(scrapeOptionsSchema.parse({ mobile: true }))).toEqual([
      { capability: 'mobile', option: 'mobile' },
    ]);
  });
});
