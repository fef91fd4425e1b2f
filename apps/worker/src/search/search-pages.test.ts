import { describe, expect, it } from '@jest/globals';
import type { SearchRequest } from '@trawl/api-schema';
import { searchPages, searchWindowTbs, type WebSearch } from './search-pages.js';

/** A search back-end answering fixed web results and keeping the requests it got. */
class FixedSearch implements WebSearch {
  requests: SearchRequest[] = [];
  constructor(private readonly web: unknown[]) {}
  async run(req: { request: SearchRequest }) {
    this.requests.push(req.request);
    return { data: { web: this.web }, creditsUsed: 2 };
  }
}

const base = { teamId: 't', signal: new AbortController().signal, zeroDataRetention: false };

describe('searchPages', () => {
  it('keeps http(s) result URLs once, in rank order, at most the limit', async () => {
    const search = new FixedSearch([
      { url: 'https://a.test/1' }, { url: 'ftp://a.test/x' }, { url: 'not a url' }, { title: 'no url' }, { url: 'https://a.test/1' },
      { url: 'http://b.test/2' }, { url: 'https://c.test/3' },
    ]);
    expect(await searchPages(search, { ...base, query: 'q', limit: 2 })).toEqual({ urls: ['https://a.test/1', 'http://b.test/2'], creditsUsed: 2 });
    expect(search.requests[0]).toMatchObject({ query: 'q', limit: 2, sources: ['web'] });
    expect(search.requests[0]!.scrapeOptions).toBeUndefined();
  });

  it('sends the include list and drops excluded hosts itself when both are given (the search request takes one)', async () => {
    const search = new FixedSearch([{ url: 'https://news.a.test/1' }, { url: 'https://www.skip.a.test/2' }, { url: 'https://a.test/3' }]);
    const found = await searchPages(search, { ...base, query: 'q', limit: 10, includeDomains: ['a.test'], excludeDomains: ['skip.a.test'], tbs: 'qdr:d' });
    expect(found.urls).toEqual(['https://news.a.test/1', 'https://a.test/3']);
    expect(search.requests[0]).toMatchObject({ includeDomains: ['a.test'], tbs: 'qdr:d' });
    expect(search.requests[0]!.excludeDomains).toBeUndefined();
  });

  it('maps a monitor searchWindow to a tbs no narrower than the window', () => {
    expect(['5m', '15m', '1h', '6h', '24h', '7d', undefined].map((w) => searchWindowTbs(w as never))).toEqual(['qdr:h', 'qdr:h', 'qdr:h', 'qdr:d', 'qdr:d', 'qdr:w', undefined]);
  });
});
