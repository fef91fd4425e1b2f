import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import { startFakeSearxng, waitFor, type FakeSearxngServer, type SearxngResult } from '@trawl/testing';
import { SearchProviderError, type SearchQuery } from '../provider.js';
import { SearxngProvider, timeRangeOf } from './searxng.js';

const servers: FakeSearxngServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(opts: Parameters<typeof startFakeSearxng>[0] = {}): Promise<FakeSearxngServer> {
  const s = await startFakeSearxng(opts);
  servers.push(s);
  return s;
}

function provider(baseUrl: string, settings: { engines?: string[]; categories?: string[] } = {}, timeoutMs = 10_000, now?: () => number): SearxngProvider {
  return new SearxngProvider({ baseUrl, engines: settings.engines ?? [], categories: settings.categories ?? [] }, now ? { timeoutMs, now } : { timeoutMs });
}

function q(query: Partial<SearchQuery> & { query: string }): SearchQuery {
  return { source: 'web', limit: 5, signal: new AbortController().signal, ...query };
}

async function failure(p: Promise<unknown>): Promise<SearchProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SearchProviderError);
  return err as SearchProviderError;
}

describe('SearxngProvider against a fake SearXNG', () => {
  it('asks /search in the JSON format and maps web results', async () => {
    const s = await fake({ results: () => [
      { url: 'https://a.example/1', title: 'A', content: 'about a' },
      { url: 'https://b.example/2', title: 'B' },
      { url: 'javascript:alert(1)', title: 'bad' },
      { url: 'https://c.example/3', title: 'C', content: 'about c' },
    ] });
    const out = await provider(s.baseUrl, { engines: ['google', 'bing'], categories: ['general', 'it'] }).search(q({ query: 'trawl api', limit: 10 }));
    expect(out).toEqual({ source: 'web', items: [
      { url: 'https://a.example/1', title: 'A', description: 'about a' },
      { url: 'https://b.example/2', title: 'B', description: '' },
      { url: 'https://c.example/3', title: 'C', description: 'about c' },
    ] });
    expect(s.requests[0]).toMatchObject({ q: 'trawl api', format: 'json', pageno: 1, categories: 'general,it', engines: 'google,bing' });
    expect(s.requests[0]?.params.time_range).toBeUndefined();
    expect(s.requests[0]?.params.language).toBeUndefined();
  });

  it('defaults web searches to the general category with the instance engines', async () => {
    const s = await fake();
    await provider(s.baseUrl).search(q({ query: 'x', limit: 3 }));
    expect(s.requests[0]?.categories).toBe('general');
    expect(s.requests[0]?.engines).toBeUndefined();
  });

  it('pages with pageno until limit, then stops', async () => {
    const s = await fake({ pageSize: 10 });
    const out = await provider(s.baseUrl).search(q({ query: 'many', limit: 23 }));
    expect(out.items).toHaveLength(23);
    expect(out.items.map((i) => i.url)).toEqual(Array.from({ length: 23 }, (_, i) => `https://example.com/many/${i + 1}`));
    expect(s.requests.map((r) => r.pageno)).toEqual([1, 2, 3]);
  });

  it('stops paging at an empty page', async () => {
    const s = await fake({ pageSize: 10, results: () => Array.from({ length: 12 }, (_, i) => ({ url: `https://x.example/${i}`, title: `t${i}` })) });
    const out = await provider(s.baseUrl).search(q({ query: 'few', limit: 50 }));
    expect(out.items).toHaveLength(12);
    expect(s.requests.map((r) => r.pageno)).toEqual([1, 2, 3]);
  });

  it('stops paging when a page only repeats results, and caps pages at 5', async () => {
    const same = await fake({ results: (r) => [{ url: 'https://same.example/', title: `page ${r.pageno}` }], pageSize: 100 });
    const one = await provider(same.baseUrl).search(q({ query: 'same', limit: 10 }));
    expect(one.items).toHaveLength(1);
    expect(same.requests.map((r) => r.pageno)).toEqual([1, 2]);

    const endless = await fake({ pageSize: 2, results: () => Array.from({ length: 1000 }, (_, i) => ({ url: `https://e.example/${i}`, title: `e${i}` })) });
    const capped = await provider(endless.baseUrl).search(q({ query: 'endless', limit: 100 }));
    expect(capped.items).toHaveLength(10);
    expect(endless.requests.map((r) => r.pageno)).toEqual([1, 2, 3, 4, 5]);
  });

  it('answers an empty list when there are no results', async () => {
    const s = await fake({ results: () => [] });
    expect(await provider(s.baseUrl).search(q({ query: 'nothing' }))).toEqual({ source: 'web', items: [] });
  });

  it('maps tbs to time_range (qdr:h -> day: SearXNG has no hour)', async () => {
    const s = await fake();
    const now = Date.UTC(2025, 5, 15);
    const p = provider(s.baseUrl, {}, 10_000, () => now);
    const cases: Array<[string, string | undefined]> = [
      ['qdr:h', 'day'], ['qdr:d', 'day'], ['qdr:w', 'week'], ['qdr:m', 'month'], ['qdr:y', 'year'],
      ['qdr:d3', 'week'], ['qdr:w2', 'month'], ['qdr:w,sbd:1', 'week'], ['sbd:1', undefined],
      ['cdr:1,cd_min:06/14/2025,cd_max:06/15/2025', 'day'],
      ['cdr:1,cd_min:06/10/2025,cd_max:06/12/2025', 'week'],
      ['cdr:1,cd_min:05/20/2025,cd_max:', 'month'],
      ['cdr:1,cd_min:01/01/2025,cd_max:02/01/2025', 'year'],
      ['cdr:1,cd_min:01/01/2020,cd_max:02/01/2020', undefined],
      ['cdr:1,cd_min:garbage', undefined],
      ['nonsense', undefined],
    ];
    for (const [tbs] of cases) await p.search(q({ query: 'when', limit: 1, tbs }));
    expect(s.requests.map((r) => r.time_range)).toEqual(cases.map(([, want]) => want));
    expect(timeRangeOf('qdr:h', now)).toBe('day');
  });

  it('maps lang and country to language', async () => {
    const s = await fake();
    const p = provider(s.baseUrl);
    await p.search(q({ query: 'a', limit: 1, lang: 'de' }));
    await p.search(q({ query: 'a', limit: 1, lang: 'en', country: 'us' }));
    await p.search(q({ query: 'a', limit: 1, country: 'us' }));
    expect(s.requests.map((r) => r.language)).toEqual(['de', 'en-US', undefined]);
  });

  it('turns includeDomains and excludeDomains into site: operators', async () => {
    const s = await fake();
    const p = provider(s.baseUrl);
    await p.search(q({ query: 'docs', limit: 1, includeDomains: ['a.example', 'https://b.example/path'] }));
    await p.search(q({ query: 'docs', limit: 1, excludeDomains: ['x.example', 'y.example'] }));
    expect(s.requests.map((r) => r.q)).toEqual(['docs site:a.example OR site:b.example', 'docs -site:x.example -site:y.example']);
  });

  it('turns categories into operators and the science category, labelling results', async () => {
    const s = await fake({ results: (r) => Array.from({ length: 3 }, (_, i) => ({ url: `https://${r.q.includes('github') ? 'github.com' : r.categories === 'science' ? 'arxiv.org' : 'pdfs.example'}/${i}`, title: `${i}` })) });
    const out = await provider(s.baseUrl, { engines: ['google'] }).search(q({ query: 'crawler', limit: 5, categories: ['github', 'research', 'pdf'] }));
    const sent = s.requests.filter((r) => r.pageno === 1).map((r) => ({ q: r.q, categories: r.categories, engines: r.engines })).sort((a, b) => a.q.localeCompare(b.q) || String(a.categories).localeCompare(String(b.categories)));
    expect(sent).toEqual([
      { q: 'crawler', categories: 'science', engines: undefined },
      { q: 'crawler filetype:pdf', categories: 'general', engines: 'google' },
      { q: 'crawler site:github.com', categories: 'general', engines: 'google' },
    ]);
    expect(out.source).toBe('web');
    expect(out.items.map((i) => ('category' in i ? i.category : undefined))).toEqual(['github', 'research', 'pdf', 'github', 'research']);
    expect(out.items[0]?.url).toBe('https://github.com/0');
    expect(out.items[1]?.url).toBe('https://arxiv.org/0');
  });

  it('maps news results (categories=news, publishedDate, image)', async () => {
    const s = await fake({ results: () => [
      { url: 'https://news.example/1', title: 'N1', content: 'first', publishedDate: '2024-05-01T10:00:00', thumbnail_src: 'https://img.example/1.jpg' },
      { url: 'https://news.example/2', title: 'N2', content: 'second', publishedDate: null, img_src: '/image_proxy?url=x' },
      { url: 'https://news.example/3', title: 'N3', publishedDate: '2 hours ago' },
    ] });
    const out = await provider(s.baseUrl, { engines: ['google'], categories: ['it'] }).search(q({ query: 'event', source: 'news', limit: 10 }));
    expect(s.requests[0]).toMatchObject({ categories: 'news' });
    expect(s.requests[0]?.engines).toBeUndefined();
    expect(out).toEqual({ source: 'news', items: [
      { url: 'https://news.example/1', title: 'N1', snippet: 'first', date: '2024-05-01T10:00:00.000Z', imageUrl: 'https://img.example/1.jpg' },
      { url: 'https://news.example/2', title: 'N2', snippet: 'second', imageUrl: `${s.baseUrl}/image_proxy?url=x` },
      { url: 'https://news.example/3', title: 'N3', snippet: '', date: '2 hours ago' },
    ] });
  });

  it('maps image results (categories=images, img_src, thumbnail_src, resolution WxH)', async () => {
    const results: SearxngResult[] = [
      { url: 'https://page.example/1', title: 'I1', img_src: 'https://img.example/1.png', thumbnail_src: 'https://img.example/1.t.png', resolution: '1920x1080' },
      { url: 'https://page.example/2', title: 'I2', thumbnail_src: 'https://img.example/2.t.png', resolution: '640 × 480' },
      { url: 'https://page.example/3', title: 'I3', img_src: 'https://img.example/3.png', resolution: 'unknown' },
      { url: 'https://page.example/4', title: 'no image' },
    ];
    const s = await fake({ results: () => results });
    const out = await provider(s.baseUrl).search(q({ query: 'cat', source: 'images', limit: 10 }));
    expect(s.requests[0]).toMatchObject({ categories: 'images' });
    expect(out).toEqual({ source: 'images', items: [
      { url: 'https://page.example/1', title: 'I1', imageUrl: 'https://img.example/1.png', imageWidth: 1920, imageHeight: 1080 },
      { url: 'https://page.example/2', title: 'I2', imageUrl: 'https://img.example/2.t.png', imageWidth: 640, imageHeight: 480 },
      { url: 'https://page.example/3', title: 'I3', imageUrl: 'https://img.example/3.png' },
    ] });
  });

  describe('errors', () => {
    it('connection refused -> unavailable', async () => {
      const srv = createServer();
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      await new Promise<void>((resolve) => srv.close(() => resolve()));
      const err = await failure(provider(`http://127.0.0.1:${port}`).search(q({ query: 'x' })));
      expect(err).toMatchObject({ provider: 'searxng', kind: 'unavailable' });
      expect(err.message).toContain('ECONNREFUSED');
    });

    it('5xx -> unavailable', async () => {
      const s = await fake({ mode: 'down' });
      expect(await failure(provider(s.baseUrl).search(q({ query: 'x' })))).toMatchObject({ provider: 'searxng', kind: 'unavailable', status: 502 });
    });

    it('403 (JSON format off) and 429 (limiter) -> blocked, with the settings hint', async () => {
      const s = await fake({ mode: 'forbidden' });
      const forbidden = await failure(provider(s.baseUrl).search(q({ query: 'x' })));
      expect(forbidden).toMatchObject({ provider: 'searxng', kind: 'blocked', status: 403 });
      expect(forbidden.message).toContain('search.formats');
      expect(forbidden.message).toContain('limiter');
      s.setMode('limited');
      const limited = await failure(provider(s.baseUrl).search(q({ query: 'x' })));
      expect(limited).toMatchObject({ kind: 'blocked', status: 429 });
      expect(limited.message).toContain('limiter');
    });

    it('an HTML answer -> invalid, with the JSON format hint', async () => {
      const s = await fake({ mode: 'html' });
      const err = await failure(provider(s.baseUrl).search(q({ query: 'x' })));
      expect(err).toMatchObject({ provider: 'searxng', kind: 'invalid' });
      expect(err.message).toContain('search.formats');
      expect(err.message).toContain('text/html');
    });

    it('JSON without a results list -> invalid', async () => {
      const srv = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"error":"nope"}');
      });
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      try {
        expect(await failure(provider(`http://127.0.0.1:${port}`).search(q({ query: 'x' })))).toMatchObject({ kind: 'invalid' });
      } finally {
        srv.closeAllConnections();
        await new Promise<void>((resolve) => srv.close(() => resolve()));
      }
    });

    it('a slow instance -> timeout after timeoutMs', async () => {
      const s = await fake({ mode: 'slow', delayMs: 60_000 });
      const err = await failure(provider(s.baseUrl, {}, 200).search(q({ query: 'x' })));
      expect(err).toMatchObject({ provider: 'searxng', kind: 'timeout' });
      expect(s.requests).toHaveLength(1);
    });

    it("the caller's signal -> aborted", async () => {
      const s = await fake({ mode: 'slow', delayMs: 60_000 });
      const ac = new AbortController();
      const pending = provider(s.baseUrl).search(q({ query: 'x', signal: ac.signal }));
      // Abort once the fake has the request (waiting on the event, not on time).
      await waitFor(() => s.requests.length === 1, { what: 'the request to arrive' });
      ac.abort();
      expect(await failure(pending)).toMatchObject({ provider: 'searxng', kind: 'aborted' });

      const already = new AbortController();
      already.abort();
      expect(await failure(provider(s.baseUrl).search(q({ query: 'x', signal: already.signal })))).toMatchObject({ kind: 'aborted' });
    });
  });
});
