import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { batchScrapeRequestSchema, crawlRequestSchema } from './crawl.js';
import { parseRequestSchema } from './parse-request.js';
import { scrapeRequestSchema } from './scrape-request.js';

const URL = 'https://example.com';

function issues(schema: z.ZodType, body: unknown): Array<{ path: string; message: string }> {
  const r = schema.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

describe('onlyCleanContent with zero data retention', () => {
  const refused = { path: 'onlyCleanContent', message: expect.stringContaining('not supported with zero data retention') };

  it('is refused wherever scrape options enter: scrape, batch scrape, crawl scrapeOptions, parse', () => {
    expect(issues(scrapeRequestSchema, { url: URL, onlyCleanContent: true, zeroDataRetention: true })).toEqual([refused]);
    expect(issues(batchScrapeRequestSchema, { urls: [URL], onlyCleanContent: true, zeroDataRetention: true })).toEqual([refused]);
    expect(issues(batchScrapeRequestSchema, { urls: [URL], onlyCleanContent: true, lockdown: true })).toEqual([refused]);
    expect(issues(crawlRequestSchema, { url: URL, scrapeOptions: { onlyCleanContent: true }, zeroDataRetention: true }))
      .toEqual([{ ...refused, path: 'scrapeOptions.onlyCleanContent' }]);
    expect(issues(parseRequestSchema, { onlyCleanContent: true, zeroDataRetention: true })).toEqual([refused]);
  });

  it('is accepted without zero data retention', () => {
    expect(issues(batchScrapeRequestSchema, { urls: [URL], onlyCleanContent: true })).toEqual([]);
    expect(issues(crawlRequestSchema, { url: URL, scrapeOptions: { onlyCleanContent: true } })).toEqual([]);
    expect(issues(parseRequestSchema, { onlyCleanContent: true })).toEqual([]);
    expect(issues(crawlRequestSchema, { url: URL, zeroDataRetention: true })).toEqual([]);
  });
});
