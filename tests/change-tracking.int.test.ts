import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FixtureSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf, watchCrawl } from './helpers/crawl-watch.js';

/** Mutable fixture state: each path's body, or null for a 404. */
const pages = new Map<string, string | null>();
const html = (text: string, links: string[] = []) =>
  `<html><head><title>T</title></head><body><main><p>${text}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;

let cluster: TestCluster;
let site: FixtureSite;

beforeAll(async () => {
  site = new FixtureSite();
  for (const path of ['/watched', '/tagged', '/flaky', '/shop/', '/shop/a', '/shop/b', '/shop/c']) {
    site.route(path, (_req, res) => {
      const body = pages.get(path);
      if (body === 'MAINTENANCE') {
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end(html('Down for maintenance'));
        return;
      }
      res.writeHead(body === null || body === undefined ? 404 : 200, { 'content-type': 'text/html' });
      res.end(body ?? html('Not found'));
    });
  }
  await site.start();
  cluster = await TestCluster.start();
});
afterAll(async () => {
  await cluster.stop();
  await site.stop();
}, 30_000);

const track = (url: string, format: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, key?: string) =>
  cluster.call('POST', '/v2/scrape', { body: { url, formats: [{ type: 'changeTracking', modes: ['git-diff'], ...format }], ...extra }, ...(key ? { key } : {}) });

describe('changeTracking format', () => {
  it('goes new -> same -> changed (with a unified diff) -> removed, always fetching the page', async () => {
    const url = site.url('/watched');
    pages.set('/watched', html('Price: 10 EUR. Stock: plenty.'));
    const first = await track(url);
    expect(first.status).toBe(200);
    expect(first.body.data.changeTracking).toEqual({ changeStatus: 'new', visibility: 'visible', previousScrapeAt: null, diff: null });
    // Markdown was made to compare but not asked for.
    expect(first.body.data.markdown).toBeUndefined();

    const same = await track(url);
    expect(same.body.data.changeTracking).toMatchObject({ changeStatus: 'same', diff: null });
    expect(Date.parse(same.body.data.changeTracking.previousScrapeAt)).toBeGreaterThan(0);
    expect(same.body.data.metadata.cacheState).toBe('miss');

    pages.set('/watched', html('Price: 12 EUR. Stock: plenty.'));
    const changed = await track(url, {}, { formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'] }] });
    expect(changed.body.data.changeTracking.changeStatus).toBe('changed');
    expect(changed.body.data.markdown).toContain('12 EUR');
    const diff: string = changed.body.data.changeTracking.diff;
    expect(diff).toContain('--- previous');
    expect(diff).toContain('+++ current');
    expect(diff).toMatch(/^-Price: 10 EUR\. Stock: plenty\.$/m);
    expect(diff).toMatch(/^\+Price: 12 EUR\. Stock: plenty\.$/m);

    pages.set('/watched', null);
    const removed = await track(url);
    expect(removed.body.data.metadata.statusCode).toBe(404);
    expect(removed.body.data.changeTracking.changeStatus).toBe('removed');
    expect(removed.body.data.changeTracking.diff).toMatch(/^-Price: 12 EUR/m);
    expect((await track(url)).body.data.changeTracking.changeStatus).toBe('same');
    pages.set('/watched', html('Back again.'));
    expect((await track(url)).body.data.changeTracking.changeStatus).toBe('changed');
    expect(site.hits.get('/watched')).toBe(6);
  });

  it('does not compare a 503 page nor let it replace the previous version', async () => {
    const url = site.url('/flaky');
    pages.set('/flaky', html('Stable content.'));
    expect((await track(url)).body.data.changeTracking.changeStatus).toBe('new');
    pages.set('/flaky', 'MAINTENANCE');
    const down = await track(url);
    expect(down.body.data.metadata.statusCode).toBe(503);
    expect(down.body.data.changeTracking).toBeNull();
    pages.set('/flaky', html('Stable content.'));
    expect((await track(url)).body.data.changeTracking.changeStatus).toBe('same');
  });

  it('compares per team and per tag; without git-diff mode there is no diff', async () => {
    const url = site.url('/tagged');
    pages.set('/tagged', html('Tagged page.'));
    expect((await track(url, { tag: 'a' })).body.data.changeTracking.changeStatus).toBe('new');
    expect((await track(url, { tag: 'a' })).body.data.changeTracking.changeStatus).toBe('same');
    expect((await track(url, { tag: 'b' })).body.data.changeTracking.changeStatus).toBe('new');
    const other = await cluster.team();
    expect((await track(url, { tag: 'a' }, {}, other.key)).body.data.changeTracking.changeStatus).toBe('new');
    const plain = await cluster.call('POST', '/v2/scrape', { body: { url, formats: [{ type: 'changeTracking', tag: 'a' }] } });
    expect(plain.body.data.changeTracking).toEqual({ changeStatus: 'same', visibility: 'visible', previousScrapeAt: expect.any(String) });
  });

  it('refuses zero data retention, lockdown and json mode with clear codes', async () => {
    const url = site.url('/tagged');
    const zdr = await track(url, {}, { zeroDataRetention: true });
    expect(zdr.status).toBe(400);
    expect(zdr.body.code).toBe('BAD_REQUEST');
    expect(zdr.body.error).toContain('zero data retention');
    expect((await track(url, {}, { lockdown: true })).status).toBe(400);
    const json = await track(url, { modes: ['json'], schema: { type: 'object' } });
    expect(json.status).toBe(400);
    // No LLM is configured in this cluster: mode json needs one.
    expect(json.body).toMatchObject({ code: 'LLM_NOT_CONFIGURED', details: { option: 'formats[0].modes', setting: 'TRAWL_LLM_BASE_URL' } });
  });
});

describe('changeTracking over crawls', () => {
  const crawl = async () => {
    const r = await cluster.call('POST', '/v2/crawl', {
      body: { url: site.url('/shop/'), sitemap: 'skip', limit: 20, scrapeOptions: { formats: ['markdown', { type: 'changeTracking', tag: 'shop' }] } },
    });
    expect(r.status).toBe(200);
    await watchCrawl(cluster, r.body.id);
    const { docs } = await allDocuments(cluster, r.body.id);
    return Object.fromEntries(docs.map((d) => [pathOf(d), d.changeTracking as { changeStatus: string; visibility: string }]));
  };

  it('marks pages no longer linked hidden, deleted pages removed, and links found again visible', async () => {
    pages.set('/shop/', html('Shop home.', ['/shop/a', '/shop/b', '/shop/c']));
    pages.set('/shop/a', html('Product A.'));
    pages.set('/shop/b', html('Product B.'));
    pages.set('/shop/c', html('Product C.'));
    const first = await crawl();
    expect(Object.values(first).map((c) => `${c.changeStatus}/${c.visibility}`)).toEqual(['new/visible', 'new/visible', 'new/visible', 'new/visible']);

    // b is no longer linked (still there, unchanged), c is deleted, a changed.
    pages.set('/shop/', html('Shop home.', ['/shop/a']));
    pages.set('/shop/a', html('Product A, now on sale.'));
    pages.set('/shop/c', null);
    const second = await crawl();
    expect(second['/shop/']).toMatchObject({ changeStatus: 'changed', visibility: 'visible' });
    expect(second['/shop/a']).toMatchObject({ changeStatus: 'changed', visibility: 'visible' });
    expect(second['/shop/b']).toMatchObject({ changeStatus: 'same', visibility: 'hidden' });
    expect(second['/shop/c']).toMatchObject({ changeStatus: 'removed', visibility: 'hidden' });

    // Linked again: visible.
    pages.set('/shop/', html('Shop home.', ['/shop/a', '/shop/b']));
    const third = await crawl();
    expect(third['/shop/b']).toMatchObject({ changeStatus: 'same', visibility: 'visible' });
  });
});
