import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeBrave, type FakeBraveServer } from '@trawl/testing';
import { SearchProviderError, type SearchQuery } from '../provider.js';
import { BraveProvider } from './brave.js';

const KEY = 'secret-brave-key-123';

describe('BraveProvider against a local Brave Search API', () => {
  let fake: FakeBraveServer;
  let provider: BraveProvider;
  beforeAll(async () => {
    fake = await startFakeBrave({ apiKey: KEY, total: 45 });
    provider = new BraveProvider({ apiKey: KEY, baseUrl: fake.baseUrl }, { timeoutMs: 10_000 });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setMode('ok');
  });
  const q = (over: Partial<SearchQuery> = {}): SearchQuery => ({ query: 'trawl', source: 'web', limit: 5, signal: new AbortController().signal, ...over });

  it('maps web results, sends the key header, and strips Brave\'s <strong> marks', async () => {
    const res = await provider.search(q({ limit: 3 }));
    expect(res).toEqual({
      source: 'web',
      items: [0, 1, 2].map((i) => ({ url: `https://site${i}.example/trawl/${i}`, title: `Result ${i} & more`, description: `About trawl, number ${i}.` })),
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ source: 'web', token: KEY, params: { q: 'trawl', count: '3' } });
  });

  it('pages with count/offset (offset a page index) until the limit', async () => {
    const res = await provider.search(q({ limit: 50 }));
    expect(res.items).toHaveLength(45);
    expect(res.items.map((i) => i.url)).toEqual(Array.from({ length: 45 }, (_, i) => `https://site${i}.example/trawl/${i}`));
    expect(fake.requests.map((r) => [r.params.count, r.params.offset])).toEqual([['20', undefined], ['20', '1'], ['20', '2']]);
  });

  it('stops at the limit across pages', async () => {
    const res = await provider.search(q({ limit: 30 }));
    expect(res.items).toHaveLength(30);
    expect(fake.requests).toHaveLength(2);
  });

  it('answers an empty list when there are no results', async () => {
    expect(await provider.search(q({ query: 'nothing here' }))).toEqual({ source: 'web', items: [] });
  });

  it('sends freshness, country, search_lang and domain operators', async () => {
    await provider.search(q({ tbs: 'qdr:w', country: 'de', lang: 'de', includeDomains: ['a.example', 'b.example'] }));
    await provider.search(q({ tbs: 'cdr:1,cd_min:1/2/2024,cd_max:12/31/2024', excludeDomains: ['c.example'] }));
    await provider.search(q({ tbs: 'qdr:h', includeDomains: ['only.example'], categories: ['pdf'] }));
    expect(fake.requests[0]!.params).toMatchObject({ q: 'trawl (site:a.example OR site:b.example)', freshness: 'pw', country: 'DE', search_lang: 'de' });
    expect(fake.requests[1]!.params).toMatchObject({ q: 'trawl -site:c.example', freshness: '2024-01-02to2024-12-31' });
    expect(fake.requests[2]!.params).toMatchObject({ q: 'trawl site:only.example filetype:pdf', freshness: 'pd' });
  });

  it('maps news (date from page_age, thumbnail) and images (page url, image url, size)', async () => {
    const news = await provider.search(q({ source: 'news', limit: 2 }));
    expect(news).toEqual({
      source: 'news',
      items: [0, 1].map((i) => ({
        url: `https://site${i}.example/trawl/${i}`, title: `News ${i}`, snippet: `Story ${i} about trawl`,
        date: `2025-01-0${i + 1}T10:00:00`, imageUrl: `https://imgs.example/thumb/${i}.jpg`,
      })),
    });
    const images = await provider.search(q({ source: 'images', limit: 2 }));
    expect(images).toEqual({
      source: 'images',
      items: [0, 1].map((i) => ({ url: `https://site${i}.example/trawl/${i}`, title: `Image ${i}`, imageUrl: `https://site${i}.example/img/${i}.png`, imageWidth: 640 + i, imageHeight: 480 })),
    });
    expect(fake.requests.map((r) => r.source)).toEqual(['news', 'images']);
  });

  it('a bad key is refused, saying so without echoing it', async () => {
    const bad = new BraveProvider({ apiKey: 'wrong-key-xyz', baseUrl: fake.baseUrl }, { timeoutMs: 10_000 });
    const err = await bad.search(q()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchProviderError);
    expect(err).toMatchObject({ provider: 'brave', kind: 'refused', status: 401 });
    expect((err as Error).message).toMatch(/subscription token/);
    expect((err as Error).message).not.toContain('wrong-key-xyz');
  });

  it('429 is blocked with the Retry-After in the message', async () => {
    fake.setMode('blocked');
    const err = await provider.search(q()).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'blocked', status: 429 });
    expect((err as Error).message).toMatch(/rate limit.*retry after 7 s/);
  });

  it('5xx is unavailable, and so is a closed port', async () => {
    fake.setMode('down');
    await expect(provider.search(q())).rejects.toMatchObject({ kind: 'unavailable', status: 503 });
    const other = await startFakeBrave();
    const gone = other.baseUrl;
    await other.close();
    const offline = new BraveProvider({ apiKey: KEY, baseUrl: gone }, { timeoutMs: 10_000 });
    await expect(offline.search(q())).rejects.toMatchObject({ provider: 'brave', kind: 'unavailable' });
  });

  it('a slow answer is a timeout; the caller\'s signal is aborted', async () => {
    fake.setMode('slow');
    const impatient = new BraveProvider({ apiKey: KEY, baseUrl: fake.baseUrl }, { timeoutMs: 200 });
    await expect(impatient.search(q())).rejects.toMatchObject({ kind: 'timeout' });
    const ctl = new AbortController();
    const pending = provider.search(q({ signal: ctl.signal }));
    ctl.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('an answer that is not JSON is invalid', async () => {
    const html = new BraveProvider({ apiKey: KEY, baseUrl: fake.baseUrl }, {
      timeoutMs: 10_000,
      fetch: async () => new Response('<html>maintenance</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    });
    await expect(html.search(q())).rejects.toMatchObject({ kind: 'invalid' });
  });
});
