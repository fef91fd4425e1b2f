import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { FAKE_DDG_VQD, startFakeDuckDuckGo, type FakeDuckDuckGoServer } from '@trawl/testing';
import { SearchProviderError, type SearchQuery } from '../provider.js';
import { DuckDuckGoProvider } from './duckduckgo.js';

describe('DuckDuckGoProvider against a local DuckDuckGo HTML endpoint', () => {
  let fake: FakeDuckDuckGoServer;
  beforeAll(async () => {
    fake = await startFakeDuckDuckGo({ total: 25 });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setMode('ok');
  });
  // A generous rate, so tests other than the limiter's never wait.
  const provider = (over: { ratePerMin?: number; now?: () => number; timeoutMs?: number } = {}): DuckDuckGoProvider =>
    new DuckDuckGoProvider({ baseUrl: fake.baseUrl, ratePerMin: over.ratePerMin ?? 6000 }, { timeoutMs: over.timeoutMs ?? 10_000, ...(over.now ? { now: over.now } : {}) });
  const q = (over: Partial<SearchQuery> = {}): SearchQuery => ({ query: 'trawl', source: 'web', limit: 5, signal: new AbortController().signal, ...over });
  const target = (i: number): string => `https://site${i}.example/page?id=${i}&q=trawl`;

  it('posts the form and maps results: redirect links decoded, entities and marks stripped, the ad skipped', async () => {
    const res = await provider().search(q({ limit: 3 }));
    expect(res).toEqual({
      source: 'web',
      items: [0, 1, 2].map((i) => ({ url: target(i), title: `Site ${i} & trawl`, description: `Snippet ${i} about trawl 'quoted'.` })),
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/html/', form: { q: 'trawl' } });
  });

  it('pages with the "Next" form (s, dc, vqd) until the limit, at most 3 pages', async () => {
    const res = await provider().search(q({ limit: 100 }));
    expect(res.items.map((i) => i.url)).toEqual(Array.from({ length: 25 }, (_, i) => target(i)));
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[1]!.form).toMatchObject({ q: 'trawl', s: '10', dc: '11', vqd: FAKE_DDG_VQD });
    expect(fake.requests[2]!.form).toMatchObject({ s: '20', dc: '21', vqd: FAKE_DDG_VQD });

    const big = await startFakeDuckDuckGo({ total: 100 });
    try {
      const many = new DuckDuckGoProvider({ baseUrl: big.baseUrl, ratePerMin: 6000 }, { timeoutMs: 10_000 });
      expect((await many.search(q({ limit: 100 }))).items).toHaveLength(30);
      expect(big.requests).toHaveLength(3);
    } finally {
      await big.close();
    }
  });

  it('stops paging at the limit', async () => {
    expect((await provider().search(q({ limit: 12 }))).items).toHaveLength(12);
    expect(fake.requests).toHaveLength(2);
  });

  it('sends kl from country and language, df from tbs, domain filters as operators (on every page)', async () => {
    await provider().search(q({ limit: 15, country: 'gb', lang: 'en', tbs: 'qdr:m', includeDomains: ['a.example'] }));
    expect(fake.requests[0]!.form).toMatchObject({ q: 'trawl site:a.example', kl: 'uk-en', df: 'm' });
    expect(fake.requests[1]!.form).toMatchObject({ kl: 'uk-en', df: 'm', s: '10' });
    fake.requests.length = 0;
    await provider().search(q({ country: 'DE', tbs: 'cdr:1,cd_min:01/01/2024,cd_max:02/01/2024', excludeDomains: ['x.example', 'y.example'] }));
    expect(fake.requests[0]!.form).toMatchObject({ q: 'trawl -site:x.example -site:y.example', kl: 'de-de', df: '2024-01-01..2024-02-01' });
  });

  it('answers an empty list for the no-results page', async () => {
    expect(await provider().search(q({ query: 'nothing at all' }))).toEqual({ source: 'web', items: [] });
  });

  it('is web only: news and images answer empty without a request', async () => {
    const p = provider();
    expect(p.sources).toEqual(['web']);
    expect(await p.search(q({ source: 'news' }))).toEqual({ source: 'news', items: [] });
    expect(fake.requests).toHaveLength(0);
  });

  it('the captcha (anomaly) page, 403 and 429 are blocked, pointing at SearXNG or an API key', async () => {
    for (const [mode, status] of [['blocked', 202], ['forbidden', 403], ['rate-limited', 429]] as const) {
      fake.setMode(mode);
      const err = await provider().search(q()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SearchProviderError);
      expect(err).toMatchObject({ provider: 'duckduckgo', kind: 'blocked', status });
      expect((err as Error).message).toMatch(/SearXNG.*API key/);
    }
  });

  it('a page in a layout it does not know is invalid (layout changed), not an empty list', async () => {
    fake.setMode('html-changed');
    const err = await provider().search(q()).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'invalid' });
    expect((err as Error).message).toMatch(/page layout changed/);
  });

  it('5xx and a closed port are unavailable; slow is a timeout; the caller\'s signal aborts', async () => {
    fake.setMode('down');
    await expect(provider().search(q())).rejects.toMatchObject({ kind: 'unavailable', status: 503 });
    const other = await startFakeDuckDuckGo();
    const gone = other.baseUrl;
    await other.close();
    await expect(new DuckDuckGoProvider({ baseUrl: gone, ratePerMin: 60 }, { timeoutMs: 10_000 }).search(q())).rejects.toMatchObject({ kind: 'unavailable' });
    fake.setMode('slow');
    await expect(provider({ timeoutMs: 200 }).search(q())).rejects.toMatchObject({ kind: 'timeout' });
    const ctl = new AbortController();
    const pending = provider().search(q({ signal: ctl.signal }));
    ctl.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
  });

  describe('rate limit (token bucket per instance, clock injected)', () => {
    it('lets a burst of 3 requests through, then waits within the caller\'s signal instead of failing', async () => {
      const clock = 1_000_000;
      const p = provider({ ratePerMin: 3, now: () => clock });
      // One search of 3 pages spends the burst.
      expect((await p.search(q({ limit: 30 }))).items).toHaveLength(25);
      expect(fake.requests).toHaveLength(3);
      // The clock stands still: no token comes, so the next search waits until its own signal ends it.
      const ctl = new AbortController();
      const waiting = p.search(q({ signal: ctl.signal }));
      setTimeout(() => ctl.abort(), 100);
      const err = await waiting.catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'aborted' });
      expect((err as Error).message).toMatch(/rate limit/);
      expect(fake.requests).toHaveLength(3);
    });

    it('refills at ratePerMin by the injected clock', async () => {
      let clock = 0;
      const p = provider({ ratePerMin: 3, now: () => clock });
      await p.search(q({ limit: 30 }));
      expect(fake.requests).toHaveLength(3);
      // 20 s at 3/min is one token: one page goes at once.
      clock += 20_000;
      expect((await p.search(q({ limit: 5 }))).items).toHaveLength(5);
      expect(fake.requests).toHaveLength(4);
    });

    it('each instance has its own bucket', async () => {
      const clock = 0;
      await provider({ ratePerMin: 1, now: () => clock }).search(q());
      await provider({ ratePerMin: 1, now: () => clock }).search(q());
      expect(fake.requests).toHaveLength(2);
    });
  });
});
