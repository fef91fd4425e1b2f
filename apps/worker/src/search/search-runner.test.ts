import { describe, expect, it } from '@jest/globals';
import { TrawlError, searchRequestSchema, type ScrapeRequest } from '@trawl/api-schema';
import { createLogger } from '@trawl/observability';
import type { SearchItems, SearchProvider, SearchQuery } from '@trawl/search';
import { SearchRunner, type SearchPageScraper } from './search-runner.js';

/** A provider answering fixed web results (web only). */
function provider(urls: string[]): SearchProvider {
  return {
    name: 'fixed',
    sources: ['web'],
    async search(q: SearchQuery): Promise<SearchItems> {
      return { source: 'web', items: urls.slice(0, q.limit).map((url, i) => ({ url, title: `t${i}`, description: `d${i}` })) };
    },
  };
}

function runner(urls: string[], opts: { blocked?: string[]; scraped?: string[] } = {}) {
  const charged: number[] = [];
  const scraper: SearchPageScraper = {
    async scrape(_team: string, request: ScrapeRequest) {
      opts.scraped?.push(request.url);
      return { ok: true, document: { markdown: `# ${request.url}`, metadata: { statusCode: 200, creditsUsed: 1 } } };
    },
  };
  const r = new SearchRunner({
    provider: provider(urls),
    scraper,
    guard: {
      async resolveChecked(host: string) {
        if (opts.blocked?.includes(host)) throw new TrawlError('SCRAPE_BLOCKED_TARGET', 'The target resolves to an address that may not be reached.');
        return [];
      },
    },
    credits: { charge: async (_t: string, n: number) => charged.push(n) },
    logger: createLogger({ role: 'test', level: 'silent' }),
  });
  return { r, charged };
}

const run = (r: SearchRunner, body: unknown) => r.run({ teamId: 't', request: searchRequestSchema.parse(body), signal: new AbortController().signal, zeroDataRetention: false });

describe('SearchRunner', () => {
  it('does not scrape a result whose host the target guard blocks; the item stays with the error', async () => {
    const scraped: string[] = [];
    const { r, charged } = runner(['https://ok.example/a', 'https://blocked.example/b'], { blocked: ['blocked.example'], scraped });
    const out = await run(r, { query: 'q', scrapeOptions: { formats: ['markdown'] } });
    expect(scraped).toEqual(['https://ok.example/a']);
    expect(out.data.web).toEqual([
      expect.objectContaining({ url: 'https://ok.example/a', position: 1, markdown: '# https://ok.example/a' }),
      { url: 'https://blocked.example/b', title: 't1', description: 'd1', position: 2, metadata: expect.objectContaining({ errorCode: 'SCRAPE_BLOCKED_TARGET' }) },
    ]);
    expect(out.creditsUsed).toBe(3);
    expect(charged).toEqual([2]);
  });

  it('answers a source the provider does not serve with an empty list and a warning', async () => {
    const { r } = runner(['https://ok.example/a']);
    const out = await run(r, { query: 'q', sources: ['web', 'news'] });
    expect(out.data.news).toEqual([]);
    expect(out.data.web).toHaveLength(1);
    expect(out.warning).toContain('does not serve news');
  });
});
