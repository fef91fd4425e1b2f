import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from '@jest/globals';
import { GeneratedSite } from './generated-site.js';

describe('GeneratedSite', () => {
  let site: GeneratedSite | undefined;
  afterEach(async () => {
    await site?.close();
    site = undefined;
  });

  const get = (s: GeneratedSite, path: string): Promise<Response> => fetch(s.url(path), { redirect: 'manual' });
  const hrefs = (html: string): string[] => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1] as string);

  it('serves a tree of pages whose links and depths match reachable() and depthOf()', async () => {
    site = await GeneratedSite.start({ pages: 30, branching: 3, pageBytes: 2000 });
    const home = await get(site, '/');
    const html = await home.text();
    expect(home.status).toBe(200);
    expect(html).toContain('<title>Home | Generated site</title>');
    expect(html).toContain('<meta name="description"');
    expect(hrefs(html)).toEqual(['/', '/about', '/p/0', '/p/1', '/p/2']);

    const page = await (await get(site, '/p/4')).text();
    expect(page).toContain('<h1>Page 4</h1>');
    expect(page).toContain('<footer>');
    // Children of /p/i are /p/3(i+1) ... /p/3(i+1)+2.
    expect(hrefs(page)).toEqual(['/', '/about', '/p/15', '/p/16', '/p/17']);
    expect(Math.abs(page.length - 2000)).toBeLessThan(20);

    expect([site.depthOf('/'), site.depthOf('/about'), site.depthOf('/p/2'), site.depthOf('/p/3'), site.depthOf('/p/12'), site.depthOf('/p/29')])
      .toEqual([0, 1, 1, 2, 3, 3]);
    expect(site.reachable()).toHaveLength(32);
    expect(site.reachable({ maxDepth: 1 })).toEqual(['/', '/about', '/p/0', '/p/1', '/p/2']);
    expect(site.reachable({ maxDepth: 2, under: '/p/' })).toEqual(range(12).map((i) => `/p/${i}`));
    expect(site.hits.get('/p/4')).toBe(1);
    expect(site.served.map((s) => s.path)).toEqual(['/', '/p/4']);
  });

  it('serves robots.txt, a gzipped child sitemap, redirects, 404 links and private pages', async () => {
    site = await GeneratedSite.start({
      pages: 10, sitemapOnly: 2, privatePages: 2, sitemap: 'index-gz', redirects: true, brokenLinks: true,
      queryVariants: true, externalLinks: true, robots: { crawlDelaySec: 2 },
    });
    const robots = await (await get(site, '/robots.txt')).text();
    expect(robots).toBe(`User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n\nSitemap: ${site.origin}/sitemap.xml\n`);

    const index = await (await get(site, '/sitemap.xml')).text();
    expect(index).toContain(`<sitemapindex`);
    expect(index).toContain(`<loc>${site.origin}/sitemap-pages.xml.gz</loc>`);
    const gz = await get(site, '/sitemap-pages.xml.gz');
    const urlset = gunzipSync(Buffer.from(await gz.arrayBuffer())).toString();
    const locs = [...urlset.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => (m[1] as string).slice(site!.origin.length));
    expect(locs).toEqual(site.sitemapPaths());
    expect(locs).toContain('/hidden/1');
    expect(locs).not.toContain('/private/0');

    const homeLinks = hrefs(await (await get(site, '/')).text());
    expect(homeLinks).toEqual(expect.arrayContaining(['/r/2', '/private/0', '/private/1', '/missing/home', 'http://external.invalid/from/home']));
    expect(homeLinks).not.toContain('/p/2');
    const redirect = await get(site, '/r/2');
    expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/p/2']);
    expect((await get(site, '/missing/home')).status).toBe(404);
    expect((await get(site, '/p/10')).status).toBe(404);
    expect(hrefs(await (await get(site, '/p/3')).text())).toContain('/?ref=p3');
    expect(await (await get(site, '/?ref=p3')).text()).toContain('<h1>Home</h1>');
    expect(site.hits.get('/?ref=p3')).toBe(1);

    // /hidden/* is only in the sitemap; /private/* is reachable only when robots.txt is ignored.
    expect(site.reachable()).toHaveLength(12);
    expect(site.reachable({ ignoreRobots: true })).toEqual(expect.arrayContaining(['/private/0', '/private/1', '/p/2']));
    expect(site.reachable({ ignoreRobots: true })).not.toContain('/hidden/0');
    expect(site.depthOf('/hidden/0')).toBe(-1);
    expect(site.totalRequests()).toBe(9);
    site.resetCounters();
    expect([site.totalRequests(), site.hits.size, site.served.length]).toEqual([0, 0, 0]);
  });

  it('answers 404 for robots.txt and sitemap when turned off, and delays answers by latencyMs', async () => {
    site = await GeneratedSite.start({ pages: 3, robots: false, sitemap: 'none', latencyMs: 50, privatePages: 1 });
    const started = performance.now();
    const [robots, sitemap] = await Promise.all([get(site, '/robots.txt'), get(site, '/sitemap.xml')]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect([robots.status, sitemap.status]).toEqual([404, 404]);
    expect(site.sitemapPaths()).toEqual([]);
    expect(site.reachable()).toContain('/private/0');
  });
});

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
