import { describe, expect, it } from '@jest/globals';
import { AdBlocker, candidatePattern, selectTrackerFilters } from './ad-blocker.js';

// Excerpts of @ghostery/trackerdb's dist/trackerdb.txt (same format, real entries).
const LIST = [
  '! trackerdb_id:doubleclick trackerdb_category:advertising trackerdb_filter',
  '||doubleclick.net^$3p',
  '! trackerdb_id:doubleclick trackerdb_category:advertising trackerdb_domain',
  '||doubleclick.net^',
  '! trackerdb_id:google_analytics trackerdb_category:site_analytics trackerdb_filter',
  '||google-analytics.com/analytics.js',
  '! trackerdb_id:matomo trackerdb_category:site_analytics trackerdb_filter',
  '/matomo.js',
  '! trackerdb_id:exoclick trackerdb_category:pornvertising trackerdb_filter',
  '||exoclick.com^$3p',
  '! trackerdb_id:shopify_stats trackerdb_category:site_analytics trackerdb_domain',
  '||shopify.com^',
  '! trackerdb_id:shopifycdn.com trackerdb_category:hosting trackerdb_domain',
  '||cdn.shopify.com^',
  '! trackerdb_id:youtube trackerdb_category:audio_video_player trackerdb_filter',
  '||youtube.com/embed/$3p',
  '! trackerdb_id:onetrust trackerdb_category:consent trackerdb_filter',
  '||cdn.cookielaw.org^$3p',
  '! trackerdb_id:onetrust trackerdb_category:consent trackerdb_filter',
  '###onetrust-banner-sdk',
  '! trackerdb_id:lotame trackerdb_category:advertising trackerdb_filter',
  'news.example###ad-slot',
  '',
].join('\n');

const blocker = AdBlocker.fromTrackerDbList(LIST);
const PAGE = 'https://news.example/article';

describe('selectTrackerFilters', () => {
  it('keeps the network filters of the chosen categories and nothing else', () => {
    expect(selectTrackerFilters(LIST, ['advertising', 'site_analytics', 'pornvertising'])).toEqual([
      '||doubleclick.net^$3p',
      '||google-analytics.com/analytics.js',
      '/matomo.js',
      '||exoclick.com^$3p',
    ]);
  });
});

describe('AdBlocker.shouldBlock', () => {
  it('blocks ad, analytics and adult-ad requests of a page', () => {
    expect(blocker.shouldBlock({ url: 'https://securepubads.g.doubleclick.net/tag/js/gpt.js', sourceUrl: PAGE, resourceType: 'script' })).toBe(true);
    expect(blocker.shouldBlock({ url: 'https://www.google-analytics.com/analytics.js', sourceUrl: PAGE, resourceType: 'script' })).toBe(true);
    expect(blocker.shouldBlock({ url: 'https://news.example/js/matomo.js', sourceUrl: PAGE, resourceType: 'script' })).toBe(true);
    expect(blocker.shouldBlock({ url: 'https://syndication.exoclick.com/ads.php', sourceUrl: PAGE, resourceType: 'xhr' })).toBe(true);
    expect(blocker.shouldBlock({ url: 'https://googleads.g.doubleclick.net/pagead/ads', sourceUrl: PAGE, resourceType: 'subdocument' })).toBe(true);
  });

  it('never blocks the page itself, even on an ad domain', () => {
    expect(blocker.shouldBlock({ url: 'https://ad.doubleclick.net/ddm/clk/1', sourceUrl: '', resourceType: 'document' })).toBe(false);
  });

  it('honours $3p: an ad domain loading its own resources is first party', () => {
    expect(blocker.shouldBlock({ url: 'https://www.doubleclick.net/app.js', sourceUrl: 'https://doubleclick.net/', resourceType: 'script' })).toBe(false);
  });

  it('lets content through: first-party resources, hosting domains, players, consent managers', () => {
    expect(blocker.shouldBlock({ url: 'https://news.example/app.js', sourceUrl: PAGE, resourceType: 'script' })).toBe(false);
    // shopify.com is attributed to Shopify's analytics as a domain, but cdn.shopify.com hosts images.
    expect(blocker.shouldBlock({ url: 'https://cdn.shopify.com/s/files/product.png', sourceUrl: PAGE, resourceType: 'image' })).toBe(false);
    expect(blocker.shouldBlock({ url: 'https://www.youtube.com/embed/abc', sourceUrl: PAGE, resourceType: 'subdocument' })).toBe(false);
    expect(blocker.shouldBlock({ url: 'https://cdn.cookielaw.org/scripttemplates/otSDKStub.js', sourceUrl: PAGE, resourceType: 'script' })).toBe(false);
  });

  it('ignores URLs that are not fetched from the network', () => {
    expect(blocker.shouldBlock({ url: 'data:text/javascript,doubleclick.net', sourceUrl: PAGE, resourceType: 'script' })).toBe(false);
    expect(blocker.shouldBlock({ url: 'blob:https://news.example/matomo.js', sourceUrl: PAGE, resourceType: 'script' })).toBe(false);
  });

  it('reports what it compiled', () => {
    expect(blocker.stats.filters).toBe(4);
    expect(blocker.stats.loadMs).toBeGreaterThanOrEqual(0);
  });
});

describe('AdBlocker.fromFilterList', () => {
  it('compiles a plain ABP list, network filters only', () => {
    const blocker = AdBlocker.fromFilterList('[Adblock Plus 2.0]\n! comment\n||ads.example.net^\nexample.org##.banner\n/banner-ad/*\n');
    expect(blocker.stats.filters).toBe(2);
    expect(blocker.shouldBlock({ url: 'https://ads.example.net/x.js', sourceUrl: 'https://site.test/', resourceType: 'script' })).toBe(true);
    expect(blocker.shouldBlock({ url: 'https://site.test/banner-ad/1.png', sourceUrl: 'https://site.test/', resourceType: 'image' })).toBe(true);
    expect(blocker.shouldBlock({ url: 'https://site.test/app.js', sourceUrl: 'https://site.test/', resourceType: 'script' })).toBe(false);
  });
});

describe('AdBlocker.isCandidate', () => {
  it('keeps every URL a filter blocks and drops URLs no filter can match', () => {
    const blocked = [
      'https://securepubads.g.doubleclick.net/tag/js/gpt.js', 'https://www.google-analytics.com/analytics.js',
      'https://news.example/js/matomo.js', 'https://syndication.exoclick.com/ads.php', 'https://googleads.g.doubleclick.net/pagead/ads',
    ];
    for (const url of blocked) expect([url, blocker.isCandidate(url)]).toEqual([url, true]);
    for (const url of ['https://news.example/app.js', 'https://cdn.shopify.com/s/files/product.png', 'https://news.example/style.css']) {
      expect([url, blocker.isCandidate(url)]).toEqual([url, false]);
    }
  });

  it('matches on a filter\'s literal part, case-insensitively, and on regex filters', () => {
    const pattern = candidatePattern(['||ads.example.net^$3p', '/banner-ad/*', 'adbutler', '/\\.2mdn\\.net\\/(ads|dot\\.gif)/', '@@||good.example^']);
    expect(pattern?.test('https://ADS.example.net/x.js')).toBe(true);
    expect(pattern?.test('https://site.test/banner-ad/1.png')).toBe(true);
    expect(pattern?.test('https://site.test/AdButler/x')).toBe(true);
    expect(pattern?.test('https://s0.2mdn.net/ads/x')).toBe(true);
    expect(pattern?.test('https://good.example/app.js')).toBe(false);
  });

  it('gives up (every request is judged) when a filter has no usable literal', () => {
    expect(candidatePattern(['||ads.example.net^', '/a^'])).toBeUndefined();
    expect(AdBlocker.fromFilterList('/a^\n').isCandidate('https://any.test/')).toBe(true);
  });

  it('covers the bundled TrackerDB list', async () => {
    const real = await AdBlocker.load();
    expect(real.isCandidate('https://securepubads.g.doubleclick.net/tag/js/gpt.js')).toBe(true);
    expect(real.isCandidate('http://127.0.0.1:8080/examples/react/dist/app.js')).toBe(false);
  });
});
